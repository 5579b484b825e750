import { createMemoryUserDirectory, type TestGatehouse } from '@gatehouse/core/testing';
import type express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import type { GatehouseRouterOptions } from '../options.js';
import { createHostApp, createTestApp, csrfFieldOf, linksOf, onwardOf } from '../test-support/index.js';
import { completeGatehouseLogin } from './host-login.js';
import { createGatehouseRouter } from './router.js';

// Issue #30, item 2 (docs/decisions/0142): with the host signing users in, every link of
// Gatehouse's pages leads somewhere that works, the wording follows what is mounted, and the
// pages wear the host's brand.

const ada = { userKey: 'host-ada', email: 'ada@host.example', givenName: 'Ada', familyName: 'Lovelace' };

/** The host's pages: its login (which hands the user to Gatehouse), sign-out and switch-account. */
function hostPages(app: express.Express, t: TestGatehouse): void {
  app.get('/login', (_req, res) => void res.type('html').send('<h1>The host signs you in</h1>'));
  app.post('/login', async (req, res) => {
    await completeGatehouseLogin(t.gatehouse, res, { loginRequest: String((req.body as Record<string, string>).login_request), userKey: ada.userKey, authenticatedAt: t.gatehouse.clock.now() });
  });
  app.get('/logout', (_req, res) => void res.type('html').send('<h1>The host signs you out</h1>'));
  app.get('/switch', (_req, res) => void res.type('html').send('<h1>The host switches accounts</h1>'));
  app.get('/account/apps', (_req, res) => void res.type('html').send('<h1>The host lists your apps</h1>'));
}

async function aHost(routerOptions: Omit<GatehouseRouterOptions, 'gatehouse'> = {}) {
  const host = await createHostApp({ routerOptions: { loginUrl: '/login', ...routerOptions }, gatehouse: { userDirectory: createMemoryUserDirectory([ada]) }, beforeOwnRoutes: hostPages });
  const { client } = await host.seedClient({ name: 'Orders app', scopes: ['messaging.v1.read'] });
  const authorizePath = `/auth/oauth/authorize?${new URLSearchParams({ client_id: client.clientId, response_type: 'code', redirect_uri: client.redirectUris[0] as string, state: 's1' })}`;
  /** Signs Ada in through the host and returns the consent page Gatehouse then shows. */
  const consentPage = async (browser = host.agent()) => {
    const toLogin = await browser.get(authorizePath);
    const loginRequest = new URL(toLogin.headers.location as string, 'http://127.0.0.1').searchParams.get('login_request') as string;
    const handedBack = await browser.post('/login').type('form').send({ login_request: loginRequest });
    const consent = await browser.get(onwardOf(handedBack));
    expect(consent.status).toBe(200);
    return { browser, html: consent.text };
  };
  return { host, client, authorizePath, consentPage };
}

/** Every link and form action of a page leads somewhere that answers (no 4xx, no 5xx). */
async function expectEveryLinkWorks(browser: ReturnType<typeof request.agent>, html: string): Promise<void> {
  for (const link of linksOf(html)) {
    if (link.startsWith('/auth/oauth/authorize/decision')) continue; // the form's POST, tried by the flows
    const answer = await browser.get(link);
    expect(answer.status, link).toBeLessThan(400);
  }
}

