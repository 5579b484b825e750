import type { User } from '@gatehouse/core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../test-support/index.js';
import { html } from './html.js';
import { layout } from './layout.js';
import { startBrowserHarness, type BrowserHarness } from '../test-support/browser-harness.js';

const VIEWPORTS = { desktop: { width: 1280, height: 800 }, phone: { width: 375, height: 740 } } as const;

/** The page is no wider than the viewport (nothing to scroll sideways on a phone). */
async function expectNoSidewaysScroll(page: Page) {
  const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
  expect(overflow).toBeLessThanOrEqual(0);
}

describe('Gatehouse pages in a real browser (headless Chromium)', () => {
  let harness: BrowserHarness | undefined;
  let browser: Browser;
  let origin: string;
  let t: TestApp;
  let ada: User;

  beforeAll(async () => {
    ({ browser, origin, t } = harness = await startBrowserHarness());
    ada = await t.seedUser({ email: 'ada@example.com', password: 'correct horse battery' });
    await t.seedUser({ email: 'bob@example.com', password: 'bob horse battery' });
  }, 30_000);

  afterAll(async () => {
    await harness?.close();
  }, 30_000);

  async function authorizeUrl(name: string, scopes: string[]) {
    const { client } = await t.seedClient({ name, redirectUris: ['https://app.example/callback'], scopes });
    const url = new URL('/oauth/authorize', origin);
    url.search = new URLSearchParams({ client_id: client.clientId, response_type: 'code', redirect_uri: 'https://app.example/callback', scope: scopes.join(' '), state: 's' }).toString();
    return { client, url: url.toString() };
  }

  for (const [viewport, size] of Object.entries(VIEWPORTS)) {
    it(`${viewport}: the login page names the app; after a failed sign-in the password field has the focus`, async () => {
      const { url } = await authorizeUrl('Demo client', ['messaging.v1.read']);
      const context = await browser.newContext({ viewport: size });
      const page = await context.newPage();
      try {
        await page.goto(url);
        expect(new URL(page.url()).pathname).toBe('/oauth/login');
        expect(await page.textContent('h1')).toBe('Sign in to continue to Demo client');
        expect(await page.evaluate<string>('document.activeElement.id')).toBe('email');
        await expectNoSidewaysScroll(page);
        await page.fill('#email', 'ada@example.com');
        await page.fill('#password', 'wrong password');
        await Promise.all([page.waitForLoadState('load'), page.click('button[type="submit"]')]);
        await page.waitForSelector('p.notice.error');
        expect(await page.textContent('p.notice.error')).toBe('The e-mail or password is not right.');
        expect(await page.textContent('h1')).toBe('Sign in to continue to Demo client');
        expect(await page.inputValue('#email')).toBe('ada@example.com');
        expect(await page.evaluate<string>('document.activeElement.id')).toBe('password');
      } finally {
        await context.close();
      }
    }, 60_000);

    it(`${viewport}: the consent page names the app in normal type, marks scopes that allow changes, and "Not you? Sign out" comes back to the request`, async () => {
      const { client, url } = await authorizeUrl('Mail helper', ['messaging.v1.read', 'messaging.v1.send']);
      const context = await browser.newContext({ viewport: size });
      const page = await context.newPage();
      try {
        await page.goto(url);
        await page.fill('#email', 'ada@example.com');
        await page.fill('#password', 'correct horse battery');
        await Promise.all([page.waitForURL((u) => u.pathname === '/oauth/authorize'), page.click('button[type="submit"]')]);
        expect(await page.textContent('h1')).toBe('Mail helper wants to access your account');
        expect(await page.locator('h1 span, h1 strong, h1 b').count()).toBe(0);
        const items = page.locator('ul.scopes li');
        expect(await items.count()).toBe(2);
        expect(await items.nth(0).locator('.changes').count()).toBe(0);
        expect(await items.nth(1).locator('.changes').textContent()).toBe('Can make changes');
        await expectNoSidewaysScroll(page);

        await Promise.all([page.waitForURL((u) => u.pathname === '/oauth/logout'), page.click('text=Sign out')]);
        await Promise.all([page.waitForLoadState('load'), page.click('button[type="submit"]')]);
        await page.waitForSelector('text=You are signed out');
        await Promise.all([page.waitForURL((u) => u.pathname === '/oauth/login'), page.click('text=Sign in to continue')]);
        expect(await page.textContent('h1')).toBe('Sign in to continue to Mail helper');
        await page.fill('#email', 'bob@example.com');
        await page.fill('#password', 'bob horse battery');
        await Promise.all([page.waitForURL((u) => u.pathname === '/oauth/authorize'), page.click('button[type="submit"]')]);
        expect(new URL(page.url()).searchParams.get('client_id')).toBe(client.clientId);
        expect(await page.textContent('h1')).toBe('Mail helper wants to access your account');
        expect(await page.textContent('body')).toContain('Signed in as bob@example.com');
      } finally {
        await context.close();
      }
    }, 60_000);

    it(`${viewport}: the consent page of an app that registered itself says so and warns that the answer stays on this computer`, async () => {
      const clientId = `deskAgent${viewport}`;
      // The client as Dynamic Client Registration stores it (registration itself: oauth/register.test.ts).
      await t.repositories.clients.create({
        clientId,
        clientSecretHash: null,
        name: 'Desk Agent',
        redirectUris: ['http://127.0.0.1/callback'],
        scopes: ['messaging.v1.read'],
        grantTypes: ['authorization_code'],
        pkceRequired: true,
        ownerUserKey: null,
        createdAt: t.clock.now(),
        registration: { kind: 'dynamic', registrationAccessTokenHash: 'x', anonymous: true, metadata: { applicationType: 'native' }, firstUsedAt: null },
      });
      const url = new URL('/oauth/authorize', origin);
      url.search = new URLSearchParams({ client_id: clientId, response_type: 'code', redirect_uri: 'http://127.0.0.1:49152/callback', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' }).toString();
      const context = await browser.newContext({ viewport: size });
      const page = await context.newPage();
      try {
        await page.goto(url.toString());
        await page.fill('#email', 'ada@example.com');
        await page.fill('#password', 'correct horse battery');
        await Promise.all([page.waitForURL((u) => u.pathname === '/oauth/authorize'), page.click('button[type="submit"]')]);
        expect(await page.textContent('h1')).toBe('Desk Agent wants to access your account');
        expect(await page.textContent('p.client-origin')).toContain('This app registered itself.');
        expect(await page.locator('p.notice.warn').isVisible()).toBe(true);
        expect(await page.textContent('p.notice.warn')).toContain('Any program running on this computer could be the one asking');
        expect(await page.textContent('body')).toContain('You will be sent back to http://127.0.0.1:49152');
        await expectNoSidewaysScroll(page);
      } finally {
        await context.close();
      }
    }, 60_000);

    it(`${viewport}: "/" offers Sign in, which lands on the portal; a missing page links back to the start`, async () => {
      const context = await browser.newContext({ viewport: size });
      const page = await context.newPage();
      try {
        const missing = await page.goto(`${origin}/no/such/page`);
        expect(missing?.status()).toBe(404);
        await expectNoSidewaysScroll(page);
        await Promise.all([page.waitForURL((u) => u.pathname === '/'), page.click('text=Go to the start page')]);
        await expectNoSidewaysScroll(page);
        await Promise.all([page.waitForURL((u) => u.pathname === '/oauth/login'), page.click('a.button:has-text("Sign in")')]);
        expect(await page.textContent('h1')).toBe('Sign in');
        await page.fill('#email', 'ada@example.com');
        await page.fill('#password', 'correct horse battery');
        await Promise.all([page.waitForURL((u) => u.pathname === '/portal/clients'), page.click('button[type="submit"]')]);
        expect(await page.textContent('h1')).toBe('OAuth Clients');
        // Signed in, the start page is the portal.
        await page.goto(`${origin}/`);
        expect(new URL(page.url()).pathname).toBe('/portal/clients');
      } finally {
        await context.close();
      }
    }, 60_000);

    it(`${viewport}: portal: a failed form focuses the error summary; revoking an app asks first and the notice names it`, async () => {
      const { client } = await t.seedClient({ name: `Revocable ${viewport}`, scopes: ['messaging.v1.read'] });
      await t.obtainTokens({ client, user: ada });
      const context = await browser.newContext({ viewport: size });
      const page = await context.newPage();
      try {
        await page.goto(`${origin}/oauth/login`);
        await page.fill('#email', 'ada@example.com');
        await page.fill('#password', 'correct horse battery');
        await Promise.all([page.waitForURL((u) => u.pathname === '/portal/clients'), page.click('button[type="submit"]')]);

        await page.goto(`${origin}/portal/clients/new`);
        await page.fill('#redirect_uris', `http://${'very-long-host-name.'.repeat(6)}example/callback\nnot a uri`);
        await Promise.all([page.waitForLoadState('load'), page.click('button[type="submit"]')]);
        await page.waitForSelector('.error-summary');
        expect(await page.evaluate<string>('document.activeElement.className')).toBe('error-summary');
        expect(await page.locator('.error-summary li').allTextContents()).toEqual([
          'Enter a client name',
          `Use https:// in “http://${'very-long-host-name.'.repeat(6)}example/callback” (http:// only on localhost, 127.0.0.1 or [::1])`,
          '“not a uri” is not a full address: start it with https://',
          'Choose at least one scope',
        ]);
        await expectNoSidewaysScroll(page);
        await page.click('.error-summary a[href="#name"]');
        expect(await page.evaluate<string>('document.activeElement.id')).toBe('name');

        await page.goto(`${origin}/portal/authorized-apps`);
        await Promise.all([page.waitForURL((u) => u.pathname.endsWith('/revoke')), page.getByRole('row', { name: new RegExp(`Revocable ${viewport}`) }).getByRole('link', { name: 'Revoke' }).click()]);
        expect(await page.textContent('h1')).toBe(`Withdraw the access of “Revocable ${viewport}”?`);
        await expectNoSidewaysScroll(page);
        await Promise.all([page.waitForURL((u) => u.pathname === '/portal/authorized-apps'), page.click('button:has-text("Revoke access")')]);
        expect(await page.textContent('p.notice.ok')).toBe(`Access withdrawn from “Revocable ${viewport}”: its tokens no longer work.`);
      } finally {
        await context.close();
      }
    }, 60_000);

    it(`${viewport}: a page of the layout with a long code and command (the demo callback's) fits the width`, async () => {
      const long = 'Q'.repeat(120);
      const page = await (await browser.newContext({ viewport: size })).newPage();
      try {
        // The demo callback (apps/server) is this layout with a <pre> and long <code>; served here from our origin.
        await page.route(`${origin}/layout-check`, (route) =>
          route.fulfill({ contentType: 'text/html', body: layout({ title: 'Code', body: html`<h1>Authorization code received</h1><p>Code: <code>${long}</code></p><pre>curl -s -u "${long}:$CLIENT_SECRET" --data-urlencode "code=${long}"</pre>` }).value }),
        );
        await page.goto(`${origin}/layout-check`);
        expect(await page.evaluate<number>('document.documentElement.clientWidth')).toBe(size.width);
        await expectNoSidewaysScroll(page);
        expect(await page.evaluate<string>(`getComputedStyle(document.querySelector('pre')).whiteSpace`)).toBe('pre-wrap');
      } finally {
        await page.context().close();
      }
    }, 60_000);
  }
});
