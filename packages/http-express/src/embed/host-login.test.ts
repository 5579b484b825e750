import { DomainError, type PasswordCheck } from '@gatehouse/core';
import { createMemoryUserDirectory, type TestGatehouse } from '@gatehouse/core/testing';
import type express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { allowOnConsentPage, basicAuth, exchangeCode, createHostApp, csrfFieldOf, onwardOf } from '../test-support/index.js';
import { completeGatehouseConsent, completeGatehouseLogin, logoutGatehouseUser } from './host-login.js';

/** The orders service's own users: its key, login and password (Gatehouse owns none of them). */
const ORDERS_USERS = [{ userKey: 'ord-7', email: 'ada@orders.example', givenName: 'Ada', familyName: 'Lovelace', password: 'orders-secret' }];

function ordersLogin(login: unknown, password: unknown): string | undefined {
  return ORDERS_USERS.find((user) => user.email === login && user.password === password)?.userKey;
}

/** The host's own login, consent and logout pages, the way an embedder writes them. */
function hostPages(app: express.Express, t: TestGatehouse) {
  app.get('/login', (req, res) => {
    const loginRequest = String(req.query.login_request ?? '');
    res.type('html').send(`<form method="post" action="/login"><input type="hidden" name="login_request" value="${encodeURIComponent(loginRequest)}"></form>`);
  });
  app.post('/login', async (req, res) => {
    const body = req.body as Record<string, string>;
    const userKey = ordersLogin(body.username, body.password);
    if (userKey === undefined) return void res.status(401).send('wrong');
    try {
      await completeGatehouseLogin(t.gatehouse, res, { loginRequest: body.login_request ?? '', userKey, authenticatedAt: t.gatehouse.clock.now() });
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      res.status(400).type('text/plain').send(`refused: ${error.kind}`);
    }
  });
  app.get('/consent', async (req, res) => {
    const details = await t.gatehouse.describeConsentRequest(String(req.query.consent_request ?? ''));
    if (!details) return void res.status(400).send('no such consent request');
    res.json(details);
  });
  app.post('/consent', async (req, res) => {
    const body = req.body as Record<string, string>;
    try {
      await completeGatehouseConsent(t.gatehouse, res, { consentRequest: body.consent_request ?? '', decision: body.decision === 'allow' ? 'allow' : 'deny' });
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      res.status(400).type('text/plain').send(`refused: ${error.kind}`);
    }
  });
  app.post('/logout', async (req, res) => {
    const ended = await logoutGatehouseUser(t.gatehouse, res, (req.body as Record<string, string>).user ?? '');
    res.json({ sessions: ended.endedSessionIds.length, grants: ended.revokedGrantIds.length });
  });
}

async function setup(routerOptions: { loginUrl?: string; consentUrl?: string } = { loginUrl: '/login' }, passwordCheck?: PasswordCheck) {
  const userDirectory = createMemoryUserDirectory(ORDERS_USERS.map(({ password: _password, ...profile }) => profile));
  const host = await createHostApp({ routerOptions, gatehouse: { userDirectory, ...(passwordCheck === undefined ? {} : { passwordCheck }) }, beforeOwnRoutes: hostPages });
  const { client, clientSecret } = await host.seedClient({ scopes: ['messaging.v1.read'] });
  const query = new URLSearchParams({ client_id: client.clientId, response_type: 'code', redirect_uri: client.redirectUris[0] as string, state: 'xyz' }).toString();
  return { host, client, clientSecret, query, authorizePath: `/auth/oauth/authorize?${query}` };
}

function loginRequestOf(location: string): string {
  const url = new URL(location, 'http://127.0.0.1');
  expect(url.pathname).toBe('/login');
  return url.searchParams.get('login_request') as string;
}

