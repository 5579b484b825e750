import type { Client } from '@gatehouse/core';
import { s256Challenge } from '@gatehouse/core/testing';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { basicAuth, createTestApp, type TestApp } from '../test-support/index.js';

const VERIFIER = 'verifier-of-a-native-app-with-at-least-43-characters-xyz';
const PKCE = { code_challenge: s256Challenge(VERIFIER), code_challenge_method: 'S256' };

async function setup(options: Parameters<typeof createTestApp>[0] = {}) {
  const t = await createTestApp(options);
  await t.seedUser({ email: 'ada@example.com' });
  const { client } = await t.gatehouse.registerClient({
    name: 'Native app',
    public: true,
    redirectUris: ['https://spa.example/cb', 'http://127.0.0.1/cb'],
    scopes: ['messaging.v1.read', 'messaging.v1.send'],
  });
  return { t, client };
}

async function codeFor(t: TestApp, client: Client, extra: Record<string, string | undefined> = {}): Promise<string> {
  const browser = await t.signedInBrowser('ada@example.com');
  const { code } = await browser.authorize(client, { redirect_uri: 'https://spa.example/cb', ...PKCE, ...extra });
  return code as string;
}

function post(t: TestApp, path: string) {
  return request(t.app).post(path).type('form');
}

function expectInvalidClient(res: request.Response) {
  expect(res.status).toBe(401);
  expect(res.body.error).toBe('invalid_client');
  expect(res.headers['www-authenticate']).toBe('Basic realm="gatehouse"');
}

describe('a public client at the token endpoint (RFC 6749 §2.1, auth method none)', () => {
  it('exchanges a code with client_id in the body and its PKCE verifier, and gets a refresh token that rotates', async () => {
    const { t, client } = await setup();
    const code = await codeFor(t, client);
    const res = await post(t, '/oauth/token').send({ grant_type: 'authorization_code', client_id: client.clientId, code, redirect_uri: 'https://spa.example/cb', code_verifier: VERIFIER });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ token_type: 'Bearer', scope: 'messaging.v1.read messaging.v1.send', principal: 'ada@example.com' });
    const refreshed = await post(t, '/oauth/token').send({ grant_type: 'refresh_token', client_id: client.clientId, refresh_token: res.body.refresh_token });
    expect(refreshed.status, refreshed.text).toBe(200);
    // RFC 9700 §4.14.2: rotated, although the deployment's rotation is off.
    expect(refreshed.body.refresh_token).not.toBe(res.body.refresh_token);
    t.clock.advance(60);
    const reused = await post(t, '/oauth/token').send({ grant_type: 'refresh_token', client_id: client.clientId, refresh_token: res.body.refresh_token });
    expect(reused.status).toBe(400);
    expect(reused.body.error).toBe('invalid_grant');
    const afterReuse = await post(t, '/oauth/token').send({ grant_type: 'refresh_token', client_id: client.clientId, refresh_token: refreshed.body.refresh_token });
    expect(afterReuse.body.error).toBe('invalid_grant');
  });

  it('is refused with Basic credentials or a secret in the body (invalid_client)', async () => {
    const { t, client } = await setup();
    const code = await codeFor(t, client);
    const form = { grant_type: 'authorization_code', code, redirect_uri: 'https://spa.example/cb', code_verifier: VERIFIER };
    expectInvalidClient(await post(t, '/oauth/token').set('Authorization', basicAuth(client.clientId, 'made-up-secret')).send(form));
    expectInvalidClient(await post(t, '/oauth/token').send({ ...form, client_id: client.clientId, client_secret: 'made-up-secret' }));
    // The code is still good: nothing was exchanged by the refused requests.
    const res = await post(t, '/oauth/token').send({ ...form, client_id: client.clientId });
    expect(res.status, res.text).toBe(200);
  });

  it('a confidential client naming itself by client_id alone is invalid_client', async () => {
    const { t } = await setup();
    const { client } = await t.seedClient();
    expectInvalidClient(await post(t, '/oauth/token').send({ grant_type: 'refresh_token', client_id: client.clientId, refresh_token: 'x' }));
    expectInvalidClient(await post(t, '/oauth/token').send({ grant_type: 'refresh_token', refresh_token: 'x' }));
  });

  it('may not use client_credentials (unauthorized_client)', async () => {
    const { t, client } = await setup();
    const res = await post(t, '/oauth/token').send({ grant_type: 'client_credentials', client_id: client.clientId });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('unauthorized_client');
  });

  it('revokes its tokens by client_id alone (RFC 7009 §5), and may not introspect', async () => {
    const { t, client } = await setup();
    const code = await codeFor(t, client);
    const tokens = (await post(t, '/oauth/token').send({ grant_type: 'authorization_code', client_id: client.clientId, code, redirect_uri: 'https://spa.example/cb', code_verifier: VERIFIER })).body;
    expectInvalidClient(await post(t, '/oauth/introspect').send({ client_id: client.clientId, token: tokens.access_token }));
    const revoked = await post(t, '/oauth/revoke').send({ client_id: client.clientId, token: tokens.refresh_token });
    expect(revoked.status).toBe(200);
    expect(revoked.text).toBe('');
    const me = await request(t.app).get('/identity/v1/Users/me').set('Authorization', `Bearer ${tokens.access_token}`);
    expect(me.status).toBe(401);
  });
});

