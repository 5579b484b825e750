import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { useBrowserHarness } from '../test-support/browser-harness.js';

// Remembered consent in a real browser (docs/decisions/0095-remembered-consent.md).

describe('remembered consent in a real browser (headless Chromium)', () => {
  const harness = useBrowserHarness({ clientApp: true });

  it('the second authorization of the app lands on the redirect URI with a code, without showing the consent page; more scopes show it with “New”', async () => {
    const { browser, origin, clientOrigin, t } = harness;
    await t.seedUser({ email: 'ada@example.com', password: 'correct horse battery' });
    const redirectUri = `${clientOrigin}/callback`;
    const { client } = await t.seedClient({ name: 'Remembering App', redirectUris: [redirectUri], scopes: ['messaging.v1.read', 'messaging.v1.send'] });
    const authorizeUrl = (scope: string, state: string): string => {
      const url = new URL('/oauth/authorize', origin);
      url.search = new URLSearchParams({ client_id: client.clientId, response_type: 'code', redirect_uri: redirectUri, scope, state }).toString();
      return url.toString();
    };
    const context = await browser.newContext();
    const page = await context.newPage();
    /** Every consent page the browser was shown (a 200 answer of the authorize URL). */
    const consentPagesShown: string[] = [];
    page.on('response', (response) => {
      const url = new URL(response.url());
      if (url.origin === origin && url.pathname === '/oauth/authorize' && response.status() === 200) consentPagesShown.push(url.searchParams.get('state') ?? '');
    });
    const landedWithCode = async (state: string): Promise<void> => {
      const landed = new URL(page.url());
      expect(landed.origin).toBe(clientOrigin);
      expect(await page.textContent('body')).toContain('callback reached');
      expect(landed.searchParams.get('state')).toBe(state);
      expect(landed.searchParams.get('code')).toMatch(/^[0-9A-Za-z]{8}_[A-Za-z0-9]{43,}$/);
    };
    try {
      await page.goto(authorizeUrl('messaging.v1.read', 'first'));
      await page.fill('input[name="email"]', 'ada@example.com');
      await page.fill('input[name="password"]', 'correct horse battery');
      await Promise.all([page.waitForURL((url) => url.pathname === '/oauth/authorize'), page.click('button[type="submit"]')]);
      expect(await page.textContent('h1')).toContain('Remembering App');
      await Promise.all([page.waitForURL((url) => url.pathname === '/callback'), page.click('button[name="decision"][value="allow"]')]);
      await landedWithCode('first');
      expect(consentPagesShown).toEqual(['first']);

      // Second authorization: straight to the client.
      await page.goto(authorizeUrl('messaging.v1.read', 'second'));
      await landedWithCode('second');
      expect(consentPagesShown).toEqual(['first']);

      // More scopes: the page again, the new scope marked.
      await page.goto(authorizeUrl('messaging.v1.read messaging.v1.send', 'third'));
      expect(new URL(page.url()).pathname).toBe('/oauth/authorize');
      expect(consentPagesShown).toEqual(['first', 'third']);
      expect(await newScopeMarks(page)).toEqual(['Send text messages from your phone numbers New']);
    } finally {
      await context.close();
    }
  }, 30_000);
});

/** The text of each scope item that carries the “New” mark. */
async function newScopeMarks(page: Page): Promise<string[]> {
  return page.$$eval('ul.scopes li', (items) =>
    items.filter((item) => item.querySelector('.new-scope') !== null).map((item) => (item.firstChild?.textContent ?? '').trim() + ' ' + (item.querySelector('.new-scope')?.textContent ?? '')),
  );
}
