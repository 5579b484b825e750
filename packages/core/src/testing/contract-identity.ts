import type { Client } from '../domain/model.js';
import { DomainError } from '../errors.js';
import {
  aClient,
  aCode,
  aGrant,
  aMessage,
  anAccount,
  aRefreshToken,
  at,
  aUser,
  exchangeACode,
  rejectionOf,
  seedBasics,
  sorted,
  type ContractContext,
} from './contract-support.js';

/** Clients, users, accounts and memberships. */
export function describeIdentityContract({ runner, repos }: ContractContext): void {
  const { describe, it, expect } = runner;

  describe('clients', () => {
    it('round-trips every field: dates to the millisecond, arrays in order, null owner', async () => {
      const client = aClient('c1', { pkceRequired: true, createdAt: at(3, 999) });
      await repos().clients.create(client);
      expect(await repos().clients.findById('c1')).toEqual(client);
      const found = await repos().clients.findById('c1');
      expect(found?.createdAt).toBeInstanceOf(Date);
      expect(found?.createdAt.getTime()).toBe(client.createdAt.getTime());
      expect(await repos().clients.findById('nope')).toBeUndefined();
    });

    it('refuses a client id that is taken with a conflict', async () => {
      await repos().clients.create(aClient('c1'));
      const error = await rejectionOf(repos().clients.create(aClient('c1', { name: 'Other' })));
      expect(error).toBeInstanceOf(DomainError);
      expect(error).toMatchObject({ kind: 'conflict' });
      expect((await repos().clients.findById('c1'))?.name).toBe('Client c1');
    });

    it('stores a public client (no secret hash) and the grant types, in order', async () => {
      const publicClient = aClient('pub', { clientSecretHash: null, pkceRequired: true });
      const machine = aClient('machine', { redirectUris: [], grantTypes: ['client_credentials'] });
      const all = aClient('all', { grantTypes: ['authorization_code', 'refresh_token', 'client_credentials'] });
      for (const client of [publicClient, machine, all]) await repos().clients.create(client);
      expect(await repos().clients.findById('pub')).toEqual(publicClient);
      expect((await repos().clients.findById('pub'))?.clientSecretHash).toBe(null);
      expect(await repos().clients.findById('machine')).toEqual(machine);
      expect(await repos().clients.findById('all')).toEqual(all);
      expect((await repos().clients.listAll()).find((client) => client.clientId === 'pub')?.clientSecretHash).toBe(null);
    });

    it('updates name, redirect URIs, scopes, grant types and PKCE but not the secret, owner or creation time', async () => {
      await repos().users.create(aUser(1));
      await repos().clients.create(aClient('c1', { ownerUserKey: 'user1' }));
      const changes = {
        name: 'Renamed',
        redirectUris: ['https://z.example/cb', 'https://a.example/cb'],
        scopes: ['messaging.v1.read'],
        grantTypes: ['authorization_code', 'client_credentials'] as Client['grantTypes'],
        pkceRequired: true,
      };
      expect(await repos().clients.update('c1', changes)).toBe(true);
      expect(await repos().clients.findById('c1')).toEqual({ ...aClient('c1', { ownerUserKey: 'user1' }), ...changes });
      expect(await repos().clients.update('unknown', changes)).toBe(false);
      expect(await repos().clients.findById('unknown')).toBeUndefined();
    });

    it('replaces the secret hash', async () => {
      await repos().clients.create(aClient('c1'));
      expect(await repos().clients.updateSecretHash('c1', 'new-hash')).toBe(true);
      expect((await repos().clients.findById('c1'))?.clientSecretHash).toBe('new-hash');
      expect(await repos().clients.updateSecretHash('unknown', 'x')).toBe(false);
    });

    it('lists clients by owner and all clients', async () => {
      await repos().users.create(aUser(1));
      await repos().users.create(aUser(2));
      await repos().clients.create(aClient('c1', { ownerUserKey: 'user1', createdAt: at(1) }));
      await repos().clients.create(aClient('c2', { ownerUserKey: 'user2', createdAt: at(2) }));
      await repos().clients.create(aClient('c3', { ownerUserKey: 'user1', createdAt: at(3) }));
      await repos().clients.create(aClient('c4', { ownerUserKey: null, createdAt: at(4) }));
      const owned = await repos().clients.listByOwner('user1');
      expect(sorted(owned.map((client) => client.clientId))).toEqual(['c1', 'c3']);
      expect(owned.find((client) => client.clientId === 'c3')).toEqual(aClient('c3', { ownerUserKey: 'user1', createdAt: at(3) }));
      expect(await repos().clients.listByOwner('user3')).toEqual([]);
      expect(sorted((await repos().clients.listAll()).map((client) => client.clientId))).toEqual(['c1', 'c2', 'c3', 'c4']);
    });

    it('deletes a client with its codes, grants and refresh tokens, and nothing of other clients', async () => {
      await seedBasics(repos());
      await exchangeACode(repos(), 'codeUsed', aGrant('gA'), 'rA');
      await repos().grants.create(aGrant('gB', { clientId: 'clientB' }));
      await repos().refreshTokens.save(aRefreshToken('rB', 'gB'));
      await repos().codes.save(aCode('codeUnused'));
      await repos().codes.save(aCode('codeOfB', { clientId: 'clientB' }));

      expect(await repos().clients.delete('clientA')).toBe(true);

      expect(await repos().clients.findById('clientA')).toBeUndefined();
      expect(await repos().grants.findById('gA')).toBeUndefined();
      expect(await repos().refreshTokens.findByHash('rA')).toBeUndefined();
      expect(await repos().codes.findByHash('codeUnused')).toBeUndefined();
      expect(await repos().codes.findByHash('codeUsed')).toBeUndefined();
      expect((await repos().grants.findById('gB'))?.clientId).toBe('clientB');
      expect((await repos().refreshTokens.findByHash('rB'))?.grantId).toBe('gB');
      expect((await repos().codes.findByHash('codeOfB'))?.clientId).toBe('clientB');
      expect(await repos().clients.delete('clientA')).toBe(false);
    });
  });

  describe('users', () => {
    it('deletes a user with their phone numbers, memberships, attribute values and messages, and nobody else\'s', async () => {
      for (const n of [1, 2]) await repos().users.create(aUser(n));
      for (const n of [1, 2]) await repos().accounts.create(anAccount(n));
      await repos().accounts.setMembership('account1', 'user1', 'admin');
      await repos().accounts.setMembership('account2', 'user1', 'member');
      await repos().accounts.setMembership('account1', 'user2', 'member');
      await repos().users.addPhoneNumber('user1', '+15550000001');
      await repos().users.addPhoneNumber('user2', '+15550000002');
      await repos().attributes.create('account1', { key: 'a1', name: 'Team' }, 10);
      await repos().attributes.setUserValues('account1', 'user1', [{ key: 'a1', value: 'Blue' }]);
      await repos().attributes.setUserValues('account1', 'user2', [{ key: 'a1', value: 'Red' }]);
      // Kept under user1's number; sent by user1 (from a number since taken away); user2's own.
      await repos().messages.save(aMessage('m1', at(1), { ownerPhoneNumber: '+15550000001', authorUserKey: 'user1' }));
      await repos().messages.save(aMessage('m2', at(2), { ownerPhoneNumber: '+15550000003', authorUserKey: 'user1' }));
      await repos().messages.save(aMessage('m3', at(3), { ownerPhoneNumber: '+15550000002', authorUserKey: 'user2' }));

      expect(await repos().users.delete('user1')).toEqual({ phoneNumbers: 1, memberships: 2, attributeValues: 1, messages: 2 });

      expect(await repos().users.findByKey('user1')).toBeUndefined();
      expect(await repos().users.findByEmail('person1@example.com')).toBeUndefined();
      expect(await repos().users.findByPhoneNumber('+15550000001')).toBeUndefined();
      expect(await repos().accounts.findRole('account1', 'user1')).toBeUndefined();
      expect(await repos().attributes.listUserValues('account1', 'user1')).toEqual([]);
      expect(await repos().messages.listByOwner('+15550000001', { limit: 10 })).toEqual([]);
      expect(await repos().messages.listByOwner('+15550000003', { limit: 10 })).toEqual([]);
      // A freed number can be given to someone else, who sees none of the old messages.
      await repos().users.addPhoneNumber('user2', '+15550000001');
      expect(await repos().messages.listByOwner('+15550000001', { limit: 10 })).toEqual([]);
      // Nobody else's records are touched.
      expect(await repos().users.findByKey('user2')).toEqual(aUser(2));
      expect(await repos().accounts.findRole('account1', 'user2')).toBe('member');
      expect((await repos().attributes.listUserValues('account1', 'user2')).map((value) => value.value)).toEqual(['Red']);
      expect((await repos().messages.listByOwner('+15550000002', { limit: 10 })).map((message) => message.id)).toEqual(['m3']);
      expect(await repos().users.delete('user1')).toBeUndefined();
      expect(await repos().users.delete('nobody')).toBeUndefined();
    });

    it('disables a user from a time and enables them again', async () => {
      await repos().users.create(aUser(1));
      expect(await repos().users.setDisabled('user1', at(7, 5))).toBe(true);
      expect(await repos().users.findByKey('user1')).toEqual(aUser(1, { disabledAt: at(7, 5) }));
      expect((await repos().users.findByEmail('person1@example.com'))?.disabledAt).toEqual(at(7, 5));
      expect((await repos().users.findWithMemberships('user1'))?.user.disabledAt).toEqual(at(7, 5));
      expect(await repos().users.setDisabled('user1', null)).toBe(true);
      expect(await repos().users.findByKey('user1')).toEqual(aUser(1));
      expect(await repos().users.setDisabled('nobody', at(8))).toBe(false);
    });

    it('lists users by e-mail ignoring case, a page at a time', async () => {
      for (const [n, email] of [[1, 'carol@example.com'], [2, 'Alice@example.com'], [3, 'bob@example.com']] as const) await repos().users.create(aUser(n, { email }));
      expect((await repos().users.list({ limit: 10, offset: 0 })).map((user) => user.email)).toEqual(['Alice@example.com', 'bob@example.com', 'carol@example.com']);
      expect((await repos().users.list({ limit: 1, offset: 1 })).map((user) => user.userKey)).toEqual(['user3']);
      expect(await repos().users.list({ limit: 10, offset: 3 })).toEqual([]);
      expect((await repos().users.list({ limit: 1, offset: 0 }))[0]).toEqual(aUser(2, { email: 'Alice@example.com' }));
    });

    it('round-trips a user and finds it by key and by e-mail ignoring case', async () => {
      const user = aUser(1, { email: 'Ada.Lovelace@Example.COM' });
      await repos().users.create(user);
      expect(await repos().users.findByKey('user1')).toEqual(user);
      expect(await repos().users.findByEmail('ada.lovelace@example.com')).toEqual(user);
      expect(await repos().users.findByEmail('ADA.LOVELACE@EXAMPLE.COM')).toEqual(user);
      expect(await repos().users.findByEmail('ada@example.com')).toBeUndefined();
      await repos().users.create(aUser(3, { email: 'Zoë@Example.com' }));
      expect((await repos().users.findByEmail('ZOË@EXAMPLE.COM'))?.userKey).toBe('user3');
      expect(await repos().users.findByKey('user2')).toBeUndefined();
    });

    it('refuses an e-mail that is taken, ignoring case, with a conflict', async () => {
      await repos().users.create(aUser(1, { email: 'ada@example.com' }));
      const error = await rejectionOf(repos().users.create(aUser(2, { email: 'ADA@example.com' })));
      expect(error).toBeInstanceOf(DomainError);
      expect(error).toMatchObject({ kind: 'conflict' });
      expect(await repos().users.findByKey('user2')).toBeUndefined();
      expect((await repos().users.findByEmail('ada@EXAMPLE.com'))?.userKey).toBe('user1');
    });

    it('updates the password hash of a known user only', async () => {
      await repos().users.create(aUser(1));
      expect(await repos().users.updatePasswordHash('user1', 'scrypt$new')).toBe(true);
      expect(await repos().users.findByKey('user1')).toEqual({ ...aUser(1), passwordHash: 'scrypt$new' });
      expect(await repos().users.updatePasswordHash('user9', 'x')).toBe(false);
    });

    it('updates the password hash only over the expected one when told (a rehash never undoes a password change)', async () => {
      await repos().users.create(aUser(1));
      const current = aUser(1).passwordHash;
      expect(await repos().users.updatePasswordHash('user1', 'scrypt$rehashed', { ifCurrent: 'scrypt$other' })).toBe(false);
      expect((await repos().users.findByKey('user1'))?.passwordHash).toBe(current);
      expect(await repos().users.updatePasswordHash('user1', 'scrypt$rehashed', { ifCurrent: current })).toBe(true);
      expect((await repos().users.findByKey('user1'))?.passwordHash).toBe('scrypt$rehashed');
      expect(await repos().users.updatePasswordHash('user1', 'scrypt$again', { ifCurrent: current })).toBe(false);
      expect(await repos().users.updatePasswordHash('user9', 'x', { ifCurrent: 'x' })).toBe(false);
    });

    it('adds phone numbers idempotently, per user', async () => {
      await repos().users.create(aUser(1));
      await repos().users.create(aUser(2));
      await repos().users.addPhoneNumber('user1', '+15551234567');
      await repos().users.addPhoneNumber('user1', '+15551234567');
      await repos().users.addPhoneNumber('user1', '+4930123456');
      expect(sorted(await repos().users.listPhoneNumbers('user1'))).toEqual(['+15551234567', '+4930123456']);
      expect(await repos().users.listPhoneNumbers('user2')).toEqual([]);
    });

    it('gives a phone number to one user: another user’s claim is a conflict and changes nothing', async () => {
      await repos().users.create(aUser(1));
      await repos().users.create(aUser(2));
      await repos().users.addPhoneNumber('user1', '+15551234567');
      const error = await rejectionOf(repos().users.addPhoneNumber('user2', '+15551234567'));
      expect(error).toBeInstanceOf(DomainError);
      expect(error).toMatchObject({ kind: 'conflict', field: 'phone' });
      expect(await repos().users.listPhoneNumbers('user2')).toEqual([]);
      expect(await repos().users.listPhoneNumbers('user1')).toEqual(['+15551234567']);
      // Its owner adding it again is still a no-op.
      await repos().users.addPhoneNumber('user1', '+15551234567');
      expect(await repos().users.listPhoneNumbers('user1')).toEqual(['+15551234567']);
    });

    it('finds the user a phone number belongs to', async () => {
      await repos().users.create(aUser(1));
      await repos().users.addPhoneNumber('user1', '+15551234567');
      expect(await repos().users.findByPhoneNumber('+15551234567')).toEqual(aUser(1));
      expect(await repos().users.findByPhoneNumber('+15550000000')).toBeUndefined();
    });

    it('lets exactly one of 20 users claiming one phone number at once have it', async () => {
      const userKeys = Array.from({ length: 20 }, (_, index) => `user${index + 1}`);
      for (const [index] of userKeys.entries()) await repos().users.create(aUser(index + 1));
      const outcomes = await Promise.allSettled(userKeys.map((userKey) => repos().users.addPhoneNumber(userKey, '+15551234567')));
      const won = outcomes.filter((outcome) => outcome.status === 'fulfilled');
      expect(won).toHaveLength(1);
      for (const outcome of outcomes) if (outcome.status === 'rejected') expect(outcome.reason).toMatchObject({ kind: 'conflict' });
      const owner = userKeys[outcomes.findIndex((outcome) => outcome.status === 'fulfilled')];
      expect((await repos().users.findByPhoneNumber('+15551234567'))?.userKey).toBe(owner);
    }, 30_000);
  });

  describe('accounts and memberships', () => {
    it('round-trips an account', async () => {
      await repos().accounts.create(anAccount(1));
      expect(await repos().accounts.findByKey('account1')).toEqual(anAccount(1));
      expect(await repos().accounts.findByKey('account9')).toBeUndefined();
    });

    it('sets a membership, changes its role, and finds no role for non-members or unknown accounts', async () => {
      await seedBasics(repos());
      await repos().accounts.setMembership('account1', 'user1', 'member');
      expect(await repos().accounts.findRole('account1', 'user1')).toBe('member');
      await repos().accounts.setMembership('account1', 'user1', 'admin');
      expect(await repos().accounts.findRole('account1', 'user1')).toBe('admin');
      expect(await repos().accounts.findRole('account1', 'user2')).toBeUndefined();
      expect(await repos().accounts.findRole('account2', 'user1')).toBeUndefined();
      expect(await repos().accounts.findRole('account9', 'user1')).toBeUndefined();
    });

    it('finds a user with their memberships and accounts, ordered by account key', async () => {
      await seedBasics(repos());
      await repos().accounts.setMembership('account2', 'user1', 'admin');
      await repos().accounts.setMembership('account1', 'user1', 'member');
      await repos().accounts.setMembership('account1', 'user2', 'admin');
      expect(await repos().users.findWithMemberships('user1')).toEqual({
        user: aUser(1),
        memberships: [
          { account: anAccount(1), role: 'member' },
          { account: anAccount(2), role: 'admin' },
        ],
      });
      await repos().users.create(aUser(3));
      expect(await repos().users.findWithMemberships('user3')).toEqual({ user: aUser(3), memberships: [] });
      expect(await repos().users.findWithMemberships('user9')).toBeUndefined();
    });
  });
}
