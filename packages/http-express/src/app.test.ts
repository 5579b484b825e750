import express from 'express';
import request from 'supertest';
import { DEFAULT_SCOPES } from '@gatehouse/core';
import { describe, expect, it } from 'vitest';
import { bearer, createResourceHarness } from './resource/test-support/harness.js';
import { createTestApp } from './test-support/index.js';

function failingRouter(): express.Router {
  const router = express.Router();
  router.get('/boom', () => {
    throw new Error('secret detail: database password is hunter2');
  });
  router.post('/oauth/token-like-but-not', () => {
    throw new Error('nope');
  });
  return router;
}

describe('createGatehouseApp', () => {
  it('echoes an acceptable X-Request-Id, generates one otherwise, and logs it with each request', async () => {
    const t = await createTestApp();
    const echoed = await request(t.app).get('/oauth/jwks').set('X-Request-Id', 'abc-123');
    expect(echoed.headers['x-request-id']).toBe('abc-123');
    const generated = await request(t.app).get('/oauth/jwks').set('X-Request-Id', 'bad id with spaces <>');
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const line = t.logger.lines.find((entry) => (entry.obj as { reqId?: string }).reqId === 'abc-123');
    expect(line?.obj).toMatchObject({ method: 'GET', path: '/oauth/jwks', status: 200 });
  });

  it('records the audit events of a request with its id (sign-in, failed client authentication, replayed code)', async () => {
    const t = await createTestApp();
    await t.seedUser({ email: 'ada@example.com', password: 'correct horse battery' });
    const { client, clientSecret } = await t.seedClient();
    const browser = t.browser();
    const signIn = await browser.signIn('ada@example.com', 'correct horse battery');
    expect(t.audit.ofType('sign_in.succeeded')[0]?.requestId).toBe(signIn.headers['x-request-id']);
    const failed = await request(t.app).post('/oauth/token').auth(client.clientId, 'wrong-secret').type('form').send({ grant_type: 'refresh_token', refresh_token: 'x' }).expect(401);
    expect(t.audit.ofType('client.authentication_failed')[0]?.requestId).toBe(failed.headers['x-request-id']);
    const { code } = await browser.authorize(client);
    const exchange = () => request(t.app).post('/oauth/token').auth(client.clientId, clientSecret).type('form').send({ grant_type: 'authorization_code', code, redirect_uri: client.redirectUris[0] });
    await exchange().expect(200);
    const replay = await exchange().set('X-Request-Id', 'replay-1').expect(400);
    expect(replay.headers['x-request-id']).toBe('replay-1');
    expect(t.audit.ofType('code.replayed')).toEqual([expect.objectContaining({ clientId: client.clientId, requestId: 'replay-1' })]);
  });

  it('sends no X-Powered-By', async () => {
    const t = await createTestApp();
    const res = await request(t.app).get('/oauth/jwks');
    expect(res.headers['x-powered-by']).toBeUndefined();
  });

  it('404: an HTML page for browsers, problem JSON for API callers', async () => {
    const t = await createTestApp();
    const page = await request(t.app).get('/nothing').set('Accept', 'text/html,application/xhtml+xml');
    expect(page.status).toBe(404);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain('Page not found');
    const api = await request(t.app).get('/nothing').set('Accept', 'application/json');
    expect(api.status).toBe(404);
    expect(api.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(api.body).toMatchObject({ status: 404, errorCode: 'NOT_FOUND' });
  });

  it('for an issuer with a path, serves the resource APIs under it, where their resource identifier (the issuer) covers them (RFC 9728 §3.3; docs/decisions/0183)', async () => {
    const issuer = 'http://localhost:3000/auth';
    const h = await createResourceHarness({ settings: { issuer, resources: [{ resource: issuer, name: 'Gatehouse APIs', scopes: DEFAULT_SCOPES.map((entry) => entry.scope) }] } });
    const token = await h.tokenFor(h.admin);

    const challenge = await h.http.get('/auth/identity/v1/Users/me').expect(401);
    expect(challenge.headers['www-authenticate']).toBe('Bearer realm="gatehouse", resource_metadata="http://localhost:3000/.well-known/oauth-protected-resource/auth"');
    const metadata = await h.http.get('/.well-known/oauth-protected-resource/auth').expect(200);
    expect(metadata.body).toMatchObject({ resource: issuer, authorization_servers: [issuer] });
    expect((await h.http.get('/auth/identity/v1/Users/me').set(bearer(token)).expect(200)).body).toMatchObject({ userName: 'ada@example.com' });
    expect((await h.http.get('/auth/openapi.json').expect(200)).body).toMatchObject({ openapi: expect.stringMatching(/^3\.1/) });
    // A new attribute's Location is under the issuer's path too, and reads it back.
    const created = await h.http.post(`/auth/admin/rest/v1/accounts/${h.account.accountKey}/attributes`).set(bearer(token)).send({ name: 'department' }).expect(201);
    expect(created.headers.location).toBe(`/auth/admin/rest/v1/accounts/${h.account.accountKey}/attributes/${created.body.key as string}`);
    expect((await h.http.get(created.headers.location as string).set(bearer(token)).expect(200)).body).toEqual(created.body);

    // Nothing of them outside the issuer's path, where the resource identifier would not cover them.
    const outside = await h.http.get('/identity/v1/Users/me').set(bearer(token)).set('Accept', 'application/json');
    expect(outside.status).toBe(404);
    expect(outside.headers['www-authenticate']).toBeUndefined();
    expect((await h.http.get('/openapi.json').set('Accept', 'application/json')).status).toBe(404);
  });

  it('an unexpected error: a page without any detail; the detail only in the log', async () => {
    const t = await createTestApp({ extraRouters: () => [failingRouter()] });
    const page = await request(t.app).get('/boom').set('Accept', 'text/html');
    expect(page.status).toBe(500);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).not.toContain('hunter2');
    expect(page.text).not.toMatch(/at .*\.ts:\d+/);
    const api = await request(t.app).get('/boom').set('Accept', 'application/json');
    expect(api.status).toBe(500);
    expect(api.body).toMatchObject({ status: 500, errorCode: 'INTERNAL' });
    expect(api.text).not.toContain('hunter2');
    const logged = t.logger.lines.filter((line) => line.level === 'error');
    expect(logged.length).toBe(2);
    expect(t.logger.text()).toContain('hunter2');
    expect((logged[0]?.obj as { reqId?: string }).reqId).toBe(page.headers['x-request-id']);
  });

  it('an unexpected error in the token endpoint is {"error":"server_error"} JSON', async () => {
    const t = await createTestApp();
    const user = await t.seedUser();
    const { client, clientSecret } = await t.seedClient();
    const { refresh_token } = await t.obtainTokens({ client, user });
    // Break the storage under the endpoint.
    t.repositories.refreshTokens.findWithGrant = async () => {
      throw new Error('disk on fire');
    };
    t.repositories.refreshTokens.findWithGrantAndOwnerEmail = async () => {
      throw new Error('disk on fire');
    };
    const res = await request(t.app).post('/oauth/token').auth(client.clientId, clientSecret).type('form').send({ grant_type: 'refresh_token', refresh_token });
    expect(res.status).toBe(500);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body.error).toBe('server_error');
    expect(res.text).not.toContain('disk on fire');
    expect(t.logger.text()).toContain('disk on fire');
  });

  it('no secret, code, token or password ever reaches a log line', async () => {
    const t = await createTestApp();
    await t.seedUser({ email: 'ada@example.com', password: 'correct horse battery' });
    const { client, clientSecret } = await t.seedClient();
    const { body, browser } = await t.tokensOverHttp({ client, clientSecret, email: 'ada@example.com', password: 'correct horse battery', extra: { state: 'state-value-42' } });
    await request(t.app).post('/oauth/token').auth(client.clientId, clientSecret).type('form').send({ grant_type: 'refresh_token', refresh_token: body.refresh_token as string }).expect(200);
    await request(t.app).post('/oauth/token').auth(client.clientId, 'wrong-secret-value').type('form').send({ grant_type: 'refresh_token', refresh_token: body.refresh_token as string }).expect(401);
    await request(t.app).post('/oauth/introspect').auth(client.clientId, clientSecret).type('form').send({ token: body.access_token as string }).expect(200);
    const sessionToken = browser.sessionToken();
    const { code } = await browser.authorize(client);
    await browser.signIn('ada@example.com', 'wrong password attempt');
    await browser.postForm('/oauth/logout', {});
    const text = t.logger.text();
    expect(t.logger.lines.length).toBeGreaterThan(5);
    for (const secret of [clientSecret, body.access_token, body.refresh_token, 'correct horse battery', 'wrong-secret-value', 'wrong password attempt', 'state-value-42', browser.csrfToken(), sessionToken, code]) {
      expect(text).not.toContain(secret as string);
    }
  });
});
