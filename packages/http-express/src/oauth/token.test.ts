import { sha256, type Client } from '@gatehouse/core';
import { s256Challenge } from '@gatehouse/core/testing';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { basicAuth, createTestApp, formEncode, type TestApp } from '../test-support/index.js';

async function setup(options: Parameters<typeof createTestApp>[0] = {}) {
  const t = await createTestApp(options);
  const user = await t.seedUser({ email: 'ada@example.com' });
  const { client, clientSecret } = await t.seedClient({ scopes: ['messaging.v1.send', 'messaging.v1.read'] });
  return { t, user, client, clientSecret };
}

/** A code for `client` issued through the browser flow. */
async function codeFor(t: TestApp, client: Client, extra: Record<string, string | undefined> = {}): Promise<string> {
  const browser = await t.signedInBrowser('ada@example.com');
  const { code } = await browser.authorize(client, extra);
  return code as string;
}

function token(t: TestApp) {
  return request(t.app).post('/oauth/token');
}

function expectOAuthError(res: request.Response, status: number, error: string) {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.body.error).toBe(error);
  expect(typeof res.body.error_description).toBe('string');
  expect(Object.keys(res.body).sort()).toEqual(['error', 'error_description']);
  expect(res.headers['cache-control']).toBe('no-store');
  if (status === 401) expect(res.headers['www-authenticate']).toBe('Basic realm="gatehouse"');
}

