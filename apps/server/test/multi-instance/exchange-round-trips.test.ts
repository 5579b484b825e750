import { storedSecretHash } from '@gatehouse/core';
import type { TestGatehouse } from '@gatehouse/core/testing';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { POSTGRES_URL, warnIfSkipped } from './support/postgres.js';
import { roundTrips, useCountedGatehouse, type Statement } from './support/statement-log.js';

warnIfSkipped('the round trips of a code exchange on PostgreSQL');

// Issue 32 point 3 (docs/decisions/0172-code-exchange-in-two-round-trips.md): with Gatehouse's own
// users, a successful code exchange on PostgreSQL is two round trips — the failure counts and the
// code (with its owner's e-mail) side by side, then the one-statement write (decision 0073).
describe.skipIf(!POSTGRES_URL)('a code exchange on PostgreSQL', () => {
  const server = useCountedGatehouse();

  /** A code of the user for the client, made through the core (not counted). */
  async function codeFor(client: Parameters<TestGatehouse['gatehouse']['exchangeCode']>[0]['client'], userKey: string): Promise<string> {
    const check = await server.t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', redirect_uri: client.redirectUris[0] });
    if (check.kind !== 'valid') throw check.error;
    const { redirectTo } = await server.t.gatehouse.approveAuthorization({ request: check.request, userKey, sessionId: null });
    return new URL(redirectTo).searchParams.get('code') as string;
  }

  /** POST /oauth/token with Basic client authentication, counting only its statements. */
  async function exchange(clientId: string, secret: string, code: string) {
    server.reset();
    const res = await request(server.app)
      .post('/oauth/token')
      .auth(clientId, secret)
      .type('form')
      .send({ grant_type: 'authorization_code', code, redirect_uri: 'https://client.example/callback' });
    return { res, counted: [...server.statements] };
  }

  it('answers a successful exchange after two round trips: the failure counts beside the code and its owner, then the write', async () => {
    const user = await server.t.seedUser({ email: 'ada@example.com' });
    const { client, clientSecret } = await server.t.seedClient({ scopes: ['messaging.v1.send'] });
    // A first exchange warms the pool and the client cache (the client's read is in memory after it).
    await exchange(client.clientId, clientSecret, await codeFor(client, user.userKey));

    const { res, counted } = await exchange(client.clientId, clientSecret, await codeFor(client, user.userKey));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ token_type: 'Bearer', principal: 'ada@example.com' });
    // The code (read ahead of the client's authentication) and the failure counts side by side, then the write.
    // (Which of the two reads is sent first is the promise chains' business, not the rule's.)
    const [first, second, write] = counted.map(({ text }) => text);
    expect([first, second].sort()).toEqual([
      expect.stringMatching(/from "\w+"\."authorization_codes" left join "\w+"\."users"/),
      expect.stringMatching(/from "\w+"\."gatehouse_failed_attempts"/),
    ]);
    expect(write).toMatch(/^with "live_session"/);
    expect(counted).toHaveLength(3);
    expect(roundTrips(counted)).toBe(2);
    // What the count would be with the reads one after the other: the measure tells them apart.
    expect(roundTrips(counted.map((statement, index) => ({ ...statement, startedAt: index === 1 ? (counted[0] as Statement).endedAt + 0.5 : statement.startedAt })))).toBe(3);
  }, 60_000);

  it('keeps the rules: a replay revokes the grant, a deleted owner is invalid_grant, a limited client is refused with the right secret', async () => {
    const user = await server.t.seedUser({ email: 'grace@example.com' });
    const { client, clientSecret } = await server.t.seedClient({ scopes: ['messaging.v1.send'] });
    const code = await codeFor(client, user.userKey);
    const first = await exchange(client.clientId, clientSecret, code);
    expect(first.res.status).toBe(200);
    // RFC 6749 §4.1.2: the replay is refused and the grant the code produced is revoked.
    const replay = await exchange(client.clientId, clientSecret, code);
    expect(replay.res.status).toBe(400);
    expect(replay.res.body.error).toBe('invalid_grant');
    expect(await server.t.repositories.grants.listActiveByUser(user.userKey)).toEqual([]);

    // The owner's row gone (as a host's database may remove it): invalid_grant, nothing written.
    const orphan = await codeFor(client, user.userKey);
    await server.pool.query(`delete from "${server.schema}".users where user_key = $1`, [user.userKey]);
    const gone = await exchange(client.clientId, clientSecret, orphan);
    expect(gone.res.status).toBe(400);
    expect(gone.res.body).toMatchObject({ error: 'invalid_grant', error_description: 'The grant is no longer valid.' });
    expect(gone.counted.some(({ text }) => /^with /.test(text))).toBe(false);

    // Five wrong secrets (the default limit), then the right one: 429, the code not read into a grant.
    const owner = await server.t.seedUser({ email: 'limited@example.com' });
    const kept = await codeFor(client, owner.userKey);
    for (let attempt = 0; attempt < 5; attempt += 1) expect((await exchange(client.clientId, 'wrong', kept)).res.status).toBe(401);
    const limited = await exchange(client.clientId, clientSecret, kept);
    expect(limited.res.status).toBe(429);
    expect(limited.counted.some(({ text }) => /^with /.test(text))).toBe(false);
    expect(await server.t.repositories.codes.findByHash(storedSecretHash(kept))).toMatchObject({ consumedAt: null });
  }, 60_000);
});