describe('the host\'s own login page (loginUrl + completeGatehouseLogin)', () => {
  it('authorize → host login with a login request → complete → consent → allow → code → token', async () => {
    const { host, client, clientSecret, authorizePath } = await setup();
    const browser = host.agent();
    const authorize = await browser.get(authorizePath);
    expect(authorize.status).toBe(302);
    const loginRequest = loginRequestOf(authorize.headers.location as string);
    expect(loginRequest).toMatch(/^[A-Za-z0-9]{43}$/);

    const hostLogin = await browser.get(authorize.headers.location as string);
    expect(hostLogin.status).toBe(200);
    const completed = await browser.post('/login').type('form').send({ username: 'ada@orders.example', password: 'orders-secret', login_request: loginRequest });
    // A POST is answered with a page that moves on, not a redirect: a strict CSP's form-action
    // would block the chain in Chromium (docs/decisions/0141).
    expect(completed.status).toBe(200);
    expect(onwardOf(completed)).toBe(authorizePath);
    expect(completed.text).toContain(`<a href="${authorizePath.replace(/&/g, '&amp;')}">continue</a>`);
    expect(completed.headers['cache-control']).toBe('no-store');
    expect(completed.headers['content-security-policy']).toContain("script-src 'none'");
    expect(String(completed.headers['set-cookie'])).toMatch(/gatehouse_session=[A-Za-z0-9]{43}; Path=\/; HttpOnly; SameSite=Lax/);

    const consent = await browser.get(onwardOf(completed));
    expect(consent.status).toBe(200);
    expect(consent.text).toContain('ada@orders.example');
    const allowed = await allowOnConsentPage(browser, consent.text);
    expect(allowed.status).toBe(302);
    const code = new URL(allowed.headers.location as string).searchParams.get('code') as string;

    const token = await exchangeCode(host.app, client, clientSecret, code, '/auth/oauth/token');
    expect(token.status).toBe(200);
    expect(token.body.principal).toBe('ada@orders.example');
    expect((await host.gatehouse.verifyAccessToken(token.body.access_token)).userKey).toBe('ord-7');
  });

  it('sends a signed-out browser to the host\'s login for an erroneous request too, never to the client (RFC 9700 §4.11.2)', async () => {
    const { host, client } = await setup();
    const query = new URLSearchParams({ client_id: client.clientId, response_type: 'code', redirect_uri: client.redirectUris[0] as string, scope: 'not.a.scope' }).toString();
    const res = await request(host.app).get(`/auth/oauth/authorize?${query}`);
    expect(res.status).toBe(302);
    expect(loginRequestOf(res.headers.location as string)).toMatch(/^[A-Za-z0-9]{43}$/);
  });

  it('sets the __Host- session cookie, Secure, for an https issuer', async () => {
    const userDirectory = createMemoryUserDirectory([{ userKey: 'ord-7', email: 'ada@orders.example', givenName: 'Ada', familyName: 'Lovelace' }]);
    const host = await createHostApp({ routerOptions: { loginUrl: '/login' }, gatehouse: { userDirectory, settings: { issuer: 'https://orders.example/auth' } }, beforeOwnRoutes: hostPages });
    const { loginRequest } = await host.gatehouse.startLogin({ returnTo: '/auth/oauth/authorize?client_id=x' });
    const res = await request(host.app).post('/login').type('form').send({ username: 'ada@orders.example', password: 'orders-secret', login_request: loginRequest });
    expect(res.status).toBe(200);
    expect(onwardOf(res)).toBe('/auth/oauth/authorize?client_id=x');
    expect(String(res.headers['set-cookie'])).toMatch(/__Host-gatehouse_session=[A-Za-z0-9]{43}; Path=\/; HttpOnly; Secure; SameSite=Lax/);
  });

  it('refuses a login request used twice', async () => {
    const { host, authorizePath } = await setup();
    const browser = host.agent();
    const loginRequest = loginRequestOf((await browser.get(authorizePath)).headers.location as string);
    const fields = { username: 'ada@orders.example', password: 'orders-secret', login_request: loginRequest };
    expect((await browser.post('/login').type('form').send(fields)).status).toBe(200);
    const again = await request(host.app).post('/login').type('form').send(fields);
    expect(again.status).toBe(400);
    expect(again.text).toBe('refused: not_found');
    expect(again.headers['set-cookie']).toBeUndefined();
  });

  it('refuses an expired login request', async () => {
    const { host, authorizePath } = await setup();
    const loginRequest = loginRequestOf((await request(host.app).get(authorizePath)).headers.location as string);
    host.clock.advance(600);
    const late = await request(host.app).post('/login').type('form').send({ username: 'ada@orders.example', password: 'orders-secret', login_request: loginRequest });
    expect(late.status).toBe(400);
    expect(late.text).toBe('refused: not_found');
  });

  it('ends Gatehouse\'s sessions and grants on the host\'s sign-out', async () => {
    const { host, client, clientSecret, authorizePath } = await setup();
    const browser = host.agent();
    const loginRequest = loginRequestOf((await browser.get(authorizePath)).headers.location as string);
    const completed = await browser.post('/login').type('form').send({ username: 'ada@orders.example', password: 'orders-secret', login_request: loginRequest });
    const consent = await browser.get(authorizePath);
    const allowed = await allowOnConsentPage(browser, consent.text);
    const code = new URL(allowed.headers.location as string).searchParams.get('code') as string;
    const token = await exchangeCode(host.app, client, clientSecret, code, '/auth/oauth/token');

    const logout = await browser.post('/logout').type('form').send({ user: 'ord-7' });
    expect(logout.body).toEqual({ sessions: 1, grants: 1 });
    expect(String(logout.headers['set-cookie'])).toMatch(/gatehouse_session=; Path=\/; Expires=Thu, 01 Jan 1970/);
    // docs/decisions/0021: the anonymous CSRF token is renewed at sign-out, as Gatehouse's own logout does.
    const renewed = /gatehouse_csrf=([A-Za-z0-9]{43}); Path=\/; HttpOnly; SameSite=Lax/.exec(String(logout.headers['set-cookie']))?.[1];
    expect(renewed).toBeDefined();
    expect(renewed).not.toBe(/gatehouse_csrf=([A-Za-z0-9]{43})/.exec(String(completed.headers['set-cookie']))?.[1]);
    const refreshed = await request(host.app)
      .post('/auth/oauth/token')
      .set('Authorization', basicAuth(client.clientId, clientSecret))
      .type('form')
      .send({ grant_type: 'refresh_token', refresh_token: token.body.refresh_token });
    expect(refreshed.status).toBe(400);
    expect(refreshed.body.error).toBe('invalid_grant');
    const again = await browser.get(authorizePath);
    expect(again.status).toBe(302);
    expect(new URL(again.headers.location as string, 'http://127.0.0.1').pathname).toBe('/login');
  });
});

