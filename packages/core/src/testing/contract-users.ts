import { DomainError } from '../errors.js';
import {
  aMessage,
  anAccount,
  at,
  aUser,
  rejectionOf,
  seedBasics,
  sorted,
  type ContractContext,
  type ProductContractRepositories,
} from './contract-support.js';

/** Users, accounts and memberships (the product part, docs/decisions/0161). */
export function describeUserContract({ runner, repos }: ContractContext<ProductContractRepositories>): void {
  const { describe, it, expect } = runner;

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