describe("Gatehouse's login page when the host signs users in (loginUrl)", () => {
  it('is not served: a browser goes to the host\'s login, an authorization request by way of the authorize endpoint', async () => {
    const { host, authorizePath } = await aHost();
    const plain = await request(host.app).get('/auth/oauth/login');
    expect(plain.status).toBe(302);
    expect(plain.headers.location).toBe('/login');
    expect(plain.text).not.toContain('password');

    const forRequest = await request(host.app).get(`/auth/oauth/login?${new URLSearchParams({ return_to: authorizePath })}`);
    expect(forRequest.headers.location).toBe(authorizePath);
    const toHost = await request(host.app).get(authorizePath);
    expect(new URL(toHost.headers.location as string, 'http://127.0.0.1').pathname).toBe('/login');
    expect(new URL(toHost.headers.location as string, 'http://127.0.0.1').searchParams.get('login_request')).toMatch(/^[A-Za-z0-9]{43}$/);
    // A return_to elsewhere is not followed: the host's login.
    expect((await request(host.app).get('/auth/oauth/login?return_to=/auth/portal/clients')).headers.location).toBe('/login');
  });

  it('checks no password and starts no session when a form is posted to it anyway', async () => {
    const { host } = await aHost();
    const posted = await request(host.app).post('/auth/oauth/login').type('form').send({ email: ada.email, password: 'anything', csrf_token: 'x' });
    expect(posted.status).toBe(303);
    expect(posted.headers.location).toBe('/login');
    expect(String(posted.headers['set-cookie'] ?? '')).not.toContain('gatehouse_session');
  });

  it('the reference setup (no loginUrl) still serves the form', async () => {
    const t = await createTestApp();
    const page = await request(t.app).get('/oauth/login');
    expect(page.status).toBe(200);
    expect(page.text).toContain('name="password"');
  });
});

describe("the consent page's links when the host signs users in", () => {
  it('without signOutUrl or switchAccountUrl: no "Not you?" link, no "Authorized apps", and every link works', async () => {
    const { consentPage } = await aHost();
    const { browser, html } = await consentPage();
    expect(html).not.toContain('Not you?');
    expect(linksOf(html).filter((link) => link.includes('/oauth/logout'))).toEqual([]);
    expect(html).not.toContain('Authorized apps');
    expect(html).not.toContain('withdraw');
    await expectEveryLinkWorks(browser, html);
  });

  it('with signOutUrl: "Not you? Sign out" leads to the host\'s sign-out', async () => {
    const { consentPage } = await aHost({ signOutUrl: '/logout' });
    const { browser, html } = await consentPage();
    expect(html).toContain('Not you? <a href="/logout">Sign out</a>.');
    expect(html).toContain('You can withdraw this access later by signing out.');
    await expectEveryLinkWorks(browser, html);
  });

  it('with switchAccountUrl: "Not you? Use another account" leads to the host\'s page with return_to, the request', async () => {
    const { consentPage, authorizePath } = await aHost({ signOutUrl: '/logout', switchAccountUrl: '/switch' });
    const { browser, html } = await consentPage();
    const switchLink = linksOf(html).find((link) => link.startsWith('/switch')) as string;
    expect(new URL(switchLink, 'http://127.0.0.1').searchParams.get('return_to')).toBe(authorizePath);
    expect(html).toContain('>Use another account</a>');
    expect(html).not.toContain('>Sign out</a>');
    await expectEveryLinkWorks(browser, html);
  });

  it('with authorizedAppsUrl: names "Authorized apps" and links it', async () => {
    const { consentPage } = await aHost({ authorizedAppsUrl: '/account/apps' });
    const { browser, html } = await consentPage();
    expect(html).toContain('You can withdraw this access later under <a href="/account/apps">Authorized apps</a>.');
    await expectEveryLinkWorks(browser, html);
  });

  it("refuses a link option that is not a path or an http(s) URL, at start-up", async () => {
    const { host } = await aHost();
    expect(() => createGatehouseRouter({ gatehouse: host.gatehouse, signOutUrl: 'javascript:alert(1)' })).toThrow(/signOutUrl must be a path/);
    expect(() => createGatehouseRouter({ gatehouse: host.gatehouse, switchAccountUrl: '//evil.example/x' })).toThrow(/switchAccountUrl/);
    expect(() => createGatehouseRouter({ gatehouse: host.gatehouse, authorizedAppsUrl: '/apps"><script>' })).toThrow(/authorizedAppsUrl/);
  });
});

