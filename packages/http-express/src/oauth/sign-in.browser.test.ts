import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { useBrowserHarness } from '../test-support/browser-harness.js';
import { screenshotPath } from '../test-support/screenshots.js';

/**
 * The sign-in page (docs/decisions/0156-a-way-back-from-the-sign-in-page.md): a show-password
 * button that works under the page's CSP (a served script, no inline script), "Cancel" back to the
 * app (`access_denied` with the state), "Forgot your password?", and the app's name in the heading
 * even when its request has an error. Saves the screenshots sign-in.png and sign-in-phone.png (docs/images/ under `npm run screenshots`).
 */
const VIEWPORTS = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;
const EMAIL = 'ada@example.com';
const PASSWORD = 'correct horse battery';

describe('the sign-in page (headless Chromium)', () => {
  const harness = useBrowserHarness({ clientApp: true }, 60_000);
  let clientId = '';
  const redirectUri = () => `${harness.clientOrigin}/callback`;

  async function open(viewport: { width: number; height: number }, params: Record<string, string> = {}): Promise<{ context: BrowserContext; page: Page; csp: string }> {
    const { browser, origin, t } = harness;
    if (clientId === '') {
      await t.seedUser({ email: EMAIL, password: PASSWORD });
      ({ client: { clientId } } = await t.seedClient({ name: 'Billing dashboard', redirectUris: [redirectUri()], scopes: ['messaging.v1.read'] }));
    }
    const context = await browser.newContext({ viewport, baseURL: origin });
    const page = await context.newPage();
    const authorize = new URL('/oauth/authorize', origin);
    authorize.search = new URLSearchParams({ client_id: clientId, response_type: 'code', redirect_uri: redirectUri(), scope: 'messaging.v1.read', state: 'st-9', ...params }).toString();
    await page.goto(authorize.toString());
    expect(new URL(page.url()).pathname).toBe('/oauth/login');
    const response = await page.reload();
    return { context, page, csp: response?.headers()['content-security-policy'] ?? '' };
  }

  for (const [name, viewport] of Object.entries(VIEWPORTS)) {
    it(`${name}: Show reveals the password and Hide hides it again, under a CSP without inline script; "Forgot your password?" says whom to ask`, async () => {
      const { context, page, csp } = await open(viewport);
      try {
        expect(csp).toContain("script-src 'self'");
        expect(csp).not.toContain('unsafe-inline');
        expect(await page.textContent('h1')).toBe('Sign in to continue to Billing dashboard');
        await page.getByLabel('E-mail').fill(EMAIL);
        await page.getByLabel('Password', { exact: true }).fill('secret words');
        const toggle = page.getByRole('button', { name: 'Show' });
        await expect.poll(() => toggle.isVisible(), { timeout: 10_000 }).toBe(true);
        await toggle.click();
        expect(await page.getAttribute('#password', 'type')).toBe('text');
        expect(await page.inputValue('#password')).toBe('secret words');
        await page.getByRole('button', { name: 'Hide' }).click();
        expect(await page.getAttribute('#password', 'type')).toBe('password');
        expect(await page.getByText('Ask the person who runs this service to set a new password for you.').isVisible()).toBe(false);
        await page.getByText('Forgot your password?').click();
        expect(await page.getByText('Ask the person who runs this service to set a new password for you.').isVisible()).toBe(true);
        expect(await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBeLessThanOrEqual(0);
        await page.getByLabel('Password', { exact: true }).fill('');
        await page.getByRole('heading', { level: 1 }).click();
        await page.screenshot({ path: screenshotPath(`sign-in${name === 'phone' ? '-phone' : ''}.png`) });
      } finally {
        await context.close();
      }
    }, 60_000);
  }

  it('Cancel goes back to the app with access_denied and the state; the shown password is a password field again when the form is sent', async () => {
    const { context, page } = await open(VIEWPORTS.desktop);
    try {
      await Promise.all([page.waitForURL((url) => url.href.startsWith(redirectUri())), page.getByRole('button', { name: 'Cancel and go back to Billing dashboard' }).click()]);
      const landed = new URL(page.url());
      expect(Object.fromEntries(landed.searchParams)).toEqual({ error: 'access_denied', error_description: 'The user cancelled the sign-in.', state: 'st-9', iss: harness.origin });
      expect(harness.t.audit.ofType('consent.denied')).toEqual([expect.objectContaining({ clientId, reason: 'cancelled at sign-in' })]);
    } finally {
      await context.close();
    }
  }, 60_000);

  it("a request with an error keeps the app's name in the heading; after sign-in the app gets the error, and Cancel still goes back", async () => {
    const { context, page } = await open(VIEWPORTS.desktop, { scope: 'admin.v1.attributes.write' });
    try {
      expect(await page.textContent('h1')).toBe('Sign in to continue to Billing dashboard');
      await page.getByLabel('E-mail').fill(EMAIL);
      await page.getByLabel('Password', { exact: true }).fill('wrong password');
      await page.getByRole('button', { name: 'Show' }).click();
      await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Sign in' }).click()]);
      expect(await page.textContent('p.notice.error')).toBe('The e-mail or password is not right.');
      expect(await page.textContent('h1')).toBe('Sign in to continue to Billing dashboard');
      // Shown before the post, it is a password field again on the page that comes back.
      expect(await page.getAttribute('#password', 'type')).toBe('password');
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await Promise.all([page.waitForURL((url) => url.href.startsWith(redirectUri())), page.getByRole('button', { name: 'Sign in' }).click()]);
      const landed = new URL(page.url());
      expect(landed.searchParams.get('error')).toBe('invalid_scope');
      expect(landed.searchParams.get('state')).toBe('st-9');
    } finally {
      await context.close();
    }
  }, 60_000);
});
