import { createTestGatehouse } from '@gatehouse/core/testing';
import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createGatehouseApp } from '../app.js';
import { createGatehouseRouter } from './router.js';
import { exchangeCode, createHostApp, createRecordingLogger, csrfFieldOf, HOST_ORIGIN, linksOf } from '../test-support/index.js';

const ISSUER = `${HOST_ORIGIN}/auth`;

async function setup() {
  const host = await createHostApp();
  await host.seedUser({ email: 'ada@example.com' });
  const { client, clientSecret } = await host.seedClient({ scopes: ['messaging.v1.send'] });
  return { host, client, clientSecret };
}

function expectUnderAuth(html: string) {
  const links = linksOf(html);
  expect(links.length).toBeGreaterThan(0);
  for (const link of links) expect(link).toMatch(/^\/auth\//);
}

describe('Gatehouse mounted at /auth in a host application', () => {
  it('runs authorize → login → consent → code → token entirely under /auth', async () => {
    const { host, client, clientSecret } = await setup();
    const browser = host.agent();
    const query = new URLSearchParams({ client_id: client.clientId, response_type: 'code', redirect_uri: client.redirectUris[0] as string, state: 's1' });

    const authorize = await browser.get(`/auth/oauth/authorize?${query}`);
    expect(authorize.status).toBe(302);
    const toLogin = authorize.headers.location as string;
    expect(toLogin).toBe(`/auth/oauth/login?${new URLSearchParams({ return_to: `/auth/oauth/authorize?${query}` })}`);

    const loginPage = await browser.get(toLogin);
    expect(loginPage.status).toBe(200);
    expectUnderAuth(loginPage.text);
    expect(loginPage.text).toContain('<form method="post" action="/auth/oauth/login"');
    expect(loginPage.text).toContain('<link rel="stylesheet" href="/auth/assets/gatehouse.css">');

    const signIn = await browser
      .post('/auth/oauth/login')
      .type('form')
      .send({ csrf_token: csrfFieldOf(loginPage.text), email: 'ada@example.com', password: 'password123', return_to: `/auth/oauth/authorize?${query}` });
    expect(signIn.status).toBe(303);
    expect(signIn.headers.location).toBe(`/auth/oauth/authorize?${query}`);

    const consent = await browser.get(signIn.headers.location as string);
    expect(consent.status).toBe(200);
    expectUnderAuth(consent.text);
    const action = linksOf(consent.text).find((link) => link.startsWith('/auth/oauth/authorize/decision?')) as string;
    expect(action).toBe(`/auth/oauth/authorize/decision?${query}`);
    expect(consent.text).toContain(`href="/auth/oauth/logout?${new URLSearchParams({ return_to: `/auth/oauth/authorize?${query}` }).toString().replace(/&/g, '&amp;')}"`);

    const allowed = await browser.post(action).type('form').send({ csrf_token: csrfFieldOf(consent.text), decision: 'allow' });
    expect(allowed.status).toBe(302);
    const back = new URL(allowed.headers.location as string);
    expect(back.searchParams.get('iss')).toBe(ISSUER);
    expect(back.searchParams.get('state')).toBe('s1');
    const code = back.searchParams.get('code') as string;

    const token = await exchangeCode(host.app, client, clientSecret, code, '/auth/oauth/token');
    expect(token.status).toBe(200);
    expect(token.body.principal).toBe('ada@example.com');
    const verified = await host.gatehouse.verifyAccessToken(token.body.access_token);
    expect(verified.clientId).toBe(client.clientId);

    const logoutForm = await browser.get('/auth/oauth/logout');
    expectUnderAuth(logoutForm.text);
    expect(logoutForm.text).toContain('<form method="post" action="/auth/oauth/logout">');
    const loggedOut = await browser.post('/auth/oauth/logout').type('form').send({ csrf_token: csrfFieldOf(logoutForm.text) });
    expect(loggedOut.status).toBe(200);
    expectUnderAuth(loggedOut.text);
    expect(loggedOut.text).toContain('href="/auth/oauth/login"');
  });

  it('goes back only to a same-origin path after sign-in: a foreign return_to ends on the login page under /auth', async () => {
    const { host } = await setup();
    for (const returnTo of ['//evil.example/x', 'https://evil.example/', '/\\evil.example']) {
      const browser = host.agent();
      const page = await browser.get('/auth/oauth/login');
      const res = await browser.post('/auth/oauth/login').type('form').send({ csrf_token: csrfFieldOf(page.text), email: 'ada@example.com', password: 'password123', return_to: returnTo });
      expect({ returnTo, status: res.status, location: res.headers.location }).toEqual({ returnTo, status: 303, location: '/auth/oauth/login' });
    }
  });

  it('serves the stylesheet under /auth, not at the root', async () => {
    const { host } = await setup();
    const css = await request(host.app).get('/auth/assets/gatehouse.css');
    expect(css.status).toBe(200);
    expect(css.headers['content-type']).toMatch(/^text\/css/);
    const root = await request(host.app).get('/assets/gatehouse.css');
    expect(root.status).toBe(404);
    expect(root.text).toBe('host 404');
  });

  it('sends a signed-in browser with nowhere to go to the login page under /auth, and error pages link under /auth', async () => {
    const { host, client } = await setup();
    const browser = host.agent();
    const loginPage = await browser.get('/auth/oauth/login');
    const signIn = await browser.post('/auth/oauth/login').type('form').send({ csrf_token: csrfFieldOf(loginPage.text), email: 'ada@example.com', password: 'password123' });
    expect(signIn.headers.location).toBe('/auth/oauth/login');
    const signedIn = await browser.get('/auth/oauth/login');
    expectUnderAuth(signedIn.text);
    const unknownClient = await browser.get('/auth/oauth/authorize?client_id=nobody&response_type=code');
    expect(unknownClient.status).toBe(400);
    expectUnderAuth(unknownClient.text);
    const withoutCsrf = await browser.post(`/auth/oauth/authorize/decision?client_id=${client.clientId}&response_type=code`).type('form').send({ decision: 'allow' });
    expect(withoutCsrf.status).toBe(403);
    expectUnderAuth(withoutCsrf.text);
    expect(withoutCsrf.text).toContain(`href="/auth/oauth/authorize?client_id=${client.clientId}&amp;response_type=code"`);
  });

  it('publishes RFC 8414 §3.1 metadata at /.well-known/oauth-authorization-server/auth with every URL under the issuer', async () => {
    const { host } = await setup();
    const res = await request(host.app).get('/.well-known/oauth-authorization-server/auth');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body.issuer).toBe(ISSUER);
    expect(res.body.authorization_endpoint).toBe(`${ISSUER}/oauth/authorize`);
    expect(res.body.token_endpoint).toBe(`${ISSUER}/oauth/token`);
    expect(res.body.jwks_uri).toBe(`${ISSUER}/oauth/jwks`);
    expect(res.body.revocation_endpoint).toBe(`${ISSUER}/oauth/revoke`);
    expect(res.body.introspection_endpoint).toBe(`${ISSUER}/oauth/introspect`);
    const jwks = await request(host.app).get(new URL(res.body.jwks_uri as string).pathname);
    expect(jwks.status).toBe(200);
    expect(Array.isArray(jwks.body.keys)).toBe(true);
    // The root well-known path belongs to an issuer without a path: not this one.
    expect((await request(host.app).get('/.well-known/oauth-authorization-server')).text).toBe('host 404');
  });

  it('lets the host answer every path it owns: routes after the mount, its 404 and its error handler', async () => {
    const { host } = await setup();
    const orders = await request(host.app).get('/orders');
    expect(orders.status).toBe(200);
    expect(orders.body).toEqual({ orders: ['o-1'] });
    for (const path of ['/auth/nothing', '/identity/v1/Users/me', '/messaging/v1/sms', '/admin/rest/v1/accounts/a', '/portal', '/openapi.json', '/oauth/authorize']) {
      const res = await request(host.app).get(path);
      expect({ path, status: res.status, text: res.text }).toEqual({ path, status: 404, text: 'host 404' });
    }
    const failed = await request(host.app).get('/fails');
    expect(failed.status).toBe(500);
    expect(failed.text).toBe('host 500');
    expect(orders.headers['content-security-policy']).toBeUndefined();
  });

  it('logs its requests with their full path, and only its own', async () => {
    const logger = createRecordingLogger();
    const host = await createHostApp({ routerOptions: { logger } });
    await request(host.app).get('/auth/oauth/login').expect(200);
    await request(host.app).get('/orders').expect(200);
    expect(logger.lines.map((line) => [line.msg, (line.obj as { path?: string }).path])).toEqual([['request', '/auth/oauth/login']]);
  });

  it('puts its security headers and a request id on its own answers only', async () => {
    const { host } = await setup();
    const page = await request(host.app).get('/auth/oauth/login');
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['x-request-id']).toMatch(/./);
    const own = await request(host.app).get('/orders');
    expect(own.headers['x-frame-options']).toBeUndefined();
    expect(own.headers['x-request-id']).toBeUndefined();
  });
});