describe('POST /oauth/token, grant_type=authorization_code', () => {
  it('exchanges a code: documented fields, JSON, no-store, Pragma no-cache', async () => {
    const { t, user, client, clientSecret } = await setup();
    const code = await codeFor(t, client, { scope: 'messaging.v1.send' });
    const res = await token(t)
      .set('Authorization', basicAuth(client.clientId, clientSecret))
      .set('Accept', 'application/json')
      .type('form')
      .send({ grant_type: 'authorization_code', code, redirect_uri: 'https://client.example/callback' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers.pragma).toBe('no-cache');
    expect(Object.keys(res.body).sort()).toEqual(['access_token', 'expires_in', 'principal', 'refresh_token', 'scope', 'token_type']);
    expect(res.body.token_type).toBe('Bearer');
    expect(res.body.expires_in).toBe(3600);
    expect(res.body.scope).toBe('messaging.v1.send');
    expect(res.body.principal).toBe('ada@example.com');
    expect(res.body.refresh_token).toMatch(/^[0-9A-Za-z]{8}_[A-Za-z0-9]{43,}$/);
    const verified = await t.gatehouse.verifyAccessToken(res.body.access_token);
    expect(verified.userKey).toBe(user.userKey);
    expect(verified.clientId).toBe(client.clientId);
  });

  it('answers JSON whatever Accept says, and without Accept', async () => {
    const { t, client, clientSecret } = await setup();
    const html = await token(t).auth(client.clientId, clientSecret).set('Accept', 'text/html').type('form')
      .send({ grant_type: 'authorization_code', code: await codeFor(t, client), redirect_uri: 'https://client.example/callback' });
    expect(html.status).toBe(200);
    expect(html.headers['content-type']).toMatch(/^application\/json/);
    const none = await token(t).auth(client.clientId, clientSecret).unset('Accept').type('form')
      .send({ grant_type: 'authorization_code', code: await codeFor(t, client), redirect_uri: 'https://client.example/callback' });
    expect(none.status).toBe(200);
    const error = await token(t).auth(client.clientId, clientSecret).set('Accept', 'text/html').type('form').send({ grant_type: 'authorization_code', code: 'x', redirect_uri: 'https://client.example/callback' });
    expectOAuthError(error, 400, 'invalid_grant');
  });

  it('a second use of a code → invalid_grant, and the grant of the first use is revoked', async () => {
    const { t, client, clientSecret } = await setup();
    const code = await codeFor(t, client);
    const body = { grant_type: 'authorization_code', code, redirect_uri: 'https://client.example/callback' };
    const first = await token(t).auth(client.clientId, clientSecret).type('form').send(body).expect(200);
    await expect(t.gatehouse.verifyAccessToken(first.body.access_token)).resolves.toBeDefined();
    const second = await token(t).auth(client.clientId, clientSecret).type('form').send(body);
    expectOAuthError(second, 400, 'invalid_grant');
    await expect(t.gatehouse.verifyAccessToken(first.body.access_token)).rejects.toMatchObject({ code: 'invalid_token' });
    const refresh = await token(t).auth(client.clientId, clientSecret).type('form').send({ grant_type: 'refresh_token', refresh_token: first.body.refresh_token });
    expectOAuthError(refresh, 400, 'invalid_grant');
    expect(t.audit.ofType('code.replayed')).toHaveLength(1);
  });

  it('a late replay (after the code would have expired) is still detected', async () => {
    const { t, client, clientSecret } = await setup();
    const code = await codeFor(t, client);
    const body = { grant_type: 'authorization_code', code, redirect_uri: 'https://client.example/callback' };
    const first = await token(t).auth(client.clientId, clientSecret).type('form').send(body).expect(200);
    t.clock.advance(600);
    expectOAuthError(await token(t).auth(client.clientId, clientSecret).type('form').send(body), 400, 'invalid_grant');
    await expect(t.gatehouse.verifyAccessToken(first.body.access_token)).rejects.toMatchObject({ code: 'invalid_token' });
  });

  it('an expired code, another client’s code, or an unknown code → invalid_grant', async () => {
    const { t, client, clientSecret } = await setup();
    const expired = await codeFor(t, client);
    t.clock.advance(61);
    expectOAuthError(await token(t).auth(client.clientId, clientSecret).type('form')
      .send({ grant_type: 'authorization_code', code: expired, redirect_uri: 'https://client.example/callback' }), 400, 'invalid_grant');
    const { client: other, clientSecret: otherSecret } = await t.seedClient();
    const code = await codeFor(t, client);
    expectOAuthError(await token(t).auth(other.clientId, otherSecret).type('form')
      .send({ grant_type: 'authorization_code', code, redirect_uri: 'https://client.example/callback' }), 400, 'invalid_grant');
    expectOAuthError(await token(t).auth(client.clientId, clientSecret).type('form')
      .send({ grant_type: 'authorization_code', code: 'nope', redirect_uri: 'https://client.example/callback' }), 400, 'invalid_grant');
  });

  it('redirect_uri is required and must equal the authorize one', async () => {
    const { t, client, clientSecret } = await setup();
    const code = await codeFor(t, client);
    expectOAuthError(await token(t).auth(client.clientId, clientSecret).type('form').send({ grant_type: 'authorization_code', code }), 400, 'invalid_request');
    expectOAuthError(await token(t).auth(client.clientId, clientSecret).type('form')
      .send({ grant_type: 'authorization_code', code, redirect_uri: 'https://client.example/other' }), 400, 'invalid_grant');
  });

  it('redirect_uri may be left out when the authorization request left it out, and must then equal the one used (RFC 6749 §4.1.3, decision 0182)', async () => {
    const { t, client, clientSecret } = await setup();
    const omitted = await codeFor(t, client, { redirect_uri: undefined });
    const res = await token(t).auth(client.clientId, clientSecret).type('form').send({ grant_type: 'authorization_code', code: omitted });
    expect(res.status).toBe(200);
    expect(res.body.token_type).toBe('Bearer');
    const wrong = await codeFor(t, client, { redirect_uri: undefined });
    const refused = await token(t).auth(client.clientId, clientSecret).type('form').send({ grant_type: 'authorization_code', code: wrong, redirect_uri: 'https://client.example/other' });
    expectOAuthError(refused, 400, 'invalid_grant');
    await token(t).auth(client.clientId, clientSecret).type('form').send({ grant_type: 'authorization_code', code: wrong, redirect_uri: 'https://client.example/callback' }).expect(200);
  });

  it('code is required', async () => {
    const { t, client, clientSecret } = await setup();
    const res = await token(t).auth(client.clientId, clientSecret).type('form').send({ grant_type: 'authorization_code', redirect_uri: 'https://client.example/callback' });
    expectOAuthError(res, 400, 'invalid_request');
    expect(res.body.error_description).toBe('code is required.');
  });

  describe('PKCE (RFC 7636)', () => {
    const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';

    it('the right verifier exchanges', async () => {
      const { t, client, clientSecret } = await setup();
      const code = await codeFor(t, client, { code_challenge: s256Challenge(verifier), code_challenge_method: 'S256' });
      await token(t).auth(client.clientId, clientSecret).type('form')
        .send({ grant_type: 'authorization_code', code, redirect_uri: 'https://client.example/callback', code_verifier: verifier }).expect(200);
    });

    it('a wrong verifier → invalid_grant', async () => {
      const { t, client, clientSecret } = await setup();
      const code = await codeFor(t, client, { code_challenge: s256Challenge(verifier), code_challenge_method: 'S256' });
      expectOAuthError(await token(t).auth(client.clientId, clientSecret).type('form')
        .send({ grant_type: 'authorization_code', code, redirect_uri: 'https://client.example/callback', code_verifier: `${verifier.slice(0, -1)}Y` }), 400, 'invalid_grant');
    });

    it('a missing verifier when a challenge was sent → invalid_grant', async () => {
      const { t, client, clientSecret } = await setup();
      const code = await codeFor(t, client, { code_challenge: s256Challenge(verifier), code_challenge_method: 'S256' });
      expectOAuthError(await token(t).auth(client.clientId, clientSecret).type('form')
        .send({ grant_type: 'authorization_code', code, redirect_uri: 'https://client.example/callback' }), 400, 'invalid_grant');
    });

    it('a verifier for a code issued without a challenge (downgrade) → invalid_grant', async () => {
      const { t, client, clientSecret } = await setup();
      const code = await codeFor(t, client);
      expectOAuthError(await token(t).auth(client.clientId, clientSecret).type('form')
        .send({ grant_type: 'authorization_code', code, redirect_uri: 'https://client.example/callback', code_verifier: verifier }), 400, 'invalid_grant');
    });
  });
});

describe('POST /oauth/token, grant_type=refresh_token', () => {
  it('returns the documented fields and keeps the refresh token valid (no rotation by default)', async () => {
    const { t, client, clientSecret } = await setup();
    const { body: first } = await t.tokensOverHttp({ client, clientSecret, email: 'ada@example.com' });
    t.clock.advance(10);
    const res = await token(t).auth(client.clientId, clientSecret).type('form').send({ grant_type: 'refresh_token', refresh_token: first.refresh_token as string });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers.pragma).toBe('no-cache');
    expect(Object.keys(res.body).sort()).toEqual(['access_token', 'expires_in', 'principal', 'refresh_token', 'scope', 'token_type']);
    expect(res.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'messaging.v1.send messaging.v1.read', principal: 'ada@example.com', refresh_token: first.refresh_token });
    expect(res.body.access_token).not.toBe(first.access_token);
    await expect(t.gatehouse.verifyAccessToken(res.body.access_token)).resolves.toBeDefined();
    await token(t).auth(client.clientId, clientSecret).type('form').send({ grant_type: 'refresh_token', refresh_token: first.refresh_token as string }).expect(200);
  });

  it('a narrower scope is granted; a wider one → invalid_scope', async () => {
    const { t, client, clientSecret } = await setup();
    const { body: first } = await t.tokensOverHttp({ client, clientSecret, email: 'ada@example.com', extra: { scope: 'messaging.v1.send' } });
    const narrower = await token(t).auth(client.clientId, clientSecret).type('form')
      .send({ grant_type: 'refresh_token', refresh_token: first.refresh_token as string, scope: 'messaging.v1.send' }).expect(200);
    expect(narrower.body.scope).toBe('messaging.v1.send');
    expectOAuthError(await token(t).auth(client.clientId, clientSecret).type('form')
      .send({ grant_type: 'refresh_token', refresh_token: first.refresh_token as string, scope: 'messaging.v1.read' }), 400, 'invalid_scope');
  });

  it('with rotation on, each refresh returns a new refresh token', async () => {
    const { t, client, clientSecret } = await setup({ settings: { refreshToken: { rotate: true } } });
    const { body: first } = await t.tokensOverHttp({ client, clientSecret, email: 'ada@example.com' });
    const res = await token(t).auth(client.clientId, clientSecret).type('form').send({ grant_type: 'refresh_token', refresh_token: first.refresh_token as string }).expect(200);
    expect(res.body.refresh_token).not.toBe(first.refresh_token);
  });

  it('a revoked grant refuses refresh', async () => {
    const { t, client, clientSecret } = await setup();
    const { body } = await t.tokensOverHttp({ client, clientSecret, email: 'ada@example.com' });
    await request(t.app).post('/oauth/revoke').auth(client.clientId, clientSecret).type('form').send({ token: body.refresh_token as string }).expect(200);
    expectOAuthError(await token(t).auth(client.clientId, clientSecret).type('form').send({ grant_type: 'refresh_token', refresh_token: body.refresh_token as string }), 400, 'invalid_grant');
  });

  it('a logged-out grant refuses refresh, and its access token stops working', async () => {
    const { t, client, clientSecret } = await setup();
    const { body, browser } = await t.tokensOverHttp({ client, clientSecret, email: 'ada@example.com' });
    await browser.get('/oauth/logout').expect(200);
    await browser.postForm('/oauth/logout', {}).expect(200);
    expectOAuthError(await token(t).auth(client.clientId, clientSecret).type('form').send({ grant_type: 'refresh_token', refresh_token: body.refresh_token as string }), 400, 'invalid_grant');
    await expect(t.gatehouse.verifyAccessToken(body.access_token as string)).rejects.toMatchObject({ code: 'invalid_token' });
  });

  it('another client’s refresh token, an unknown one, or none', async () => {
    const { t, client, clientSecret } = await setup();
    const { body } = await t.tokensOverHttp({ client, clientSecret, email: 'ada@example.com' });
    const { client: other, clientSecret: otherSecret } = await t.seedClient();
    expectOAuthError(await token(t).auth(other.clientId, otherSecret).type('form').send({ grant_type: 'refresh_token', refresh_token: body.refresh_token as string }), 400, 'invalid_grant');
    expectOAuthError(await token(t).auth(client.clientId, clientSecret).type('form').send({ grant_type: 'refresh_token', refresh_token: 'unknown' }), 400, 'invalid_grant');
    const missing = await token(t).auth(client.clientId, clientSecret).type('form').send({ grant_type: 'refresh_token' });
    expectOAuthError(missing, 400, 'invalid_request');
    expect(missing.body.error_description).toBe('refresh_token is required.');
  });
});

