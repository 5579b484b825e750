import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { useBrowserHarness } from '../test-support/browser-harness.js';
import { screenshotPath, showFixedValues } from '../test-support/screenshots.js';

/**
 * The portal's pages at 1280×800 and 390×844 (docs/decisions/0157-the-portal-says-how-to-connect.md):
 * a client's page gives the issuer, discovery, authorize and token URLs and copies the client ID;
 * the register form is two columns on a desktop; two wrong redirect URIs are two messages; every
 * page has an icon. Saves the screenshots portal-client.png and portal-client-phone.png (docs/images/ under `npm run screenshots`).
 */
const VIEWPORTS = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;
const EMAIL = 'ada@example.com';
const PASSWORD = 'correct horse battery';

describe('portal pages (headless Chromium)', () => {
  const harness = useBrowserHarness({}, 60_000);

  async function signIn(page: Page): Promise<void> {
    await page.goto('/portal/clients');
    await page.getByLabel('E-mail').fill(EMAIL);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await Promise.all([page.waitForURL(/\/portal\/clients$/), page.getByRole('button', { name: 'Sign in' }).click()]);
  }

  it("a client's page: the server's addresses and the client ID, each with a Copy button that works under the CSP; the page's icon is served", async () => {
    const { browser, origin, t } = harness;
    const user = await t.seedUser({ email: EMAIL, password: PASSWORD });
    const { client } = await t.gatehouse.registerClient({
      name: 'Billing dashboard',
      ownerUserKey: user.userKey,
      redirectUris: ['https://billing.example/oauth/callback'],
      scopes: ['messaging.v1.read', 'messaging.v1.send'],
      clientUri: 'https://billing.example/',
      policyUri: 'https://billing.example/privacy',
    });
    for (const [name, viewport] of Object.entries(VIEWPORTS)) {
      const context = await browser.newContext({ viewport, baseURL: origin });
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
      const page = await context.newPage();
      try {
        await signIn(page);
        await page.goto(`/portal/clients/${client.clientId}`);
        expect(await page.inputValue('#client_id')).toBe(client.clientId);
        expect(await page.inputValue('#issuer_url')).toBe(origin);
        // RFC 8414 metadata (an OpenID Provider's page gives its Discovery document instead).
        expect(await page.inputValue('#discovery_url')).toBe(`${origin}/.well-known/oauth-authorization-server`);
        expect(await page.inputValue('#authorize_url')).toBe(`${origin}/oauth/authorize`);
        expect(await page.inputValue('#token_url')).toBe(`${origin}/oauth/token`);
        const discovery = (await (await fetch(await page.inputValue('#discovery_url'))).json()) as Record<string, unknown>;
        expect(discovery).toMatchObject({ issuer: origin, authorization_endpoint: `${origin}/oauth/authorize`, token_endpoint: `${origin}/oauth/token` });
        const copy = page.locator('button[data-copy="client_id"]');
        await expect.poll(() => copy.isVisible(), { timeout: 10_000 }).toBe(true);
        // The picture shows fixed addresses and ID (the server's port and the client ID change from run to run).
        await showFixedValues(page, { [origin]: 'https://auth.example.com', [client.clientId]: 'kJ4vQx9TzR2mNw7pLc5sHd' });
        await page.screenshot({ path: screenshotPath(`portal-client${name === 'phone' ? '-phone' : ''}.png`), fullPage: name === 'desktop' });
        await page.reload();
        await expect.poll(() => copy.isVisible(), { timeout: 10_000 }).toBe(true);
        await copy.click();
        await expect.poll(() => page.evaluate('navigator.clipboard.readText()'), { timeout: 10_000 }).toBe(client.clientId);
        // The icon every page links to is there (no 404 for a missing favicon).
        const icon = await page.getAttribute('link[rel="icon"]', 'href');
        const served = await fetch(new URL(icon ?? '/missing', origin));
        expect([served.status, served.headers.get('content-type')]).toEqual([200, 'image/svg+xml; charset=utf-8']);
        expect(await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBeLessThanOrEqual(0);
      } finally {
        await context.close();
      }
    }
  }, 120_000);

  it('the register form: two columns on a desktop, hints in plain type, and two wrong redirect URIs as two messages', async () => {
    const { browser, origin } = harness;
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop, baseURL: origin });
    const page = await context.newPage();
    try {
      await signIn(page);
      await page.goto('/portal/clients/new');
      const height = await page.evaluate<number>('document.documentElement.scrollHeight');
      expect(height).toBeLessThan(1400);
      const [left, right] = await page.locator('.form-column').evaluateAll((columns) => columns.map((column) => Math.round(column.getBoundingClientRect().left)));
      expect(right ?? 0).toBeGreaterThan((left ?? 0) + 300);
      const hintFont = await page.evaluate<string>("getComputedStyle(document.querySelector('label.check .hint')).fontFamily");
      expect(hintFont).not.toMatch(/mono/i);

      await page.getByLabel('Client name').fill('Billing dashboard');
      await page.getByLabel('Redirect URIs').fill('http://billing.example/cb\nbilling.example/cb#x');
      await page.getByLabel(/Read the messages sent from your phone numbers/).check();
      await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Register client' }).click()]);
      expect(await page.locator('#redirect_uris-error li').allTextContents()).toEqual([
        'Use https:// in “http://billing.example/cb” (http:// only on localhost, 127.0.0.1 or [::1])',
        '“billing.example/cb#x” is not a full address: start it with https://',
      ]);
      expect(await page.locator('.error-summary li').allTextContents()).toEqual([
        'Use https:// in “http://billing.example/cb” (http:// only on localhost, 127.0.0.1 or [::1])',
        '“billing.example/cb#x” is not a full address: start it with https://',
      ]);
    } finally {
      await context.close();
    }
  }, 60_000);
});
