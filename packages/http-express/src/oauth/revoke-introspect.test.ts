import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createTestApp } from '../test-support/index.js';

async function setup() {
  const t = await createTestApp();
  const user = await t.seedUser({ email: 'ada@example.com' });
  const { client, clientSecret } = await t.seedClient({ scopes: ['messaging.v1.read'] });
  const tokens = await t.obtainTokens({ client, user });
  return { t, user, client, clientSecret, tokens };
}

describe('POST /oauth/revoke (RFC 7009)', () => {
  it('revoking a refresh token: 200 with an empty body; the grant’s refresh and access tokens stop working', async () => {
    const { t, client, clientSecret, tokens } = await setup();
    const res = await request(t.app).post('/oauth/revoke').auth(client.clientId, clientSecret).type('form').send({ token: tokens.refresh_token, token_type_hint: 'refresh_token' });
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    expect(res.headers['cache-control']).toBe('no-store');
    await expect(t.gatehouse.verifyAccessToken(tokens.access_token)).rejects.toMatchObject({ code: 'invalid_token' });
    const refresh = await request(t.app).post('/oauth/token').auth(client.clientId, clientSecret).type('form').send({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
    expect(refresh.body.error).toBe('invalid_grant');
    expect(t.audit.ofType('grant.revoked')).toHaveLength(1);
  });

  it('revoking an access token revokes its grant (client_secret_post, wrong hint ignored)', async () => {
    const { t, client, clientSecret, tokens } = await setup();
    await request(t.app).post('/oauth/revoke').type('form')
      .send({ token: tokens.access_token, token_type_hint: 'refresh_token', client_id: client.clientId, client_secret: clientSecret }).expect(200);
    await expect(t.gatehouse.verifyAccessToken(tokens.access_token)).rejects.toMatchObject({ code: 'invalid_token' });
  });

  it('an unknown token, or another client’s: 200 empty, and the other client’s grant lives on', async () => {
    const { t, tokens } = await setup();
    const { client: other, clientSecret: otherSecret } = await t.seedClient();
    const unknown = await request(t.app).post('/oauth/revoke').auth(other.clientId, otherSecret).type('form').send({ token: 'no-such-token' });
    expect(unknown.status).toBe(200);
    expect(unknown.text).toBe('');
    await request(t.app).post('/oauth/revoke').auth(other.clientId, otherSecret).type('form').send({ token: tokens.refresh_token }).expect(200);
    await expect(t.gatehouse.verifyAccessToken(tokens.access_token)).resolves.toBeDefined();
  });

  it('needs client authentication and a token parameter', async () => {
    const { t, client, clientSecret, tokens } = await setup();
    const anonymous = await request(t.app).post('/oauth/revoke').type('form').send({ token: tokens.refresh_token });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error).toBe('invalid_client');
    expect(anonymous.headers['www-authenticate']).toBe('Basic realm="gatehouse"');
    await expect(t.gatehouse.verifyAccessToken(tokens.access_token)).resolves.toBeDefined();
    const missing = await request(t.app).post('/oauth/revoke').auth(client.clientId, clientSecret).type('form').send({});
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: 'invalid_request', error_description: 'token is required.' });
    const twice = await request(t.app).post('/oauth/revoke').auth(client.clientId, clientSecret).type('form').send('token=a&token=b');
    expect(twice.body.error).toBe('invalid_request');
  });
});

describe('POST /oauth/introspect (RFC 7662)', () => {
  it('an active access token of the client', async () => {
    const { t, user, client, clientSecret, tokens } = await setup();
    const res = await request(t.app).post('/oauth/introspect').auth(client.clientId, clientSecret).type('form').send({ token: tokens.access_token });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toMatchObject({
      active: true,
      scope: 'messaging.v1.read',
      client_id: client.clientId,
      username: 'ada@example.com',
      token_type: 'Bearer',
      sub: user.userKey,
      iss: 'http://localhost:3000',
    });
    expect(typeof res.body.exp).toBe('number');
  });

  it('an active refresh token of the client', async () => {
    const { t, client, clientSecret, tokens } = await setup();
    const res = await request(t.app).post('/oauth/introspect').auth(client.clientId, clientSecret).type('form').send({ token: tokens.refresh_token, token_type_hint: 'refresh_token' });
    expect(res.body).toMatchObject({ active: true, client_id: client.clientId });
    // RFC 7662 §2.2: token_type is an access token's type (RFC 6749 §7.1); a refresh token has none.
    expect(res.body).not.toHaveProperty('token_type');
  });

  it('another client’s token, an unknown, an expired or a revoked token: { active: false } only', async () => {
    const { t, client, clientSecret, tokens } = await setup();
    const { client: other, clientSecret: otherSecret } = await t.seedClient();
    const foreign = await request(t.app).post('/oauth/introspect').auth(other.clientId, otherSecret).type('form').send({ token: tokens.access_token });
    expect(foreign.body).toEqual({ active: false });
    const unknown = await request(t.app).post('/oauth/introspect').auth(client.clientId, clientSecret).type('form').send({ token: 'garbage.not.jwt' });
    expect(unknown.body).toEqual({ active: false });
    t.clock.advance(3601);
    const expired = await request(t.app).post('/oauth/introspect').auth(client.clientId, clientSecret).type('form').send({ token: tokens.access_token });
    expect(expired.body).toEqual({ active: false });
    await request(t.app).post('/oauth/revoke').auth(client.clientId, clientSecret).type('form').send({ token: tokens.refresh_token }).expect(200);
    const revoked = await request(t.app).post('/oauth/introspect').auth(client.clientId, clientSecret).type('form').send({ token: tokens.refresh_token });
    expect(revoked.body).toEqual({ active: false });
  });

  it('needs client authentication and a token', async () => {
    const { t, client, clientSecret, tokens } = await setup();
    const anonymous = await request(t.app).post('/oauth/introspect').type('form').send({ token: tokens.access_token });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error).toBe('invalid_client');
    const missing = await request(t.app).post('/oauth/introspect').auth(client.clientId, clientSecret).type('form').send({ token_type_hint: 'access_token' });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('invalid_request');
  });
});

describe('a credential too long to be one Gatehouse issued is the wrong credential, not a malformed request', () => {
  it('revoke: 200 (RFC 7009 §2.2); introspect: inactive (RFC 7662 §2.2); token endpoint: invalid_grant for a code, a verifier or a refresh token', async () => {
    const { t, client, clientSecret } = await setup();
    const long = 'x'.repeat(5000);
    const revoked = await request(t.app).post('/oauth/revoke').auth(client.clientId, clientSecret).type('form').send({ token: long });
    expect(revoked.status).toBe(200);
    const introspected = await request(t.app).post('/oauth/introspect').auth(client.clientId, clientSecret).type('form').send({ token: long });
    expect(introspected.status).toBe(200);
    expect(introspected.body).toEqual({ active: false });
    const refresh = await request(t.app).post('/oauth/token').auth(client.clientId, clientSecret).type('form').send({ grant_type: 'refresh_token', refresh_token: long });
    expect([refresh.status, refresh.body.error]).toEqual([400, 'invalid_grant']);
    const code = await request(t.app).post('/oauth/token').auth(client.clientId, clientSecret).type('form').send({ grant_type: 'authorization_code', code: long, redirect_uri: client.redirectUris[0], code_verifier: 'v'.repeat(129) });
    expect([code.status, code.body.error]).toEqual([400, 'invalid_grant']);
  });
});
