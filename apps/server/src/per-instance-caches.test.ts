import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OAuthError, type Gatehouse, type ProductApi } from '@gatehouse/core';
import { createControllableClock } from '@gatehouse/core/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';
import { createContainer, resolve, TOKENS } from './container.js';

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-caches-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Two server containers (two instances) on one database file, sharing a controllable clock; closed after `body`. */
async function withTwoInstances(
  file: string,
  body: (a: Gatehouse, b: Gatehouse, clock: ReturnType<typeof createControllableClock>, there: Awaited<ReturnType<typeof createContainer>>, products: { a: ProductApi; b: ProductApi }) => Promise<void>,
): Promise<void> {
  const clock = createControllableClock();
  const config = loadConfig({ GATEHOUSE_DB: join(dir, file), GATEHOUSE_LOG_LEVEL: 'silent' });
  const silent = { write: () => undefined };
  const here = await createContainer(config, { logDestination: silent, clock });
  const there = await createContainer(config, { logDestination: silent, clock });
  try {
    await body(resolve(here, TOKENS.gatehouse), resolve(there, TOKENS.gatehouse), clock, there, { a: resolve(here, TOKENS.product), b: resolve(there, TOKENS.product) });
  } finally {
    await resolve(here, TOKENS.storage).close();
    await resolve(there, TOKENS.storage).close();
  }
}

async function refusalOf(attempt: Promise<unknown>): Promise<string> {
  try {
    await attempt;
    return 'accepted';
  } catch (error) {
    return error instanceof OAuthError ? error.code : String(error);
  }
}

async function rolesShownBy(product: ProductApi, userKey: string): Promise<string[]> {
  const { memberships } = await product.currentUser(userKey);
  return memberships.map(({ account, role }) => `${account.name}:${role}`);
}

describe('the server caches clients (docs/decisions/0069-clients-cached-in-memory.md)', () => {
  it('a rotation or deletion is seen at once by the instance that made it, within 5 s by another', async () => {
    await withTwoInstances('clients.db', async (a, b, clock) => {
      const { client, clientSecret } = await a.registerClient({ name: 'Cached', redirectUris: ['https://app.example/cb'], scopes: ['messaging.v1.send'] });
      const oldSecret = clientSecret as string;
      // Both instances have read the client (their caches are warm).
      expect((await a.authenticateClient({ clientId: client.clientId, clientSecret: oldSecret })).clientId).toBe(client.clientId);
      expect((await b.authenticateClient({ clientId: client.clientId, clientSecret: oldSecret })).clientId).toBe(client.clientId);

      const { clientSecret: newSecret } = await a.rotateClientSecret({ ownerUserKey: null, clientId: client.clientId });
      expect(await refusalOf(a.authenticateClient({ clientId: client.clientId, clientSecret: oldSecret }))).toBe('invalid_client');
      expect(await refusalOf(a.authenticateClient({ clientId: client.clientId, clientSecret: newSecret }))).toBe('accepted');
      // The other instance: the old secret until its entry is 5 s old, then only the new one.
      expect(await refusalOf(b.authenticateClient({ clientId: client.clientId, clientSecret: oldSecret }))).toBe('accepted');
      clock.advance(5);
      expect(await refusalOf(b.authenticateClient({ clientId: client.clientId, clientSecret: oldSecret }))).toBe('invalid_client');
      expect(await refusalOf(b.authenticateClient({ clientId: client.clientId, clientSecret: newSecret }))).toBe('accepted');

      await b.deleteClient({ ownerUserKey: null, clientId: client.clientId });
      expect(await refusalOf(b.authenticateClient({ clientId: client.clientId, clientSecret: newSecret }))).toBe('invalid_client');
      clock.advance(5);
      expect(await refusalOf(a.authenticateClient({ clientId: client.clientId, clientSecret: newSecret }))).toBe('invalid_client');
    });
  });
});

describe('the server caches what Users/me shows (docs/decisions/0079-current-user-cached-in-memory.md)', () => {
  it('a membership change is seen at once by the instance that made it, within 5 s by another; the admin role check never waits', async () => {
    await withTwoInstances('users.db', async (_a, _b, clock, there, { a, b }) => {
      const account = await a.createAccount({ name: 'Acme' });
      const user = await a.createUser({ email: 'cached@example.com', password: 'correct horse battery' });
      await a.setMembership({ accountKey: account.accountKey, userKey: user.userKey, role: 'member' });
      // Both instances have read the user (their caches are warm).
      expect(await rolesShownBy(a, user.userKey)).toEqual(['Acme:member']);
      expect(await rolesShownBy(b, user.userKey)).toEqual(['Acme:member']);

      await a.setMembership({ accountKey: account.accountKey, userKey: user.userKey, role: 'admin' });
      expect(await rolesShownBy(a, user.userKey)).toEqual(['Acme:admin']);
      // The other instance: the old role in Users/me until its entry is 5 s old; its role check reads the database.
      expect(await rolesShownBy(b, user.userKey)).toEqual(['Acme:member']);
      expect(await resolve(there, TOKENS.repositories).accounts.findRole(account.accountKey, user.userKey)).toBe('admin');
      clock.advance(5);
      expect(await rolesShownBy(b, user.userKey)).toEqual(['Acme:admin']);
    });
  });
});
