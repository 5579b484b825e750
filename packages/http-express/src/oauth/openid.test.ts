import { createGatehouse, defineSettings, DEFAULT_SCOPES } from '@gatehouse/core';
import { createControllableClock, createMemoryRepositories } from '@gatehouse/core/testing';
import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { authorizationServerMetadataRouter, createGatehouseRouter } from '../embed/router.js';
import { createTestApp } from '../test-support/index.js';

// OpenID Connect over HTTP (SPEC §9): the Discovery document (docs/decisions/0133) and UserInfo
// (OIDC Core §5.3, docs/decisions/0132).

const SLOW = { timeout: 30_000 };

describe('GET /.well-known/openid-configuration (OpenID Connect Discovery 1.0)', SLOW, () => {
  it('lists what the OpenID Provider implements and nothing it does not; the RFC 8414 document says the same', async () => {
    const t = await createTestApp({ settings: { issuer: 'https://auth.example.com', openid: true } });
    const res = await request(t.app).get('/.well-known/openid-configuration').set('Host', 'evil.example').expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      issuer: 'https://auth.example.com',
      authorization_endpoint: 'https://auth.example.com/oauth/authorize',
      token_endpoint: 'https://auth.example.com/oauth/token',
      jwks_uri: 'https://auth.example.com/oauth/jwks',
      revocation_endpoint: 'https://auth.example.com/oauth/revoke',
      introspection_endpoint: 'https://auth.example.com/oauth/introspect',
      userinfo_endpoint: 'https://auth.example.com/oauth/userinfo',
      end_session_endpoint: 'https://auth.example.com/oauth/logout',
      scopes_supported: [...DEFAULT_SCOPES.map((entry) => entry.scope), 'openid', 'profile', 'email', 'phone', 'address', 'offline_access'],
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256', 'ES256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
      claims_supported: expect.arrayContaining(['sub', 'auth_time', 'nonce', 'sid', 'name', 'email', 'email_verified', 'phone_number', 'address', 'locale']),
      claim_types_supported: ['normal'],
      claims_parameter_supported: false,
      request_parameter_supported: false,
      request_uri_parameter_supported: false,
      prompt_values_supported: ['none', 'login', 'consent'],
      display_values_supported: ['page', 'popup', 'touch', 'wap'],
    });
    expect(res.text).not.toContain('evil.example');
    expect((await request(t.app).get('/.well-known/oauth-authorization-server').expect(200)).body).toEqual(res.body);
  });

  it('is not served, and the RFC 8414 document has no OpenID field, without OpenID Connect', async () => {
    const t = await createTestApp();
    expect((await request(t.app).get('/.well-known/openid-configuration')).status).toBe(404);
    const { body } = await request(t.app).get('/.well-known/oauth-authorization-server').expect(200);
    expect(Object.keys(body).filter((key) => /userinfo|end_session|id_token|claims|subject_types/.test(key))).toEqual([]);
    expect((await request(t.app).get('/oauth/userinfo')).status).toBe(404);
  });

  it('under an issuer with a path: appended to the issuer (Discovery §4) and inserted at the root (as RFC 8414 §3.1)', async () => {
    const issuer = 'http://localhost:4000/auth';
    const gatehouse = createGatehouse({ repositories: createMemoryRepositories(), clock: createControllableClock(), settings: defineSettings({ issuer, openid: true }) });
    const app = express();
    app.use(authorizationServerMetadataRouter(gatehouse));
    app.use('/auth', createGatehouseRouter({ gatehouse }));
    const appended = await request(app).get('/auth/.well-known/openid-configuration').expect(200);
    expect(appended.body).toMatchObject({ issuer, userinfo_endpoint: `${issuer}/oauth/userinfo`, end_session_endpoint: `${issuer}/oauth/logout` });
    expect((await request(app).get('/.well-known/openid-configuration/auth').expect(200)).body).toEqual(appended.body);
    expect((await request(app).get('/.well-known/oauth-authorization-server/auth').expect(200)).body).toEqual(appended.body);
    expect((await request(app).get('/.well-known/openid-configuration')).status).toBe(404);
  });

  it('every endpoint it names answers', async () => {
    const t = await createTestApp({ settings: { openid: true } });
    const { body } = await request(t.app).get('/.well-known/openid-configuration').expect(200);
    expect((await request(t.app).get(new URL(body.userinfo_endpoint as string).pathname)).status).toBe(401);
    expect((await request(t.app).get(new URL(body.end_session_endpoint as string).pathname)).status).toBe(200);
  });
});

