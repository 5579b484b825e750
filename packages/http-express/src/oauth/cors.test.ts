import { createTestGatehouse } from '@gatehouse/core/testing';
import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { authorizationServerMetadataRouter } from '../embed/router.js';
import { protectedResourceMetadataRouter } from '../protected-resource/metadata.js';
import { basicAuth, createTestApp } from '../test-support/index.js';

// CORS for the endpoints a client running in a browser calls itself (docs/decisions/0165): any
// origin, never credentials; the pages and introspection stay closed.

const ORIGIN = 'https://agent.example';

/** A browser's preflight for `method` with `headers` from another origin. */
function preflight(app: express.Express, path: string, method: string, headers = 'authorization, content-type, mcp-protocol-version') {
  return request(app).options(path).set('Origin', ORIGIN).set('Access-Control-Request-Method', method).set('Access-Control-Request-Headers', headers);
}

describe('CORS for browser-based clients', () => {
  it('answers the preflights of metadata, JWKS, token, revocation and registration, any origin and no credentials', async () => {
    const t = await createTestApp({ settings: { registration: { policy: 'open' } } });
    const cases: Array<[string, string, string]> = [
      ['/.well-known/oauth-authorization-server', 'GET', 'GET, HEAD'],
      ['/oauth/jwks', 'GET', 'GET, HEAD'],
      ['/oauth/token', 'POST', 'POST'],
      ['/oauth/revoke', 'POST', 'POST'],
      ['/oauth/register', 'POST', 'GET, POST, PUT, DELETE'],
      ['/oauth/register/some-client', 'PUT', 'GET, POST, PUT, DELETE'],
    ];
    for (const [path, method, allowed] of cases) {
      const answer = await preflight(t.app, path, method);
      expect(answer.status, path).toBe(204);
      expect(answer.headers['access-control-allow-origin'], path).toBe('*');
      expect(answer.headers['access-control-allow-methods'], path).toBe(allowed);
      expect(answer.headers['access-control-allow-headers'], path).toBe('Authorization, Content-Type, MCP-Protocol-Version');
      expect(answer.headers['access-control-max-age'], path).toBe('600');
      expect(answer.headers, path).not.toHaveProperty('access-control-allow-credentials');
    }
  });

  it('lets a page of another origin read the answers, errors included, and changes nothing else', async () => {
    const t = await createTestApp({ settings: { registration: { policy: 'open' } } });
    const metadata = await request(t.app).get('/.well-known/oauth-authorization-server').set('Origin', ORIGIN).expect(200);
    expect(metadata.headers['access-control-allow-origin']).toBe('*');
    expect(metadata.body.token_endpoint).toBe('http://localhost:3000/oauth/token');

    const registered = await request(t.app)
      .post('/oauth/register')
      .set('Origin', ORIGIN)
      .send({ client_name: 'Web agent', redirect_uris: ['https://agent.example/callback'], token_endpoint_auth_method: 'none' })
      .expect(201);
    expect(registered.headers['access-control-allow-origin']).toBe('*');

    const { client, clientSecret } = await t.seedClient();
    const refused = await request(t.app)
      .post('/oauth/token')
      .set('Origin', ORIGIN)
      .set('Authorization', basicAuth(client.clientId, clientSecret))
      .type('form')
      .send({ grant_type: 'authorization_code', code: 'not-a-code', redirect_uri: 'https://client.example/callback' })
      .expect(400);
    expect(refused.body.error).toBe('invalid_grant');
    expect(refused.headers['access-control-allow-origin']).toBe('*');
    expect(refused.headers['access-control-expose-headers']).toBe('WWW-Authenticate, Retry-After, Location');

    // A wrong secret: 401 with WWW-Authenticate, which the page may read.
    const unauthorized = await request(t.app).post('/oauth/token').set('Origin', ORIGIN).set('Authorization', basicAuth(client.clientId, 'wrong')).type('form').send({ grant_type: 'client_credentials' }).expect(401);
    expect(unauthorized.headers['access-control-allow-origin']).toBe('*');
    expect(unauthorized.headers['www-authenticate']).toMatch(/^Basic /);
  });

  it('opens the resource APIs to a page calling them with its bearer token: preflights, answers and their challenges (docs/decisions/0165)', async () => {
    const t = await createTestApp();
    const user = await t.seedUser();
    const { client, clientSecret } = await t.seedClient();
    for (const [path, method] of [['/identity/v1/Users/me', 'GET'], ['/messaging/v1/messages', 'POST'], ['/admin/rest/v1/accounts/a1/attributes/k1', 'PUT']] as const) {
      const answer = await preflight(t.app, path, method);
      expect(answer.status, path).toBe(204);
      expect(answer.headers['access-control-allow-origin'], path).toBe('*');
      expect(answer.headers['access-control-allow-methods'], path).toBe('GET, HEAD, POST, PUT, DELETE');
      expect(answer.headers, path).not.toHaveProperty('access-control-allow-credentials');
    }
    // Without a token: the challenge, readable by the page.
    const challenged = await request(t.app).get('/identity/v1/Users/me').set('Origin', ORIGIN).expect(401);
    expect(challenged.headers['access-control-allow-origin']).toBe('*');
    expect(challenged.headers['access-control-expose-headers']).toBe('WWW-Authenticate, Retry-After, Location');
    expect(challenged.headers['www-authenticate']).toMatch(/^Bearer /);
    // With one: the user's record.
    const { body } = await t.tokensOverHttp({ client, clientSecret, email: user.email, extra: { scope: 'messaging.v1.read' } });
    const me = await request(t.app).get('/identity/v1/Users/me').set('Origin', ORIGIN).set('Authorization', `Bearer ${body.access_token as string}`).expect(200);
    expect(me.headers['access-control-allow-origin']).toBe('*');
  });

  it('keeps the pages and introspection closed to other origins', async () => {
    const t = await createTestApp();
    for (const path of ['/oauth/authorize', '/oauth/login', '/oauth/logout']) {
      const answer = await request(t.app).get(path).set('Origin', ORIGIN);
      expect(answer.headers, path).not.toHaveProperty('access-control-allow-origin');
    }
    const introspect = await preflight(t.app, '/oauth/introspect', 'POST');
    expect(introspect.status).toBe(405);
    expect(introspect.headers).not.toHaveProperty('access-control-allow-origin');
    const login = await preflight(t.app, '/oauth/login', 'POST');
    expect(login.headers).not.toHaveProperty('access-control-allow-origin');
  });

  it("opens the metadata at the host's root and the protected resource metadata (RFC 8414 §3, RFC 9728 §3)", async () => {
    const t = await createTestGatehouse({ settings: { issuer: 'https://host.example/auth', resources: [{ resource: 'https://host.example/mcp', name: 'MCP', scopes: ['messaging.v1.read'] }] } });
    const app = express();
    app.use(authorizationServerMetadataRouter(t.gatehouse));
    app.use(protectedResourceMetadataRouter(t.gatehouse));
    app.use((_req, res) => {
      res.status(404).send('host 404');
    });
    for (const path of ['/.well-known/oauth-authorization-server/auth', '/.well-known/oauth-protected-resource/mcp']) {
      const answer = await preflight(app, path, 'GET', 'mcp-protocol-version');
      expect(answer.status, path).toBe(204);
      expect(answer.headers['access-control-allow-origin'], path).toBe('*');
      const document = await request(app).get(path).set('Origin', ORIGIN).expect(200);
      expect(document.headers['access-control-allow-origin'], path).toBe('*');
    }
    // The host's own paths are not touched.
    const other = await preflight(app, '/.well-known/something-else', 'GET');
    expect(other.status).toBe(404);
    expect(other.headers).not.toHaveProperty('access-control-allow-origin');
  });
});