describe('the host\'s own consent page (consentUrl + completeGatehouseConsent)', () => {
  it('sends the signed-in browser to the host with a consent request, then Allow gives a code', async () => {
    const { host, client, clientSecret, authorizePath } = await setup({ loginUrl: '/login', consentUrl: '/consent' });
    const browser = host.agent();
    const loginRequest = loginRequestOf((await browser.get(authorizePath)).headers.location as string);
    await browser.post('/login').type('form').send({ username: 'ada@orders.example', password: 'orders-secret', login_request: loginRequest });
    const toConsent = await browser.get(authorizePath);
    expect(toConsent.status).toBe(302);
    const consentUrl = new URL(toConsent.headers.location as string, 'http://127.0.0.1');
    expect(consentUrl.pathname).toBe('/consent');
    const consentRequest = consentUrl.searchParams.get('consent_request') as string;
    const details = await browser.get(toConsent.headers.location as string);
    expect(details.body).toEqual({ clientId: client.clientId, clientName: 'Test client', scopes: ['messaging.v1.read'], newScopes: [], redirectUri: client.redirectUris[0], userKey: 'ord-7', origin: { registration: 'static', loopbackRedirectsOnly: false }, presentation: { origin: { registration: 'static', loopbackRedirectsOnly: false }, registeredBy: { kind: 'operator' }, links: {}, firstParty: false } });

    const decided = await browser.post('/consent').type('form').send({ consent_request: consentRequest, decision: 'allow' });
    expect(decided.status).toBe(200);
    const back = new URL(onwardOf(decided));
    expect(back.searchParams.get('state')).toBe('xyz');
    const token = await request(host.app)
      .post('/auth/oauth/token')
      .set('Authorization', basicAuth(client.clientId, clientSecret))
      .type('form')
      .send({ grant_type: 'authorization_code', code: back.searchParams.get('code'), redirect_uri: client.redirectUris[0] });
    expect(token.status).toBe(200);
    expect(token.body.principal).toBe('ada@orders.example');

    const reused = await browser.post('/consent').type('form').send({ consent_request: consentRequest, decision: 'allow' });
    expect(reused.status).toBe(400);
    expect(reused.text).toBe('refused: not_found');
  });

  it('Deny sends access_denied to the client', async () => {
    const { host, authorizePath } = await setup({ loginUrl: '/login', consentUrl: '/consent?lang=en' });
    const browser = host.agent();
    const loginRequest = loginRequestOf((await browser.get(authorizePath)).headers.location as string);
    await browser.post('/login').type('form').send({ username: 'ada@orders.example', password: 'orders-secret', login_request: loginRequest });
    const consentUrl = new URL((await browser.get(authorizePath)).headers.location as string, 'http://127.0.0.1');
    expect(consentUrl.searchParams.get('lang')).toBe('en');
    const decided = await browser.post('/consent').type('form').send({ consent_request: consentUrl.searchParams.get('consent_request'), decision: 'deny' });
    expect(new URL(onwardOf(decided)).searchParams.get('error')).toBe('access_denied');
  });
});

