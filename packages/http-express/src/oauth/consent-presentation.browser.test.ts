import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { useBrowserHarness } from '../test-support/browser-harness.js';
import { screenshotPath } from '../test-support/screenshots.js';

/**
 * The consent page says who is asking (docs/decisions/0155-who-is-asking-on-the-consent-page.md):
 * who registered the app, its home page, logo, privacy policy and terms, where it sends the user
 * back, and the operator's first-party mark. Saves the screenshots consent.png and consent-phone.png (docs/images/ under `npm run screenshots`).
 */
const VIEWPORTS = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;
const EMAIL = 'ada@example.com';
const PASSWORD = 'correct horse battery';
/** Fixed (not the test server's port), so the screenshots are the same from run to run; answered by request routing. */
const REDIRECT_URI = 'https://billing.example/oauth/callback';
const LINKS = {
  clientUri: 'https://billing.example/',
  logoUri: 'https://cdn.billing.example/logo.svg',
  policyUri: 'https://billing.example/privacy',
  tosUri: 'https://billing.example/terms',
};
const LOGO = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 96 96"><rect width="96" height="96" rx="20" fill="#0f766e"/><path d="M30 24h22c12 0 18 6 18 14 0 6-3 10-8 12 7 2 10 7 10 13 0 10-8 17-20 17H30z" fill="#fff"/></svg>`;

describe('the consent page says who is asking (headless Chromium)', () => {
  const harness = useBrowserHarness({}, 60_000);

  async function signedIn(viewport: { width: number; height: number }): Promise<{ context: BrowserContext; page: Page; logoRequests: string[] }> {
    const { browser, origin } = harness;
    const context = await browser.newContext({ viewport, baseURL: origin });
    const logoRequests: string[] = [];
    await context.route('https://cdn.billing.example/**', (route) => {
      logoRequests.push(route.request().url());
      return route.fulfill({ status: 200, contentType: 'image/svg+xml', body: LOGO });
    });
    await context.route('https://evil.example/**', (route) => {
      logoRequests.push(route.request().url());
      return route.fulfill({ status: 200, contentType: 'image/svg+xml', body: LOGO });
    });
    await context.route(`${REDIRECT_URI}**`, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>Billing</title><p>callback</p>' }));
    const page = await context.newPage();
    await page.goto('/oauth/login');
    await page.getByLabel('E-mail').fill(EMAIL);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Sign in' }).click()]);
    return { context, page, logoRequests };
  }

  function authorizeUrl(clientId: string, state = 'st-1'): string {
    const url = new URL('/oauth/authorize', harness.origin);
    url.search = new URLSearchParams({ client_id: clientId, response_type: 'code', redirect_uri: REDIRECT_URI, scope: 'messaging.v1.read messaging.v1.send', state }).toString();
    return url.toString();
  }

  it('a portal user’s client: registered by them, its home page, logo (CSP: that one origin), policy and terms, sent back to the origin', async () => {
    const { t } = harness;
    const owner = await t.seedUser({ email: 'dev@billing.example', password: 'another horse battery' });
    await t.seedUser({ email: EMAIL, password: PASSWORD });
    const { client } = await t.gatehouse.registerClient({ name: 'Billing dashboard', ownerUserKey: owner.userKey, redirectUris: [REDIRECT_URI], scopes: ['messaging.v1.read', 'messaging.v1.send'], ...LINKS });
    for (const [name, viewport] of Object.entries(VIEWPORTS)) {
      const { context, page, logoRequests } = await signedIn(viewport);
      try {
        const response = await page.goto(authorizeUrl(client.clientId));
        const csp = response?.headers()['content-security-policy'] ?? '';
        expect(csp).toContain("img-src 'self' https://cdn.billing.example");
        expect(csp).toContain("script-src 'none'");
        expect(await page.textContent('h1')).toBe('Billing dashboard wants to access your account');
        expect(await page.textContent('.client-meta')).toBe('Registered by dev@billing.example · billing.example');
        const home = page.getByRole('link', { name: 'billing.example', exact: true });
        expect(await home.getAttribute('href')).toBe(LINKS.clientUri);
        expect(await home.getAttribute('rel')).toBe('noopener noreferrer');
        expect(await page.getByRole('link', { name: 'privacy policy' }).getAttribute('href')).toBe(LINKS.policyUri);
        expect(await page.getByRole('link', { name: 'terms of service' }).getAttribute('rel')).toBe('noopener noreferrer');
        expect(await page.textContent('.client-policies')).toBe('Before you allow it, read its privacy policy and terms of service.');
        expect(await page.textContent('p.muted >> text=sent back')).toContain('You will be sent back to https://billing.example.');
        expect(await page.locator('.first-party').count()).toBe(0);
        // The logo loaded (the CSP allowed its origin) and is drawn at its fixed size.
        const logo = page.locator('img.client-logo');
        await expect.poll(() => page.evaluate<boolean>("(() => { const image = document.querySelector('img.client-logo'); return image.complete && image.naturalWidth > 0; })()"), { timeout: 10_000 }).toBe(true);
        const box = await logo.boundingBox();
        expect([box?.width, box?.height]).toEqual([48, 48]);
        expect(logoRequests).toEqual([LINKS.logoUri]);
        // An image of another origin is refused by the CSP: the browser never asks for it.
        const other = await page.evaluate<string>(`new Promise((resolve) => {
          const image = document.createElement('img');
          image.onload = () => resolve('loaded');
          image.onerror = () => resolve('refused');
          image.src = 'https://evil.example/track.svg';
          document.body.append(image);
        })`);
        expect(other).toBe('refused');
        expect(logoRequests).toEqual([LINKS.logoUri]);
        await page.evaluate(`document.querySelector('img[src^="https://evil"]')?.remove()`);
        await page.getByRole('heading', { level: 1 }).click();
        await page.screenshot({ path: screenshotPath(`consent${name === 'phone' ? '-phone' : ''}.png`), fullPage: name === 'phone' });
        const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
        expect(overflow).toBeLessThanOrEqual(0);
      } finally {
        await context.close();
      }
    }
  }, 120_000);

  it("the operator's first-party client: marked, registered by the operator; without links nothing is loaded and the CSP stays as it was", async () => {
    const { t } = harness;
    await t.seedUser({ email: 'grace@example.com', password: PASSWORD });
    const { client } = await t.gatehouse.registerClient({ name: 'Messages', firstParty: true, redirectUris: [REDIRECT_URI], scopes: ['messaging.v1.read', 'messaging.v1.send'] });
    const { browser, origin } = harness;
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop, baseURL: origin });
    try {
      const page = await context.newPage();
      await page.goto('/oauth/login');
      await page.getByLabel('E-mail').fill('grace@example.com');
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Sign in' }).click()]);
      const response = await page.goto(authorizeUrl(client.clientId));
      expect(response?.headers()['content-security-policy']).not.toContain('img-src');
      expect(await page.textContent('.first-party')).toBe('✓ A first-party app: the operator of this service runs it.');
      expect(await page.textContent('.client-meta')).toBe('Registered by the operator of this service');
      expect(await page.locator('img').count()).toBe(0);
      expect(await page.locator('.client-policies').count()).toBe(0);
    } finally {
      await context.close();
    }
  }, 60_000);
});
