import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMemoryUserDirectory, createTestGatehouse, type TestGatehouse } from '@gatehouse/core/testing';
import express from 'express';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setSessionCookie } from '../security/session.js';
import { findChromium } from '../test-support/chromium.js';
import { completeGatehouseLogin } from './host-login.js';
import { createGatehouseRouter } from './router.js';

// Issue #30, item 1 (docs/decisions/0141): a host with helmet's default CSP, whose
// `form-action 'self'` Chromium applies to every redirect after a form POST. The hand-off from the
// host's login form must still reach the client's redirect URI when the consent is remembered.

/** The Content-Security-Policy helmet 8 sets by default (helmet.contentSecurityPolicy.getDefaultDirectives()). */
const HELMET_DEFAULT_CSP =
  "default-src 'self';base-uri 'self';font-src 'self' https: data:;form-action 'self';frame-ancestors 'self';img-src 'self' data:;" +
  "object-src 'none';script-src 'self';script-src-attr 'none';style-src 'self' https: 'unsafe-inline';upgrade-insecure-requests";

const ada = { userKey: 'host-ada', email: 'ada@host.example', givenName: 'Ada', familyName: 'Lovelace' };

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('a host with helmet\'s default CSP and its own brand, in headless Chromium', () => {
  let browser: Browser;
  let origin: string;
  let clientOrigin: string;
  let t: TestGatehouse;
  const servers: Server[] = [];

  beforeAll(async () => {
    const clientApp = express();
    clientApp.get('/callback', (_req, res) => void res.type('text/plain').send('callback reached'));
    servers.push(createServer(clientApp));
    clientOrigin = await listen(servers[0] as Server);

    const server = createServer();
    servers.push(server);
    origin = await listen(server);
    t = await createTestGatehouse({ userDirectory: createMemoryUserDirectory([ada]), settings: { issuer: `${origin}/auth` } });
    const host = express();
    // helmet() first, as hosts do: every answer carries its CSP (Gatehouse's pages put their own).
    host.use((_req, res, next) => {
      res.setHeader('Content-Security-Policy', HELMET_DEFAULT_CSP);
      next();
    });
    host.use(express.urlencoded({ extended: false }));
    // The host's brand too (docs/decisions/0142): its logo must load under Gatehouse's page CSP.
    host.use('/auth', createGatehouseRouter({ gatehouse: t.gatehouse, loginUrl: '/login', branding: { productName: 'Orders', logoUrl: '/static/logo.svg', accentColor: '#0a7f5a' } }));
    host.get('/static/logo.svg', (_req, res) => void res.type('image/svg+xml').send('<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24"><rect width="24" height="24" fill="#0a7f5a"/></svg>'));
    // The host's login page: one button standing for its own password check.
    host.get('/login', (req, res) => {
      const loginRequest = String(req.query.login_request);
      res.type('html').send(`<!doctype html><title>Host sign-in</title>
<form method="post" action="/login"><input type="hidden" name="login_request" value="${encodeURIComponent(loginRequest)}"><button type="submit">Sign in as Ada</button></form>
<form method="post" action="/login-redirecting"><input type="hidden" name="login_request" value="${encodeURIComponent(loginRequest)}"><button type="submit">Sign in the old way</button></form>`);
    });
    host.post('/login', async (req, res) => {
      await completeGatehouseLogin(t.gatehouse, res, { loginRequest: String(req.body.login_request), userKey: ada.userKey, authenticatedAt: t.gatehouse.clock.now() });
    });
    // The control: the same hand-off answered with a redirect, what Chromium blocks.
    host.post('/login-redirecting', async (req, res) => {
      const { sessionToken, redirectTo } = await t.gatehouse.completeLogin({ loginRequest: String(req.body.login_request), userKey: ada.userKey, authenticatedAt: t.gatehouse.clock.now() });
      setSessionCookie(res, t.gatehouse.settings.issuer, sessionToken);
      res.redirect(303, redirectTo);
    });
    server.on('request', host);
    browser = await chromium.launch({ executablePath: findChromium(), args: ['--headless', '--no-sandbox', '--disable-gpu'], headless: true });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    for (const server of servers) await new Promise<void>((resolve) => server.close(() => resolve()));
  }, 60_000);

  async function authorizeUrl(state: string): Promise<string> {
    const { client } = await t.seedClient({ name: 'Orders app', redirectUris: [`${clientOrigin}/callback`], scopes: ['messaging.v1.read'] });
    const url = new URL(`${origin}/auth/oauth/authorize`);
    url.search = new URLSearchParams({ client_id: client.clientId, response_type: 'code', redirect_uri: `${clientOrigin}/callback`, scope: 'messaging.v1.read', state }).toString();
    return url.toString();
  }

  /** Goes through the host's login (a fresh browser: no Gatehouse session) by the form `button`; where the browser ends up. */
  async function signInThroughTheHost(url: string, button: string, until: (page: Page) => Promise<unknown>): Promise<{ page: Page; violations: string[]; close: () => Promise<void> }> {
    const context = await browser.newContext();
    const page = await context.newPage();
    const violations: string[] = [];
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) violations.push(message.text());
    });
    await page.goto(url);
    expect(new URL(page.url()).pathname).toBe('/login');
    await Promise.all([until(page), page.click(`button:has-text("${button}")`)]);
    return { page, violations, close: () => context.close() };
  }

  it('the first sign-in shows the consent page; with the consent remembered, the next sign-in lands on the redirect URI', async () => {
    const url = await authorizeUrl('first');
    const first = await signInThroughTheHost(url, 'Sign in as Ada', (page) => page.waitForSelector('button[name="decision"][value="allow"]'));
    try {
      // The consent page wears the host's brand: its name, its logo (loaded), its accent colour.
      expect(await first.page.title()).toBe('Allow Orders app? · Orders');
      expect(await first.page.evaluate<boolean>(`(() => { const logo = document.querySelector('header img.logo'); return logo.complete && logo.naturalWidth > 0; })()`)).toBe(true);
      expect(await first.page.evaluate<string>(`getComputedStyle(document.querySelector('button[value="allow"]')).backgroundColor`)).toBe('rgb(10, 127, 90)');
      expect(first.violations).toEqual([]);
      await Promise.all([first.page.waitForURL((landed) => landed.origin === clientOrigin), first.page.click('button[name="decision"][value="allow"]')]);
      expect(await first.page.textContent('body')).toContain('callback reached');
    } finally {
      await first.close();
    }

    // A new browser (no Gatehouse session), the consent remembered: login POST → authorize → redirect URI.
    const again = await signInThroughTheHost(url.replace('state=first', 'state=again'), 'Sign in as Ada', (page) =>
      page.waitForURL((landed) => landed.origin === clientOrigin, { timeout: 20_000 }),
    );
    try {
      const landed = new URL(again.page.url());
      expect(landed.pathname).toBe('/callback');
      expect(landed.searchParams.get('state')).toBe('again');
      expect(landed.searchParams.get('code')).toMatch(/^[0-9A-Za-z]{8}_[A-Za-z0-9]{43,}$/);
      expect(again.violations).toEqual([]);
    } finally {
      await again.close();
    }
  }, 90_000);

  it('the control: the same hand-off answered with a redirect is blocked by form-action in this very setup', async () => {
    const url = await authorizeUrl('control');
    const first = await signInThroughTheHost(url, 'Sign in as Ada', (page) => page.waitForSelector('button[name="decision"][value="allow"]'));
    await Promise.all([first.page.waitForURL((landed) => landed.origin === clientOrigin), first.page.click('button[name="decision"][value="allow"]')]);
    await first.close();

    const blocked = await signInThroughTheHost(url, 'Sign in the old way', (page) => page.waitForEvent('console', (message) => message.text().includes("form-action 'self'")));
    try {
      expect(new URL(blocked.page.url()).origin).toBe(origin);
      expect(blocked.violations.join('\n')).toContain("form-action 'self'");
    } finally {
      await blocked.close();
    }
  }, 90_000);
});