describe('POST /oauth/token: client authentication comes first', () => {
  it('no credentials → 401 invalid_client with WWW-Authenticate: Basic', async () => {
    const { t } = await setup();
    expectOAuthError(await token(t).type('form').send({ grant_type: 'authorization_code', code: 'x', redirect_uri: 'https://client.example/callback' }), 401, 'invalid_client');
  });

  it('a wrong secret or unknown client → 401 invalid_client, even when the grant parameters are also wrong', async () => {
    const { t, client } = await setup();
    expectOAuthError(await token(t).auth(client.clientId, 'wrong').type('form').send({ grant_type: 'authorization_code', code: 'x', redirect_uri: 'https://client.example/callback' }), 401, 'invalid_client');
    expectOAuthError(await token(t).auth('unknown', 'wrong').type('form').send({ grant_type: 'password' }), 401, 'invalid_client');
    expectOAuthError(await token(t).auth(client.clientId, 'wrong').type('form').send({}), 401, 'invalid_client');
    expect(t.audit.ofType('client.authentication_failed')).toHaveLength(3);
  });

  it('client_secret_post works', async () => {
    const { t, client, clientSecret } = await setup();
    const code = await codeFor(t, client);
    await token(t).type('form')
      .send({ grant_type: 'authorization_code', code, redirect_uri: 'https://client.example/callback', client_id: client.clientId, client_secret: clientSecret }).expect(200);
  });

  it('client_id in the body without a secret is not authentication', async () => {
    const { t, client } = await setup();
    expectOAuthError(await token(t).type('form').send({ grant_type: 'refresh_token', refresh_token: 'x', client_id: client.clientId }), 401, 'invalid_client');
  });

  it('Basic and client_secret_post at once → invalid_request', async () => {
    const { t, client, clientSecret } = await setup();
    expectOAuthError(await token(t).auth(client.clientId, clientSecret).type('form')
      .send({ grant_type: 'refresh_token', refresh_token: 'x', client_id: client.clientId, client_secret: clientSecret }), 400, 'invalid_request');
  });

  it('Basic with a different client_id in the body → invalid_request; the same one is fine', async () => {
    const { t, client, clientSecret } = await setup();
    expectOAuthError(await token(t).auth(client.clientId, clientSecret).type('form').send({ grant_type: 'refresh_token', refresh_token: 'x', client_id: 'someone-else' }), 400, 'invalid_request');
    expectOAuthError(await token(t).auth(client.clientId, clientSecret).type('form').send({ grant_type: 'refresh_token', refresh_token: 'x', client_id: client.clientId }), 400, 'invalid_grant');
  });

  it('malformed Authorization headers are 401 invalid_client, never a 500', async () => {
    const { t, client } = await setup();
    const headers = [
      'Basic',
      'Basic !!!notbase64!!!',
      `Basic ${Buffer.from('no-colon-here').toString('base64')}`,
      `Basic ${Buffer.from(`${client.clientId}:`).toString('base64')}`,
      `Basic ${Buffer.from(':secret').toString('base64')}`,
      `Basic ${Buffer.from('%E0%A4%A:secret').toString('base64')}`,
      `Basic ${Buffer.from([0xff, 0xfe, 0x3a, 0x41]).toString('base64')}`,
      `Basic ${'QUFB'.repeat(2000)}`,
      'Bearer abc.def.ghi',
      'Digest username="x"',
      'Basic a b c',
    ];
    for (const header of headers) {
      const res = await token(t).set('Authorization', header).type('form').send({ grant_type: 'refresh_token', refresh_token: 'x' });
      expect(res.status, header.slice(0, 40)).toBe(401);
      expect(res.body.error, header.slice(0, 40)).toBe('invalid_client');
      expect(res.headers['www-authenticate']).toBe('Basic realm="gatehouse"');
    }
  });

  it('Basic credentials are form-urlencoded before base64 (RFC 6749 §2.3.1): special characters in the secret', async () => {
    const { t, user } = await setup();
    const secret = 'p%40ss:w0rd+ü &=/?%';
    const client: Client = {
      clientId: 'special:client id',
      clientSecretHash: sha256(secret),
      name: 'Special',
      redirectUris: ['https://client.example/callback'],
      scopes: ['messaging.v1.read'],
      grantTypes: ['authorization_code', 'refresh_token'],
      pkceRequired: false,
      ownerUserKey: null,
      createdAt: t.clock.now(),
    };
    await t.repositories.clients.create(client);
    const { refresh_token } = await t.obtainTokens({ client, user });
    const encoded = basicAuth(client.clientId, secret);
    expect(Buffer.from(encoded.slice(6), 'base64').toString()).toBe(`${formEncode(client.clientId)}:${formEncode(secret)}`);
    const ok = await token(t).set('Authorization', encoded).type('form').send({ grant_type: 'refresh_token', refresh_token });
    expect(ok.status).toBe(200);
    // Sent raw (not form-urlencoded first), the same secret does not match: '%40' decodes to '@'.
    const raw = `Basic ${Buffer.from(`${client.clientId}:${secret}`).toString('base64')}`;
    const refused = await token(t).set('Authorization', raw).type('form').send({ grant_type: 'refresh_token', refresh_token });
    expect(refused.status).toBe(401);
  });

  it('generated credentials are the same raw and form-urlencoded', async () => {
    const { t, client, clientSecret } = await setup();
    expect(formEncode(client.clientId)).toBe(client.clientId);
    expect(formEncode(clientSecret)).toBe(clientSecret);
    const raw = `Basic ${Buffer.from(`${client.clientId}:${clientSecret}`).toString('base64')}`;
    const res = await token(t).set('Authorization', raw).type('form').send({ grant_type: 'refresh_token', refresh_token: 'x' });
    expectOAuthError(res, 400, 'invalid_grant');
  });
});

