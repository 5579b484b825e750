import { DEFAULT_SCOPES } from '@gatehouse/core';
import { decodeJwt } from 'jose';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { basicAuth, createTestApp, exchangeCode } from '../test-support/index.js';

describe('GET /.well-known/oauth-authorization-server (RFC 8414)', () => {
  it('lists exactly what is implemented, with URLs built from the issuer', async () => {
    const t = await createTestApp({ settings: { issuer: 'https://auth.example.com' } });
    const res = await request(t.app).get('/.well-known/oauth-authorization-server').set('Host', 'evil.example').expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      issuer: 'https://auth.example.com',
      authorization_endpoint: 'https://auth.example.com/oauth/authorize',
      token_endpoint: 'https://auth.example.com/oauth/token',
      jwks_uri: 'https://auth.example.com/oauth/jwks',
      revocation_endpoint: 'https://auth.example.com/oauth/revoke',
      introspection_endpoint: 'https://auth.example.com/oauth/introspect',
      scopes_supported: DEFAULT_SCOPES.map((entry) => entry.scope),
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
    });
    expect(res.text).not.toContain('evil.example');
  });

  it('every endpoint it names answers (none is advertised without being served)', async () => {
    const t = await createTestApp();
    const { body } = await request(t.app).get('/.well-known/oauth-authorization-server').expect(200);
    for (const name of ['token_endpoint', 'revocation_endpoint', 'introspection_endpoint']) {
      const path = new URL(body[name] as string).pathname;
      const res = await request(t.app).post(path).type('form').send('');
      expect(res.status, name).toBe(401);
      expect(res.body.error, name).toBe('invalid_client');
    }
    expect((await request(t.app).get(new URL(body.jwks_uri as string).pathname)).status).toBe(200);
    const authorize = await request(t.app).get(new URL(body.authorization_endpoint as string).pathname);
    expect(authorize.status).toBe(400);
  });

  it('names the issuer as the tokens and the authorization response do; an issuer with a trailing slash is refused (RFC 8414 §3.3, RFC 9207 §2; docs/decisions/0183)', async () => {
    // Refused where the settings are made, so no document can name an issuer that no token carries.
    await expect(createTestApp({ settings: { issuer: 'http://localhost:3000/' } })).rejects.toThrow('the issuer "http://localhost:3000/" ends with a slash; write "http://localhost:3000"');

    const issuer = 'http://localhost:3000';
    const t = await createTestApp({ settings: { issuer, openid: true, resources: [{ resource: issuer, name: 'Gatehouse APIs', scopes: ['messaging.v1.read'] }] } });
    const user = await t.seedUser();
    const { client, clientSecret } = await t.seedClient({ scopes: ['openid', 'messaging.v1.read'] });
    const browser = await t.signedInBrowser(user.email);
    const { location, code } = await browser.authorize(client, { scope: 'openid messaging.v1.read', nonce: 'n-1' });
    const tokens = await exchangeCode(t.app, client, clientSecret, code).expect(200);
    const metadata = (await request(t.app).get('/.well-known/oauth-authorization-server').expect(200)).body as Record<string, unknown>;
    const discovery = (await request(t.app).get('/.well-known/openid-configuration').expect(200)).body as Record<string, unknown>;
    const resource = (await request(t.app).get('/.well-known/oauth-protected-resource').expect(200)).body as Record<string, unknown>;
    const introspected = await request(t.app).post('/oauth/introspect').set('Authorization', basicAuth(client.clientId, clientSecret)).type('form').send({ token: tokens.body.access_token as string }).expect(200);

    expect(metadata.issuer).toBe(issuer);
    expect(location.searchParams.get('iss')).toBe(metadata.issuer);
    expect(decodeJwt(tokens.body.access_token as string).iss).toBe(metadata.issuer);
    expect(decodeJwt(tokens.body.id_token as string).iss).toBe(metadata.issuer);
    expect(introspected.body.iss).toBe(metadata.issuer);
    expect(discovery.issuer).toBe(metadata.issuer);
    expect(resource.authorization_servers).toEqual([metadata.issuer]);
  });
});

describe('GET /oauth/jwks', () => {
  it('publishes the public signing key with its kid, cacheable for a short time', async () => {
    const t = await createTestApp();
    const user = await t.seedUser();
    const { client } = await t.seedClient();
    const tokens = await t.obtainTokens({ client, user });
    const res = await request(t.app).get('/oauth/jwks').expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    const keys = res.body.keys as Array<Record<string, unknown>>;
    expect(keys.length).toBeGreaterThanOrEqual(1);
    const kid = JSON.parse(Buffer.from(tokens.access_token.split('.')[0] as string, 'base64url').toString()).kid;
    const key = keys.find((entry) => entry.kid === kid);
    expect(key).toBeDefined();
    expect(key).not.toHaveProperty('d');
  });

  it('keeps the old key published after a rotation', async () => {
    const t = await createTestApp();
    await t.gatehouse.jwks();
    const before = (await request(t.app).get('/oauth/jwks')).body.keys.map((key: { kid: string }) => key.kid);
    await t.gatehouse.rotateSigningKey();
    const after = (await request(t.app).get('/oauth/jwks')).body.keys.map((key: { kid: string }) => key.kid);
    expect(after).toEqual(expect.arrayContaining(before));
    expect(after.length).toBe(before.length + 1);
  });

  it('a resource server that cached the JWKS just before a rotation verifies every token issued while its copy is fresh', async () => {
    const t = await createTestApp();
    const user = await t.seedUser();
    const { client } = await t.seedClient();
    const kidOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[0] as string, 'base64url').toString()).kid as string;
    const oldKid = kidOf((await t.obtainTokens({ client, user })).access_token);
    t.clock.advance(3600);

    const cached = await request(t.app).get('/oauth/jwks').expect(200);
    const maxAge = Number(/^public, max-age=(\d+)$/.exec(cached.headers['cache-control'] as string)?.[1]);
    expect(maxAge).toBe(300);
    const cachedKids = (cached.body.keys as Array<{ kid: string }>).map((key) => key.kid);
    const { kid: newKid } = await t.gatehouse.rotateSigningKey();
    // The JWKS lists the new key at once, for resource servers fetching it from now on.
    expect((await request(t.app).get('/oauth/jwks')).body.keys.map((key: { kid: string }) => key.kid)).toContain(newKid);

    // The last second the cached copy is fresh: the token is signed with a key it lists.
    t.clock.advance(maxAge);
    const lastOfCache = await t.obtainTokens({ client, user });
    expect(kidOf(lastOfCache.access_token)).toBe(oldKid);
    expect(cachedKids).toContain(kidOf(lastOfCache.access_token));
  });

  it('is cacheable for the configured JWKS lifetime, which the key rotation waits out', async () => {
    const t = await createTestApp({ settings: { issuer: 'http://localhost:3000', jwksMaxAgeSeconds: 60 } });
    await t.gatehouse.jwks();
    const res = await request(t.app).get('/oauth/jwks').expect(200);
    expect(res.headers['cache-control']).toBe('public, max-age=60');
  });
});