describe('a public client at authorize', () => {
  it('without a PKCE challenge is sent back with invalid_request, once the user is signed in', async () => {
    const { t, client } = await setup();
    const browser = await t.signedInBrowser('ada@example.com');
    const res = await browser.get(`/oauth/authorize?response_type=code&client_id=${client.clientId}&redirect_uri=${encodeURIComponent('https://spa.example/cb')}&state=s1`);
    expect(res.status).toBe(302);
    const location = new URL(res.headers.location as string);
    expect(`${location.origin}${location.pathname}`).toBe('https://spa.example/cb');
    expect(location.searchParams.get('error')).toBe('invalid_request');
    expect(location.searchParams.get('state')).toBe('s1');
    // Signed out, no redirect to the client: the sign-in page first (RFC 9700 §4.11.2).
    const signedOut = await t.browser().get(`/oauth/authorize?response_type=code&client_id=${client.clientId}&redirect_uri=${encodeURIComponent('https://spa.example/cb')}`);
    expect(signedOut.status).toBe(302);
    expect((signedOut.headers.location as string).startsWith('/oauth/login?')).toBe(true);
  });

  it('uses its loopback IP redirect URI on any port, and must name the same one at the token endpoint (RFC 8252 §7.3)', async () => {
    const { t, client } = await setup();
    const browser = await t.signedInBrowser('ada@example.com');
    const redirectUri = 'http://127.0.0.1:49152/cb';
    const { code, location } = await browser.authorize(client, { redirect_uri: redirectUri, ...PKCE });
    expect(location.href.startsWith(`${redirectUri}?code=`)).toBe(true);
    const other = await post(t, '/oauth/token').send({ grant_type: 'authorization_code', client_id: client.clientId, code, redirect_uri: 'http://127.0.0.1/cb', code_verifier: VERIFIER });
    expect(other.body.error).toBe('invalid_grant');
    const code2 = (await browser.authorize(client, { redirect_uri: redirectUri, ...PKCE })).code;
    const res = await post(t, '/oauth/token').send({ grant_type: 'authorization_code', client_id: client.clientId, code: code2, redirect_uri: redirectUri, code_verifier: VERIFIER });
    expect(res.status, res.text).toBe(200);
  });
});

describe('metadata (RFC 8414)', () => {
  it('lists none for the token and revocation endpoints, and client_credentials', async () => {
    const { t } = await setup();
    const res = await request(t.app).get('/.well-known/oauth-authorization-server').expect(200);
    expect(res.body.token_endpoint_auth_methods_supported).toContain('none');
    expect(res.body.revocation_endpoint_auth_methods_supported).toContain('none');
    expect(res.body.introspection_endpoint_auth_methods_supported).not.toContain('none');
    expect(res.body.grant_types_supported).toContain('client_credentials');
  });
});