describe('POST /oauth/token: grant types and request shape', () => {
  it('unsupported grant types → unsupported_grant_type; none → invalid_request', async () => {
    const { t, client, clientSecret } = await setup();
    for (const grantType of ['password', 'implicit', 'urn:ietf:params:oauth:grant-type:device_code']) {
      expectOAuthError(await token(t).auth(client.clientId, clientSecret).type('form').send({ grant_type: grantType }), 400, 'unsupported_grant_type');
    }
    // Supported, but not registered for this client (docs/decisions/0028-grant-types-per-client.md).
    expectOAuthError(await token(t).auth(client.clientId, clientSecret).type('form').send({ grant_type: 'client_credentials' }), 400, 'unauthorized_client');
    expectOAuthError(await token(t).auth(client.clientId, clientSecret).type('form').send({ code: 'x' }), 400, 'invalid_request');
  });

  it('duplicated parameters → invalid_request', async () => {
    const { t, client, clientSecret } = await setup();
    const code = await codeFor(t, client);
    const res = await token(t).auth(client.clientId, clientSecret).type('form')
      .send(`grant_type=authorization_code&code=${code}&code=${code}&redirect_uri=https%3A%2F%2Fclient.example%2Fcallback`);
    expectOAuthError(res, 400, 'invalid_request');
    expect(res.body.error_description).toContain('code');
    const grant = await token(t).auth(client.clientId, clientSecret).type('form').send('grant_type=refresh_token&grant_type=refresh_token&refresh_token=x');
    expectOAuthError(grant, 400, 'invalid_request');
    // The code was not consumed by the refused request.
    await token(t).auth(client.clientId, clientSecret).type('form')
      .send({ grant_type: 'authorization_code', code, redirect_uri: 'https://client.example/callback' }).expect(200);
  });

  it('a body that is not form-urlencoded → invalid_request', async () => {
    const { t, client, clientSecret } = await setup();
    const json = await token(t).auth(client.clientId, clientSecret).send({ grant_type: 'refresh_token', refresh_token: 'x' });
    expectOAuthError(json, 400, 'invalid_request');
    const none = await token(t).auth(client.clientId, clientSecret);
    expectOAuthError(none, 400, 'invalid_request');
    const latin1 = await token(t).auth(client.clientId, clientSecret).set('Content-Type', 'application/x-www-form-urlencoded; charset=iso-8859-1').send('grant_type=refresh_token');
    expectOAuthError(latin1, 400, 'invalid_request');
  });

  it('a body over 16 kB → 413 invalid_request', async () => {
    const { t, client, clientSecret } = await setup();
    const res = await token(t).auth(client.clientId, clientSecret).type('form').send(`grant_type=refresh_token&refresh_token=${'a'.repeat(17 * 1024)}`);
    expectOAuthError(res, 413, 'invalid_request');
  });

  it('an over-long parameter → invalid_request; an over-long credential is the wrong one → invalid_grant', async () => {
    const { t, client, clientSecret } = await setup();
    const scope = await token(t).auth(client.clientId, clientSecret).type('form').send({ grant_type: 'refresh_token', refresh_token: 'a'.repeat(20), scope: 'a'.repeat(1100) });
    expectOAuthError(scope, 400, 'invalid_request');
    const res = await token(t).auth(client.clientId, clientSecret).type('form').send({ grant_type: 'refresh_token', refresh_token: 'a'.repeat(600) });
    expectOAuthError(res, 400, 'invalid_grant');
  });

  it('invalid UTF-8 in the body → invalid_request', async () => {
    const { t, client, clientSecret } = await setup();
    const res = await token(t).auth(client.clientId, clientSecret).type('form').send(Buffer.from([0x63, 0x6f, 0x64, 0x65, 0x3d, 0xff, 0xfe]));
    expectOAuthError(res, 400, 'invalid_request');
  });

  it('GET and other methods → 405 with Allow: POST', async () => {
    const { t } = await setup();
    const res = await request(t.app).get('/oauth/token');
    expectOAuthError(res, 405, 'invalid_request');
    expect(res.headers.allow).toBe('POST');
  });
});

