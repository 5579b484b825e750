import type { Client, User } from '@gatehouse/core';
import { describe, expect, it } from 'vitest';
import { createResourceHarness, type ResourceHarness } from './test-support/harness.js';
import { expectMatchesOpenApi } from './test-support/openapi.js';

/** The OAuth endpoints' answers, checked against openapi.yaml (their behaviour is tested beside the OAuth router). */

async function issueCode(h: ResourceHarness, client: Client, user: User): Promise<string> {
  const check = await h.t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', redirect_uri: client.redirectUris[0] });
  if (check.kind !== 'valid') throw new Error('authorization request refused');
  const { redirectTo } = await h.t.gatehouse.approveAuthorization({ request: check.request, userKey: user.userKey, sessionId: null });
  return new URL(redirectTo).searchParams.get('code') as string;
}

async function withClient() {
  const h = await createResourceHarness();
  const { client, clientSecret } = await h.t.seedClient({ name: 'Contract client' });
  return { h, client, clientSecret };
}

describe('OAuth endpoints match openapi.yaml', () => {
  it('token: code exchange, refresh and their errors', async () => {
    const { h, client, clientSecret } = await withClient();
    const code = await issueCode(h, client, h.admin);
    const exchange = await h.http
      .post('/oauth/token')
      .auth(client.clientId, clientSecret)
      .type('form')
      .send({ grant_type: 'authorization_code', code, redirect_uri: client.redirectUris[0] });
    expect(exchange.status).toBe(200);
    expectMatchesOpenApi(exchange, 'post', '/oauth/token');

    const refresh = await h.http
      .post('/oauth/token')
      .type('form')
      .send({ grant_type: 'refresh_token', refresh_token: exchange.body.refresh_token, client_id: client.clientId, client_secret: clientSecret });
    expect(refresh.status).toBe(200);
    expectMatchesOpenApi(refresh, 'post', '/oauth/token');

    const replay = await h.http
      .post('/oauth/token')
      .auth(client.clientId, clientSecret)
      .type('form')
      .send({ grant_type: 'authorization_code', code, redirect_uri: client.redirectUris[0] });
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe('invalid_grant');
    expectMatchesOpenApi(replay, 'post', '/oauth/token');

    const badClient = await h.http.post('/oauth/token').auth(client.clientId, 'wrong-secret').type('form').send({ grant_type: 'refresh_token', refresh_token: 'x' });
    expect(badClient.status).toBe(401);
    expectMatchesOpenApi(badClient, 'post', '/oauth/token');
  });

  it('introspect and revoke', async () => {
    const { h, client, clientSecret } = await withClient();
    const tokens = await h.t.obtainTokens({ client, user: h.member });
    for (const token of [tokens.access_token, tokens.refresh_token, 'unknown']) {
      const response = await h.http.post('/oauth/introspect').auth(client.clientId, clientSecret).type('form').send({ token });
      expect(response.status).toBe(200);
      expect(response.body.active).toBe(token !== 'unknown');
      expectMatchesOpenApi(response, 'post', '/oauth/introspect');
    }
    const revoke = await h.http.post('/oauth/revoke').auth(client.clientId, clientSecret).type('form').send({ token: tokens.refresh_token });
    expect(revoke.status).toBe(200);
    expectMatchesOpenApi(revoke, 'post', '/oauth/revoke');
    const missing = await h.http.post('/oauth/revoke').auth(client.clientId, clientSecret).type('form').send({});
    expect(missing.status).toBe(400);
    expectMatchesOpenApi(missing, 'post', '/oauth/revoke');
    const unauthenticated = await h.http.post('/oauth/introspect').type('form').send({ token: tokens.access_token });
    expect(unauthenticated.status).toBe(401);
    expectMatchesOpenApi(unauthenticated, 'post', '/oauth/introspect');
  });

  it('client credentials: the token, its introspection, Users/me refusing it, and unauthorized_client', async () => {
    const h = await createResourceHarness();
    const { client, clientSecret } = await h.t.seedClient({ name: 'Machine', redirectUris: [], grantTypes: ['client_credentials'] });
    const tokens = await h.http.post('/oauth/token').auth(client.clientId, clientSecret).type('form').send({ grant_type: 'client_credentials', scope: 'messaging.v1.read' });
    expect(tokens.status).toBe(200);
    expectMatchesOpenApi(tokens, 'post', '/oauth/token');
    const introspection = await h.http.post('/oauth/introspect').auth(client.clientId, clientSecret).type('form').send({ token: tokens.body.access_token });
    expect(introspection.body.active).toBe(true);
    expectMatchesOpenApi(introspection, 'post', '/oauth/introspect');
    const me = await h.http.get('/identity/v1/Users/me').set('Authorization', `Bearer ${tokens.body.access_token}`);
    expect(me.status).toBe(403);
    expectMatchesOpenApi(me, 'get', '/identity/v1/Users/me');
    const refused = await h.http.post('/oauth/token').auth(client.clientId, clientSecret).type('form').send({ grant_type: 'refresh_token', refresh_token: 'x' });
    expect(refused.body.error).toBe('unauthorized_client');
    expectMatchesOpenApi(refused, 'post', '/oauth/token');
  });

  it('a public client: token with client_id alone, introspection refused', async () => {
    const h = await createResourceHarness();
    const { client } = await h.t.gatehouse.registerClient({ name: 'SPA', public: true, redirectUris: ['https://spa.example/cb'], scopes: ['messaging.v1.read'] });
    const introspection = await h.http.post('/oauth/introspect').type('form').send({ client_id: client.clientId, token: 'x' });
    expect(introspection.status).toBe(401);
    expectMatchesOpenApi(introspection, 'post', '/oauth/introspect');
    const revoke = await h.http.post('/oauth/revoke').type('form').send({ client_id: client.clientId, token: 'x' });
    expect(revoke.status).toBe(200);
    expectMatchesOpenApi(revoke, 'post', '/oauth/revoke');
  });

  it('metadata and JWKS', async () => {
    const { h } = await withClient();
    await h.tokenFor(h.admin); // a signing key exists once a token was signed
    const metadata = await h.http.get('/.well-known/oauth-authorization-server');
    expect(metadata.status).toBe(200);
    expectMatchesOpenApi(metadata, 'get', '/.well-known/oauth-authorization-server');
    const jwks = await h.http.get('/oauth/jwks');
    expect(jwks.status).toBe(200);
    expectMatchesOpenApi(jwks, 'get', '/oauth/jwks');
  });

  it('OpenID Connect: the Discovery document, a token response with an ID token, UserInfo and its refusals', async () => {
    const h = await createResourceHarness({ settings: { openid: true } });
    const { client, clientSecret } = await h.t.seedClient({ name: 'Site' });
    const check = await h.t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', redirect_uri: client.redirectUris[0], scope: 'openid profile email', nonce: 'n' });
    if (check.kind !== 'valid') throw new Error('authorization request refused');
    const { redirectTo } = await h.t.gatehouse.approveAuthorization({ request: check.request, userKey: h.admin.userKey, sessionId: null });
    const code = new URL(redirectTo).searchParams.get('code') as string;
    const exchange = await h.http.post('/oauth/token').auth(client.clientId, clientSecret).type('form').send({ grant_type: 'authorization_code', code, redirect_uri: client.redirectUris[0] });
    expect(exchange.body.id_token).toEqual(expect.any(String));
    expectMatchesOpenApi(exchange, 'post', '/oauth/token');
    const discovery = await h.http.get('/.well-known/openid-configuration');
    expect(discovery.status).toBe(200);
    expectMatchesOpenApi(discovery, 'get', '/.well-known/openid-configuration');
    expectMatchesOpenApi(await h.http.get('/.well-known/oauth-authorization-server'), 'get', '/.well-known/oauth-authorization-server');
    for (const method of ['get', 'post'] as const) {
      const info = await h.http[method]('/oauth/userinfo').set('Authorization', `Bearer ${exchange.body.access_token as string}`);
      expect(info.status).toBe(200);
      expectMatchesOpenApi(info, method, '/oauth/userinfo');
    }
    const oauthToken = await h.tokenFor(h.admin, 'messaging.v1.read');
    const insufficient = await h.http.get('/oauth/userinfo').set('Authorization', `Bearer ${oauthToken}`);
    expect(insufficient.status).toBe(403);
    expectMatchesOpenApi(insufficient, 'get', '/oauth/userinfo');
    const missing = await h.http.get('/oauth/userinfo');
    expect(missing.status).toBe(401);
    expectMatchesOpenApi(missing, 'get', '/oauth/userinfo');
  }, 30_000);

  it('resource indicators: a token for a resource, invalid_target, the APIs\' protected resource metadata', async () => {
    const scopes = [{ scope: 'messaging.v1.read', description: 'Read' }, { scope: 'orders.v1.read', description: 'Orders' }];
    const h = await createResourceHarness({
      settings: { scopes, resources: [{ resource: 'http://localhost:3000', name: 'Gatehouse APIs', scopes: ['messaging.v1.read'] }, { resource: 'https://mcp.example.com/mcp', name: 'MCP', scopes: ['orders.v1.read'] }] },
    });
    const { client, clientSecret } = await h.t.seedClient({ name: 'Contract client', redirectUris: [], grantTypes: ['client_credentials'], scopes: ['orders.v1.read'] });
    const token = (resource: string) =>
      h.http.post('/oauth/token').auth(client.clientId, clientSecret).type('form').send({ grant_type: 'client_credentials', resource });
    const issued = await token('https://mcp.example.com/mcp');
    expect(issued.status).toBe(200);
    expectMatchesOpenApi(issued, 'post', '/oauth/token');
    const refused = await token('https://unknown.example.com');
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('invalid_target');
    expectMatchesOpenApi(refused, 'post', '/oauth/token');
    const introspected = await h.http.post('/oauth/introspect').auth(client.clientId, clientSecret).type('form').send({ token: issued.body.access_token as string });
    expect(introspected.body).toMatchObject({ active: true, aud: 'https://mcp.example.com/mcp' });
    expectMatchesOpenApi(introspected, 'post', '/oauth/introspect');
    const metadata = await h.http.get('/.well-known/oauth-protected-resource');
    expect(metadata.status).toBe(200);
    expectMatchesOpenApi(metadata, 'get', '/.well-known/oauth-protected-resource');
  });
});