describe("the consent page of Gatehouse's own sign-in", () => {
  it('keeps "Not you? Sign out" (Gatehouse\'s, back to the request); the reference app names its "Authorized apps"', async () => {
    const t = await createTestApp();
    const user = await t.seedUser({ email: 'grace@example.com', password: 'correct horse battery' });
    const { client } = await t.seedClient({ scopes: ['messaging.v1.read'] });
    const browser = request.agent(t.app);
    const authorizePath = `/oauth/authorize?${new URLSearchParams({ client_id: client.clientId, response_type: 'code', redirect_uri: client.redirectUris[0] as string })}`;
    const loginPage = await browser.get(`/oauth/login?${new URLSearchParams({ return_to: authorizePath })}`);
    await browser.post('/oauth/login').type('form').send({ csrf_token: csrfFieldOf(loginPage.text), email: user.email, password: 'correct horse battery', return_to: authorizePath });
    const consent = await browser.get(authorizePath);
    expect(consent.status).toBe(200);
    expect(linksOf(consent.text)).toContain(`/oauth/logout?${new URLSearchParams({ return_to: authorizePath })}`);
    expect(consent.text).toContain('You can withdraw this access later by signing out or under <a href="/portal/authorized-apps">Authorized apps</a>.');
  });
});

describe("the host's brand on Gatehouse's pages", () => {
  it('shows the product name, the logo and the accent colour', async () => {
    const { host, consentPage } = await aHost({ branding: { productName: 'Orders & Co', logoUrl: '/static/logo.svg', accentColor: '#0a7' } });
    const { html } = await consentPage();
    expect(html).toContain('<title>Allow Orders app? · Orders &amp; Co</title>');
    expect(html).toContain('<span class="brand"><img class="logo" src="/static/logo.svg" alt="">Orders &amp; Co</span>');
    expect(html).not.toContain('Gatehouse</span>');
    const stylesheet = await request(host.app).get('/auth/assets/gatehouse.css');
    expect(stylesheet.text).toContain(':root { --accent: #0a7; }');
    // Gatehouse's own pages under the router (an error page) wear it too.
    const error = await request(host.app).get('/auth/oauth/authorize?client_id=nobody');
    expect(error.text).toContain('Orders &amp; Co</span>');
  });

  it('without branding, the pages are Gatehouse\'s and the stylesheet unchanged', async () => {
    const { host, consentPage } = await aHost();
    const { html } = await consentPage();
    expect(html).toContain('<span class="brand">Gatehouse</span>');
    expect((await request(host.app).get('/auth/assets/gatehouse.css')).text).not.toContain(':root { --accent: #');
  });

  it.each([
    ['red; } body { display: none', 'accentColor'],
    ['#12345', 'accentColor'],
    ['rgb(0 0 0); x', 'accentColor'],
    ['url(https://evil.example/)', 'accentColor'],
  ])('refuses the accent colour %j at start-up (no CSS of its own)', async (accentColor, option) => {
    const { host } = await aHost();
    expect(() => createGatehouseRouter({ gatehouse: host.gatehouse, branding: { accentColor } })).toThrow(new RegExp(`branding\\.${option} must be a CSS colour`));
  });

  it('accepts the usual colour forms', async () => {
    const { host } = await aHost();
    for (const accentColor of ['#0a7', '#00aa77cc', 'rgb(0 170 119)', 'rgba(0, 170, 119, 0.8)', 'hsl(160deg 100% 33% / 50%)', 'teal']) {
      expect(() => createGatehouseRouter({ gatehouse: host.gatehouse, branding: { accentColor } }), accentColor).not.toThrow();
    }
  });

  it('refuses a logo that is not a same-origin path, and an empty or overlong product name', async () => {
    const { host } = await aHost();
    for (const logoUrl of ['https://cdn.example/logo.svg', '//cdn.example/logo.svg', 'javascript:alert(1)', '/logo.svg" onerror="x']) {
      expect(() => createGatehouseRouter({ gatehouse: host.gatehouse, branding: { logoUrl } }), logoUrl).toThrow(/branding\.logoUrl/);
    }
    expect(() => createGatehouseRouter({ gatehouse: host.gatehouse, branding: { productName: ' ' } })).toThrow(/branding\.productName/);
    expect(() => createGatehouseRouter({ gatehouse: host.gatehouse, branding: { productName: 'x'.repeat(61) } })).toThrow(/branding\.productName/);
  });
});
