import type { Client } from '../domain/model.js';
import { DomainError } from '../errors.js';
import {
  aClient,
  aCode,
  aGrant,
  aRefreshToken,
  at,
  aUser,
  exchangeACode,
  rejectionOf,
  seedBasics,
  sorted,
  type ContractContext,
  type OAuthContractRepositories,
} from './contract-support.js';

/** Clients (the OAuth part; users, accounts and memberships are contract-users.ts's). */
export function describeIdentityContract({ runner, repos }: ContractContext<OAuthContractRepositories>): void {
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
      // The owner, where the storage has Gatehouse's own users (it may enforce the reference).
      await repos().users?.create(aUser(1));
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

    it('forgets every user’s remembered consent to the client with an update that asks it to, in the same write, and nothing for an unknown client (docs/decisions/0195)', async () => {
      await repos().users?.create(aUser(1));
      await repos().users?.create(aUser(2));
      await repos().clients.create(aClient('c1'));
      await repos().clients.create(aClient('c2'));
      const grantedAt = new Date('2030-01-01T00:00:00.000Z');
      for (const [userKey, clientId] of [['user1', 'c1'], ['user2', 'c1'], ['user1', 'c2']] as const) {
        await repos().consents.remember({ userKey, clientId, scopes: ['messaging.v1.read'], grantedAt });
      }
      const changes = { name: 'Totally Different App', redirectUris: ['https://attacker.example/cb'], scopes: ['messaging.v1.read'], grantTypes: ['authorization_code'] as Client['grantTypes'], pkceRequired: false };
      expect(await repos().clients.update('unknown', changes, { forgetConsents: true })).toBe(false);
      // Without it, an update keeps them.
      expect(await repos().clients.update('c1', changes)).toBe(true);
      expect((await repos().consents.listByUser('user1')).map((consent) => consent.clientId)).toEqual(['c1', 'c2']);

      expect(await repos().clients.update('c1', changes, { forgetConsents: true })).toBe(true);
      expect(await repos().clients.findById('c1')).toMatchObject(changes);
      expect(await repos().consents.find('user1', 'c1')).toBeUndefined();
      expect(await repos().consents.find('user2', 'c1')).toBeUndefined();
      // Another client's stay.
      expect((await repos().consents.listByUser('user1')).map((consent) => consent.clientId)).toEqual(['c2']);
    });

    it('replaces the secret hash', async () => {
      await repos().clients.create(aClient('c1'));
      expect(await repos().clients.updateSecretHash('c1', 'new-hash')).toBe(true);
      expect((await repos().clients.findById('c1'))?.clientSecretHash).toBe('new-hash');
      expect(await repos().clients.updateSecretHash('unknown', 'x')).toBe(false);
    });

    it('lists clients by owner and all clients', async () => {
      await repos().users?.create(aUser(1));
      await repos().users?.create(aUser(2));
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
}
