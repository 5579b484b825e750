import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { POSTGRES_URL, warnIfSkipped } from './support/postgres.js';
import { roundTrips, useCountedGatehouse } from './support/statement-log.js';

warnIfSkipped('the round trips of a refresh on PostgreSQL');

// Issue 32 point 3 (docs/decisions/0168-refresh-in-fewer-round-trips.md): with Gatehouse's own
// users, a refresh on PostgreSQL is two round trips — the failure counts and the refresh token
// (with its grant and its owner's e-mail) side by side, then the touch of an idle lifetime, while
// the access token is signed.
describe.skipIf(!POSTGRES_URL)('a refresh on PostgreSQL', () => {
  const server = useCountedGatehouse({ refreshToken: { idleTtlSeconds: 86_400 } });

  /** POST /oauth/token with Basic client authentication, counting only its statements. */
  async function refresh(clientId: string, secret: string, refreshToken: string) {
    server.reset();
    const res = await request(server.app).post('/oauth/token').auth(clientId, secret).type('form').send({ grant_type: 'refresh_token', refresh_token: refreshToken });
    return { res, counted: [...server.statements] };
  }

  it('answers after two round trips: the failure counts beside the token with its grant and owner, then the touch', async () => {
    const user = await server.t.seedUser({ email: 'ada@example.com' });
    const { client, clientSecret } = await server.t.seedClient({ scopes: ['messaging.v1.send'] });
    const tokens = await server.t.obtainTokens({ client, user });
    // A first refresh warms the pool and the client cache.
    expect((await refresh(client.clientId, clientSecret, tokens.refresh_token as string)).res.status).toBe(200);

    const { res, counted } = await refresh(client.clientId, clientSecret, tokens.refresh_token as string);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ token_type: 'Bearer', principal: 'ada@example.com' });
    const [first, second, touch] = counted.map(({ text }) => text);
    expect([first, second].sort()).toEqual([
      expect.stringMatching(/from "\w+"\."refresh_tokens" inner join "\w+"\."grants" .* left join "\w+"\."users"/),
      expect.stringMatching(/from "\w+"\."gatehouse_failed_attempts"/),
    ]);
    expect(touch).toMatch(/^update "\w+"\."refresh_tokens" set "last_used_at"/);
    expect(counted).toHaveLength(3);
    expect(roundTrips(counted)).toBe(2);
  }, 60_000);

  it('keeps the rules: a revoked grant and a deleted owner are invalid_grant, and nothing is written for them', async () => {
    const user = await server.t.seedUser({ email: 'grace@example.com' });
    const { client, clientSecret } = await server.t.seedClient({ scopes: ['messaging.v1.send'] });
    const revoked = await server.t.obtainTokens({ client, user });
    await server.t.gatehouse.revokeToken({ client, token: revoked.refresh_token as string, tokenTypeHint: 'refresh_token' });
    const refused = await refresh(client.clientId, clientSecret, revoked.refresh_token as string);
    expect(refused.res.status).toBe(400);
    expect(refused.res.body.error).toBe('invalid_grant');
    expect(refused.counted.some(({ text }) => /^update /.test(text))).toBe(false);

    const orphan = await server.t.obtainTokens({ client, user });
    await server.pool.query(`delete from "${server.schema}".users where user_key = $1`, [user.userKey]);
    const gone = await refresh(client.clientId, clientSecret, orphan.refresh_token as string);
    expect(gone.res.status).toBe(400);
    expect(gone.res.body).toMatchObject({ error: 'invalid_grant', error_description: 'The grant is no longer valid.' });
    expect(gone.counted.some(({ text }) => /^update /.test(text))).toBe(false);
  }, 60_000);
});

// Decision 0175: a rotation that rotates is one statement (the grant locked, the token rotated, the
// next one saved) instead of a transaction of six; public clients, MCP's included, always rotate.
describe.skipIf(!POSTGRES_URL)('a rotating refresh on PostgreSQL', () => {
  const server = useCountedGatehouse({ refreshToken: { rotate: true } });

  it('answers after two round trips: the reads side by side, then the rotation in one statement', async () => {
    const user = await server.t.seedUser({ email: 'ada@example.com' });
    const { client, clientSecret } = await server.t.seedClient({ scopes: ['messaging.v1.send'] });
    const tokens = await server.t.obtainTokens({ client, user });
    const form = (refreshToken: string) => ({ grant_type: 'refresh_token', refresh_token: refreshToken });
    // A first refresh warms the pool and the client cache.
    const warm = await request(server.app).post('/oauth/token').auth(client.clientId, clientSecret).type('form').send(form(tokens.refresh_token as string));
    expect(warm.status).toBe(200);

    server.reset();
    const res = await request(server.app).post('/oauth/token').auth(client.clientId, clientSecret).type('form').send(form(warm.body.refresh_token as string));
    const counted = [...server.statements];
    expect(res.status).toBe(200);
    expect(res.body.refresh_token).toEqual(expect.any(String));
    expect(res.body.refresh_token).not.toBe(warm.body.refresh_token);
    expect(counted.map(({ text }) => text)[2]).toMatch(/^with "locked_grant" as \(select .* for update\), "rotated" as \(update "\w+"\."refresh_tokens" set "rotated_at"/);
    expect(counted).toHaveLength(3);
    expect(roundTrips(counted)).toBe(2);
  }, 60_000);
});