describe('Gatehouse\'s login page with the host\'s password check', () => {
  it('signs the host\'s user in with the host\'s check, then consent and a code', async () => {
    const check: PasswordCheck = { verify: async (login, password) => ordersLogin(login, password) };
    const { host, authorizePath } = await setup({}, check);
    const browser = host.agent();
    const toLogin = await browser.get(authorizePath);
    expect(new URL(toLogin.headers.location as string, 'http://127.0.0.1').pathname).toBe('/auth/oauth/login');
    const page = await browser.get(toLogin.headers.location as string);
    const wrong = await browser.post('/auth/oauth/login').type('form').send({ csrf_token: csrfFieldOf(page.text), email: 'ada@orders.example', password: 'nope', return_to: authorizePath });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('The e-mail or password is not right.');
    const right = await browser.post('/auth/oauth/login').type('form').send({ csrf_token: csrfFieldOf(page.text), email: 'ada@orders.example', password: 'orders-secret', return_to: authorizePath });
    expect(right.status).toBe(303);
    expect(right.headers.location).toBe(authorizePath);
    const consent = await browser.get(authorizePath);
    expect(consent.status).toBe(200);
    expect(consent.text).toContain('Signed in as <strong>ada@orders.example</strong>');
  });
});

describe('remembered consent and prompt=login with the host\'s pages (docs/decisions/0095, 0096)', () => {
  async function signedInAndAllowed() {
    const s = await setup({ loginUrl: '/login', consentUrl: '/consent' });
    const browser = s.host.agent();
    const loginRequest = loginRequestOf((await browser.get(s.authorizePath)).headers.location as string);
    await browser.post('/login').type('form').send({ username: 'ada@orders.example', password: 'orders-secret', login_request: loginRequest });
    const toConsent = await browser.get(s.authorizePath);
    const consentRequest = new URL(toConsent.headers.location as string, 'http://127.0.0.1').searchParams.get('consent_request');
    expect((await browser.post('/consent').type('form').send({ consent_request: consentRequest, decision: 'allow' })).status).toBe(200);
    return { ...s, browser };
  }

  it('a remembered consent skips the host\'s consent page: the next request gets a code at once', async () => {
    const { browser, authorizePath, client } = await signedInAndAllowed();
    const again = await browser.get(authorizePath);
    expect(again.status).toBe(302);
    const back = new URL(again.headers.location as string);
    expect(`${back.origin}${back.pathname}`).toBe(client.redirectUris[0]);
    expect(back.searchParams.get('code')).toMatch(/^[0-9A-Za-z]{8}_[A-Za-z0-9]{43,}$/);
    expect(back.searchParams.get('state')).toBe('xyz');
  });

  it('prompt=login sends a signed-in browser to the host\'s login again, and goes on after it', async () => {
    const { browser, query, client } = await signedInAndAllowed();
    const first = await browser.get(`/auth/oauth/authorize?${query}&prompt=login`);
    expect(first.status).toBe(302);
    const loginRequest = loginRequestOf(first.headers.location as string);
    const signedIn = await browser.post('/login').type('form').send({ username: 'ada@orders.example', password: 'orders-secret', login_request: loginRequest });
    expect(signedIn.status).toBe(200);
    const returnTo = onwardOf(signedIn);
    expect(returnTo).toMatch(/^\/auth\/oauth\/authorize\?.*&prompt=login&gatehouse_reauthentication=[A-Za-z0-9]{43,}$/);
    const done = await browser.get(returnTo);
    expect(done.status).toBe(302);
    const back = new URL(done.headers.location as string);
    expect(`${back.origin}${back.pathname}`).toBe(client.redirectUris[0]);
    expect(back.searchParams.get('code')).toMatch(/^[0-9A-Za-z]{8}_[A-Za-z0-9]{43,}$/);
  });

  it('prompt=login and prompt=consent: the fresh sign-in goes to the host\'s consent page once; the same URL again asks for a sign-in (docs/decisions/0202)', async () => {
    const { browser, query } = await signedInAndAllowed();
    const first = await browser.get(`/auth/oauth/authorize?${query}&prompt=login%20consent`);
    const loginRequest = loginRequestOf(first.headers.location as string);
    const returnTo = onwardOf(await browser.post('/login').type('form').send({ username: 'ada@orders.example', password: 'orders-secret', login_request: loginRequest }));
    const toConsent = await browser.get(returnTo);
    expect(toConsent.status).toBe(302);
    expect(new URL(toConsent.headers.location as string, 'http://127.0.0.1').pathname).toBe('/consent');
    const reloaded = await browser.get(returnTo);
    expect(reloaded.status).toBe(302);
    expect(new URL(reloaded.headers.location as string, 'http://127.0.0.1').pathname).toBe('/login');
  });
});