describe('GET and POST /oauth/userinfo (OIDC Core §5.3)', SLOW, () => {
  async function setup() {
    const t = await createTestApp({ settings: { openid: true, resources: [{ resource: 'https://mcp.example.com/mcp', name: 'MCP', scopes: ['messaging.v1.read'] }] } });
    const user = await t.seedUser({ email: 'ada@example.com', givenName: 'Ada', familyName: 'Lovelace' });
    const { client, clientSecret } = await t.seedClient();
    return { t, user, client, clientSecret };
  }

  it('answers the claims of the token\'s scopes, as JSON never cached, to GET and to POST', async () => {
    const { t, user, client, clientSecret } = await setup();
    const { body } = await t.tokensOverHttp({ client, clientSecret, email: user.email, extra: { scope: 'openid profile email', nonce: 'n1' } });
    const claims = await t.checkIdToken(body.id_token as string, { client, nonce: 'n1', accessToken: body.access_token as string });
    expect(claims.sub).toBe(user.userKey);
    for (const method of ['get', 'post'] as const) {
      const res = await request(t.app)[method]('/oauth/userinfo').set('Authorization', `Bearer ${body.access_token as string}`).expect(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toEqual({ sub: user.userKey, name: 'Ada Lovelace', given_name: 'Ada', family_name: 'Lovelace', locale: 'en-US', email: 'ada@example.com' });
    }
  });

  it('refuses with RFC 6750 challenges: no token 401, a bad one invalid_token, one without openid 403 insufficient_scope, one in the query 400', async () => {
    const { t, user, client, clientSecret } = await setup();
    const missing = await request(t.app).get('/oauth/userinfo').expect(401);
    expect(missing.headers['www-authenticate']).toBe('Bearer realm="gatehouse"');
    const bad = await request(t.app).get('/oauth/userinfo').set('Authorization', 'Bearer not.a.token').expect(401);
    expect(bad.headers['www-authenticate']).toMatch(/error="invalid_token"/);
    const { body } = await t.tokensOverHttp({ client, clientSecret, email: user.email, extra: { scope: 'messaging.v1.read profile' } });
    const oauth = await request(t.app).get('/oauth/userinfo').set('Authorization', `Bearer ${body.access_token as string}`).expect(403);
    expect(oauth.headers['www-authenticate']).toBe('Bearer realm="gatehouse", error="insufficient_scope", scope="openid"');
    expect(oauth.headers['content-type']).toMatch(/^application\/problem\+json/);
    const inQuery = await request(t.app).get(`/oauth/userinfo?access_token=${body.access_token as string}`).expect(400);
    expect(inQuery.headers['www-authenticate']).toMatch(/error="invalid_request"/);
  });

  it('refuses a token in a POST form body with 400 invalid_request, alone or beside the header (RFC 6750 §2.2 unsupported, §3.1; decision 0132); the header alone still works', async () => {
    const { t, user, client, clientSecret } = await setup();
    const { body } = await t.tokensOverHttp({ client, clientSecret, email: user.email, extra: { scope: 'openid' } });
    const token = body.access_token as string;
    for (const [label, post] of [
      ['in the body only', () => request(t.app).post('/oauth/userinfo').type('form').send({ access_token: token })],
      ['in the header and the body', () => request(t.app).post('/oauth/userinfo').set('Authorization', `Bearer ${token}`).type('form').send({ access_token: token })],
      ['in the body with a charset', () => request(t.app).post('/oauth/userinfo').set('Content-Type', 'application/x-www-form-urlencoded; charset=utf-8').send(`access_token=${token}`)],
    ] as const) {
      const res = await post().set('Origin', 'https://spa.example');
      expect(res.status, label).toBe(400);
      expect(res.headers['www-authenticate'], label).toBe('Bearer realm="gatehouse", error="invalid_request"');
      expect(res.headers['content-type'], label).toMatch(/^application\/problem\+json/);
      expect(res.body, label).toMatchObject({ status: 400, errorCode: 'INVALID_REQUEST', invalidParams: [{ name: 'access_token' }] });
      expect(res.headers['access-control-allow-origin'], label).toBe('*');
      expect(res.text, label).not.toContain(token);
    }
    // A form the reader cannot accept is refused the same way, never read past its bound.
    const repeated = await request(t.app).post('/oauth/userinfo').set('Authorization', `Bearer ${token}`).type('form').send('a=1&a=2');
    expect(repeated.status).toBe(400);
    expect(repeated.headers['www-authenticate']).toBe('Bearer realm="gatehouse", error="invalid_request"');
    const large = await request(t.app).post('/oauth/userinfo').set('Authorization', `Bearer ${token}`).type('form').send(`padding=${'x'.repeat(20_000)}`);
    expect(large.status).toBe(413);
    expect(large.headers['www-authenticate']).toBe('Bearer realm="gatehouse", error="invalid_request"');
    expect(t.logger.lines.filter((line) => line.level === 'error')).toEqual([]);

    // The token in the header only still works, whatever else the body holds; CORS as before.
    const bearer = `Bearer ${token}`;
    const expected = { sub: user.userKey };
    for (const [label, post] of [
      ['no body', () => request(t.app).post('/oauth/userinfo')],
      ['an empty form', () => request(t.app).post('/oauth/userinfo').type('form').send('')],
      ['a form without access_token', () => request(t.app).post('/oauth/userinfo').type('form').send({ claims: 'x' })],
      ['an empty access_token (omitted, RFC 6749 §3.1)', () => request(t.app).post('/oauth/userinfo').type('form').send('access_token=')],
      ['a JSON body, not read', () => request(t.app).post('/oauth/userinfo').type('json').send({ access_token: 'ignored' })],
    ] as const) {
      const res = await post().set('Authorization', bearer).set('Origin', 'https://spa.example');
      expect(res.status, label).toBe(200);
      expect(res.body, label).toEqual(expected);
      expect(res.headers['access-control-allow-origin'], label).toBe('*');
    }
    const preflight = await request(t.app).options('/oauth/userinfo').set('Origin', 'https://spa.example').set('Access-Control-Request-Method', 'POST').set('Access-Control-Request-Headers', 'authorization, content-type');
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-methods']).toBe('GET, POST');
    // Without any token: 401 with the bare challenge, whatever the body.
    const none = await request(t.app).post('/oauth/userinfo').type('form').send({ claims: 'x' }).expect(401);
    expect(none.headers['www-authenticate']).toBe('Bearer realm="gatehouse"');
  });

  it('refuses a token for another resource (its audience is not the issuer): invalid_token', async () => {
    const { t, user, client, clientSecret } = await setup();
    const { body } = await t.tokensOverHttp({ client, clientSecret, email: user.email, extra: { scope: 'openid messaging.v1.read', resource: 'https://mcp.example.com/mcp' } });
    const res = await request(t.app).get('/oauth/userinfo').set('Authorization', `Bearer ${body.access_token as string}`).expect(401);
    expect(res.headers['www-authenticate']).toMatch(/error="invalid_token"/);
  });

  it('refuses the token of a revoked grant at once (product logout)', async () => {
    const { t, user, client, clientSecret } = await setup();
    const { body, browser } = await t.tokensOverHttp({ client, clientSecret, email: user.email, extra: { scope: 'openid' } });
    await request(t.app).get('/oauth/userinfo').set('Authorization', `Bearer ${body.access_token as string}`).expect(200);
    await browser.postForm('/oauth/logout', {}).expect(200);
    await request(t.app).get('/oauth/userinfo').set('Authorization', `Bearer ${body.access_token as string}`).expect(401);
  });
});

describe('an OpenID Connect request without redirect_uri (OIDC Core §3.1.2.1, decision 0182)', SLOW, () => {
  it('is a 400 page with no redirect, signed in or not, though the client has one redirect URI; an OAuth request may still leave it out', async () => {
    const t = await createTestApp({ settings: { openid: true } });
    const user = await t.seedUser({ email: 'ada@example.com' });
    const { client } = await t.seedClient({ scopes: ['openid', 'profile', 'messaging.v1.read'] });
    const path = (params: Record<string, string>) => `/oauth/authorize?${new URLSearchParams({ client_id: client.clientId, response_type: 'code', state: 's', ...params }).toString()}`;
    const browser = await t.signedInBrowser(user.email);
    for (const res of [await request(t.app).get(path({ scope: 'openid profile' })), await browser.get(path({ scope: 'openid' })), await browser.get(path({ scope: 'openid', prompt: 'none' }))]) {
      expect(res.status).toBe(400);
      expect(res.headers.location).toBeUndefined();
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).toContain('redirect_uri is required in an OpenID Connect request');
    }
    // An OAuth request without it goes on (the consent page), as RFC 6749 §3.1.2.3 allows.
    await browser.get(path({ scope: 'messaging.v1.read' })).expect(200);
  });
});

describe('the consent page of an OpenID Connect request', SLOW, () => {
  it('words the OpenID scopes like the others', async () => {
    const t = await createTestApp({ settings: { openid: true } });
    const user = await t.seedUser({ email: 'ada@example.com' });
    const { client } = await t.seedClient();
    const browser = await t.signedInBrowser(user.email);
    const page = await browser.get(`/oauth/authorize?${new URLSearchParams({ client_id: client.clientId, response_type: 'code', redirect_uri: client.redirectUris[0] as string, scope: 'openid profile email offline_access' }).toString()}`).expect(200);
    for (const words of ['Sign you in to the app with your account', 'See your name and profile details, such as your language', 'See your e-mail address', 'Keep access while you are not using the app, until you sign out or withdraw it']) {
      expect(page.text).toContain(words);
    }
  });
});