describe('client authentication failures are rate limited; invalid_grant never is', () => {
  it('after the limit: 429 with Retry-After in the JSON error shape, even with the right secret; later it works again', async () => {
    const { t, client, clientSecret } = await setup({ rateLimit: { maxFailures: 3, windowSeconds: 120 } });
    for (let attempt = 0; attempt < 3; attempt += 1) {
      expectOAuthError(await token(t).auth(client.clientId, 'wrong').type('form').send({ grant_type: 'refresh_token', refresh_token: 'x' }), 401, 'invalid_client');
    }
    const limited = await token(t).auth(client.clientId, clientSecret).type('form').send({ grant_type: 'refresh_token', refresh_token: 'x' });
    expectOAuthError(limited, 429, 'temporarily_unavailable');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(120);
    // Revocation and introspection share the count.
    expect((await request(t.app).post('/oauth/revoke').auth(client.clientId, clientSecret).type('form').send({ token: 'x' })).status).toBe(429);
    expect((await request(t.app).post('/oauth/introspect').auth(client.clientId, clientSecret).type('form').send({ token: 'x' })).status).toBe(429);
    t.clock.advance(121);
    expectOAuthError(await token(t).auth(client.clientId, clientSecret).type('form').send({ grant_type: 'refresh_token', refresh_token: 'x' }), 400, 'invalid_grant');
  });

  it('failures at revoke and introspect count too', async () => {
    const { t, client, clientSecret } = await setup({ rateLimit: { maxFailures: 2, windowSeconds: 60 } });
    await request(t.app).post('/oauth/revoke').auth(client.clientId, 'wrong').type('form').send({ token: 'x' }).expect(401);
    await request(t.app).post('/oauth/introspect').auth(client.clientId, 'wrong').type('form').send({ token: 'x' }).expect(401);
    expect((await token(t).auth(client.clientId, clientSecret).type('form').send({ grant_type: 'refresh_token', refresh_token: 'x' })).status).toBe(429);
  });

  it('invalid_grant, invalid_request and unsupported_grant_type never turn into 429', async () => {
    const { t, client, clientSecret } = await setup({ rateLimit: { maxFailures: 2, windowSeconds: 60, maxFailuresPerIp: 2 } });
    for (let attempt = 0; attempt < 6; attempt += 1) {
      expectOAuthError(await token(t).auth(client.clientId, clientSecret).type('form').send({ grant_type: 'authorization_code', code: `bad${attempt}`, redirect_uri: 'https://client.example/callback' }), 400, 'invalid_grant');
      expectOAuthError(await token(t).auth(client.clientId, clientSecret).type('form').send({ grant_type: 'refresh_token' }), 400, 'invalid_request');
      expectOAuthError(await token(t).auth(client.clientId, clientSecret).type('form').send({ grant_type: 'password' }), 400, 'unsupported_grant_type');
    }
  });

  it('one client’s failures from one address do not lock the client out from another address', async () => {
    const { t, client, clientSecret } = await setup({ rateLimit: { maxFailures: 2, windowSeconds: 60, maxFailuresPerIp: 100 }, trustProxy: 'loopback' });
    for (let attempt = 0; attempt < 2; attempt += 1) {
      await token(t).set('X-Forwarded-For', '198.51.100.7').auth(client.clientId, 'wrong').type('form').send({ grant_type: 'refresh_token', refresh_token: 'x' }).expect(401);
    }
    expect((await token(t).set('X-Forwarded-For', '198.51.100.7').auth(client.clientId, clientSecret).type('form').send({ grant_type: 'refresh_token', refresh_token: 'x' })).status).toBe(429);
    expectOAuthError(await token(t).set('X-Forwarded-For', '192.0.2.1').auth(client.clientId, clientSecret).type('form').send({ grant_type: 'refresh_token', refresh_token: 'x' }), 400, 'invalid_grant');
  });
});
