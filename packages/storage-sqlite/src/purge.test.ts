import type BetterSqlite3 from 'better-sqlite3';
import { createTestGatehouse, type TestGatehouse } from '@gatehouse/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqlite } from './sqlite-storage.js';
import type { Storage } from '@gatehouse/storage-kysely';
import { tempDatabaseFile } from './test-support/temp-file.js';

const TABLES = ['grants', 'refresh_tokens', 'authorization_codes', 'sessions'] as const;

describe('purging keeps the SQLite tables bounded', () => {
  let file: ReturnType<typeof tempDatabaseFile>;
  let storage: Storage;
  let raw: BetterSqlite3.Database;

  beforeEach(async () => {
    file = tempDatabaseFile();
    ({ storage, database: raw } = await openSqlite({ filename: file.filename }));
    await storage.migrate();
  });

  afterEach(async () => {
    await storage.close();
    file.remove();
  });

  const rows = (): Record<(typeof TABLES)[number], number> =>
    Object.fromEntries(TABLES.map((table) => [table, (raw.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n])) as Record<
      (typeof TABLES)[number],
      number
    >;

  async function unusedCode(t: TestGatehouse, clientId: string, redirectUri: string, userKey: string): Promise<void> {
    const check = await t.gatehouse.checkAuthorizationRequest({ client_id: clientId, response_type: 'code', redirect_uri: redirectUri });
    if (check.kind !== 'valid') throw new Error('the authorization request should be valid');
    await t.gatehouse.approveAuthorization({ request: check.request, userKey, sessionId: null });
  }

  it('leaves only what is still usable after days of sign-ins, exchanges, logouts and abandoned codes', async () => {
    const t = await createTestGatehouse({ repositories: storage.repositories });
    const user = await t.seedUser({ password: 'password123' });
    const { client } = await t.seedClient();
    const redirectUri = client.redirectUris[0] as string;
    // One grant made outside any session stays live throughout, with its code and refresh token.
    const kept = await t.obtainTokens({ client, user });

    for (let day = 0; day < 3; day += 1) {
      const { sessionToken, session } = await t.gatehouse.signIn({ email: user.email, password: 'password123' });
      for (let exchange = 0; exchange < 10; exchange += 1) await t.obtainTokens({ client, user, sessionId: session.sessionId });
      for (let abandoned = 0; abandoned < 5; abandoned += 1) await unusedCode(t, client.clientId, redirectUri, user.userKey);
      expect(rows()).toEqual({ grants: 11, refresh_tokens: 11, authorization_codes: 16, sessions: 1 });

      await t.gatehouse.logout(sessionToken); // revokes the day's 10 grants
      t.clock.advance(t.settings.accessTokenTtlSeconds + 25 * 3600);
      await t.gatehouse.purgeExpired();

      expect(rows()).toEqual({ grants: 1, refresh_tokens: 1, authorization_codes: 1, sessions: 0 });
    }
    const refreshed = await t.gatehouse.refresh({ client, refreshToken: kept.refresh_token as string, scope: undefined });
    expect(refreshed.token_type).toBe('Bearer');
  }, 60_000);
});
