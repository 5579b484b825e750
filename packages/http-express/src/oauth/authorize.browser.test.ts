import { describe, expect, it } from 'vitest';
import { basicAuth } from '../test-support/index.js';
import { useBrowserHarness } from '../test-support/browser-harness.js';

describe('the code flow in a real browser (headless Chromium)', () => {
  const harness = useBrowserHarness({ clientApp: true });

  it('opens the authorize URL, signs in, presses Allow, lands on the redirect URI with a code that exchanges for tokens', async () => {
    const { browser, origin, clientOrigin, t } = harness;
    await t.seedUser({ email: 'ada@example.com', password: 'correct horse battery' });
    const redirectUri = `${clientOrigin}/callback`;
    const { client, clientSecret } = await t.seedClient({ name: 'Browser Test App', redirectUris: [redirectUri], scopes: ['messaging.v1.read'] });
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      const authorize = new URL('/oauth/authorize', origin);
      authorize.search = new URLSearchParams({ client_id: client.clientId, response_type: 'code', redirect_uri: redirectUri, scope: 'messaging.v1.read', state: 'browser-state' }).toString();
      await page.goto(authorize.toString());

      // Not signed in: the login page.
      expect(new URL(page.url()).pathname).toBe('/oauth/login');
      await page.fill('input[name="email"]', 'ada@example.com');
      await page.fill('input[name="password"]', 'correct horse battery');
      await Promise.all([page.waitForURL((url) => url.pathname === '/oauth/authorize'), page.click('button[type="submit"]')]);

      // The consent page, styled by the served stylesheet (the CSP allowed it).
      expect(await page.textContent('h1')).toContain('Browser Test App');
      expect(await page.textContent('ul.scopes')).toContain('Read the messages sent from your phone numbers');
      const buttonRadius = await page.evaluate<string>(`getComputedStyle(document.querySelector('button[value="allow"]')).borderRadius`);
      expect(buttonRadius).toBe('8px');

      await Promise.all([page.waitForURL((url) => url.pathname === '/callback'), page.click('button[name="decision"][value="allow"]')]);
      const landed = new URL(page.url());
      expect(landed.origin).toBe(clientOrigin);
      expect(await page.textContent('body')).toContain('callback reached');
      expect(landed.searchParams.get('state')).toBe('browser-state');
      expect(landed.searchParams.get('iss')).toBe(origin);
      const code = landed.searchParams.get('code');
      expect(code).toMatch(/^[0-9A-Za-z]{8}_[A-Za-z0-9]{43,}$/);

      const response = await fetch(`${origin}/oauth/token`, {
        method: 'POST',
        headers: { Authorization: basicAuth(client.clientId, clientSecret), 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
        body: new URLSearchParams({ grant_type: 'authorization_code', code: code as string, redirect_uri: redirectUri }).toString(),
      });
      expect(response.status).toBe(200);
      const tokens = (await response.json()) as Record<string, unknown>;
      expect(tokens).toMatchObject({ token_type: 'Bearer', scope: 'messaging.v1.read', principal: 'ada@example.com', expires_in: 3600 });
      await expect(t.gatehouse.verifyAccessToken(tokens.access_token as string)).resolves.toMatchObject({ clientId: client.clientId });
    } finally {
      await context.close();
    }
  }, 30_000);

  it('the login page fits a phone screen without sideways scrolling', async () => {
    const { browser, origin } = harness;
    const context = await browser.newContext({ viewport: { width: 360, height: 640 }, isMobile: true });
    const page = await context.newPage();
    try {
      await page.goto(`${origin}/oauth/login`);
      const widths = await page.evaluate<{ content: number; viewport: number }>('({ content: document.documentElement.scrollWidth, viewport: window.innerWidth })');
      expect(widths.viewport).toBe(360);
      expect(widths.content).toBeLessThanOrEqual(widths.viewport);
      const inputWidth = await page.$eval('input[name="email"]', (element) => element.getBoundingClientRect().width);
      expect(inputWidth).toBeGreaterThan(250);
    } finally {
      await context.close();
    }
  }, 30_000);
});