describe('Gatehouse mounted at the root of a host application (issuer without a path)', () => {
  it('serves its endpoints and metadata, and lets every other path through to the host', async () => {
    const t = await createTestGatehouse({ settings: { issuer: 'https://orders.example' } });
    const app = express();
    app.use(createGatehouseRouter({ gatehouse: t.gatehouse }));
    app.get('/orders', (_req, res) => void res.json({ orders: [] }));
    app.use((_req: express.Request, res: express.Response) => void res.status(404).send('host 404'));
    const metadata = await request(app).get('/.well-known/oauth-authorization-server');
    expect(metadata.status).toBe(200);
    expect(metadata.body.token_endpoint).toBe('https://orders.example/oauth/token');
    expect((await request(app).get('/orders')).body).toEqual({ orders: [] });
    expect((await request(app).get('/oauth/nothing')).text).toBe('host 404');
    expect((await request(app).get('/identity/v1/Users/me')).text).toBe('host 404');
    const token = await request(app).get('/oauth/token');
    expect(token.status).toBe(405);
    expect(token.body.error).toBe('invalid_request');
  });
});

describe('createGatehouseApp with an issuer that has a path', () => {
  it('serves Gatehouse under the issuer path and the RFC 8414 §3.1 metadata at the root', async () => {
    const t = await createTestGatehouse({ settings: { issuer: 'https://auth.example/id' } });
    const app = createGatehouseApp({ gatehouse: t.gatehouse, product: t.product });
    const metadata = await request(app).get('/.well-known/oauth-authorization-server/id');
    expect(metadata.status).toBe(200);
    expect(metadata.body.authorization_endpoint).toBe('https://auth.example/id/oauth/authorize');
    const login = await request(app).get('/id/oauth/login');
    expect(login.status).toBe(200);
    expect(login.text).toContain('action="/id/oauth/login"');
    const token = await request(app).post('/id/oauth/token').type('form').send({ grant_type: 'client_credentials' });
    expect(token.status).toBe(401);
    expect(token.body.error).toBe('invalid_client');
  });
});
