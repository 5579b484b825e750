import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OAuthError, type Gatehouse } from '@gatehouse/core';
import { createControllableClock } from '@gatehouse/core/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';
import { createContainer, resolve, TOKENS } from './container.js';

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-client-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function refusalOf(attempt: Promise<unknown>): Promise<string> {
  try {
    await attempt;
    return 'accepted';
  } catch (error) {
    return error instanceof OAuthError ? error.code : String(error);
  }
}

describe('the server caches clients (docs/decisions/0069-clients-cached-in-memory.md)', () => {
  it('a rotation or deletion is seen at once by the instance that made it, within 5 s by another', async () => {
    const clock = createControllableClock();
    const config = loadConfig({ GATEHOUSE_DB: join(dir, 'gatehouse.db'), GATEHOUSE_LOG_LEVEL: 'silent' });
    const silent = { write: () => undefined };
    const here = await createContainer(config, { logDestination: silent, clock });
    const there = await createContainer(config, { logDestination: silent, clock });
    try {
      const a: Gatehouse = resolve(here, TOKENS.gatehouse);
      const b: Gatehouse = resolve(there, TOKENS.gatehouse);
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
    } finally {
      await resolve(here, TOKENS.storage).close();
      await resolve(there, TOKENS.storage).close();
    }
  });
});
