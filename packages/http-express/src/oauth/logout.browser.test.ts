import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { basicAuth } from '../test-support/index.js';
import { useBrowserHarness } from '../test-support/browser-harness.js';

// RP-Initiated Logout 1.0 in a real browser (headless Chromium; docs/decisions/0135): the app
// sends the user to the end-session endpoint without an id_token_hint, the confirmation page asks,
// "Sign out" ends the sign-in and the browser lands on the app's post-logout redirect URI (on
// another origin) with its state; with a hint of this sign-in, no page at all.

describe('RP-initiated logout in a real browser (headless Chromium)', () => {
  const harness = useBrowserHarness({ clientApp: true, settings: { openid: true } }, 60_000);

  /** Signs in through the authorize page and presses Allow; the ID token of that sign-in. */
  async function signInForIdToken(page: Page, email: string): Promise<{ idToken: string; clientId: string; signedOut: string }> {
    const { origin, clientOrigin, t } = harness;
    await t.seedUser({ email, password: 'correct horse battery' });
    const redirectUri = `${clientOrigin}/callback`;
    const signedOut = `${clientOrigin}/signed-out`;
    const { client, clientSecret } = await t.seedClient({ name: 'Sign-in Site', redirectUris: [redirectUri], scopes: ['openid', 'profile'], postLogoutRedirectUris: [signedOut] });
    const authorize = new URL('/oauth/authorize', origin);
    authorize.search = new URLSearchParams({ client_id: client.clientId, response_type: 'code', redirect_uri: redirectUri, scope: 'openid profile', nonce: 'n-1', login_hint: email }).toString();
    await page.goto(authorize.toString());
    // The login page has the e-mail of login_hint already.
    expect(await page.inputValue('input[name="email"]')).toBe(email);
    await page.fill('input[name="password"]', 'correct horse battery');
    await Promise.all([page.waitForURL((url) => url.pathname === '/oauth/authorize'), page.click('button[type="submit"]')]);
    await Promise.all([page.waitForURL((url) => url.pathname === '/callback'), page.click('button[name="decision"][value="allow"]')]);
    const code = new URL(page.url()).searchParams.get('code') as string;
    const response = await fetch(`${origin}/oauth/token`, {
      method: 'POST',
      headers: { Authorization: basicAuth(client.clientId, clientSecret), 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri }).toString(),
    });
    const tokens = (await response.json()) as { id_token: string };
    return { idToken: tokens.id_token, clientId: client.clientId, signedOut };
  }

  it('without a hint: the confirmation page names the app, "Sign out" ends the sign-in and lands on the app with its state', async () => {
    const { browser, origin, clientOrigin } = harness;
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      const { clientId, signedOut } = await signInForIdToken(page, 'ada@example.com');
      const endSession = new URL('/oauth/logout', origin);
      endSession.search = new URLSearchParams({ client_id: clientId, post_logout_redirect_uri: signedOut, state: 'bye-state' }).toString();
      await page.goto(endSession.toString());
      expect(await page.textContent('h1')).toBe('Sign out?');
      expect(await page.textContent('main')).toContain('Sign-in Site asks you to sign out.');
      expect(await page.textContent('main')).toContain('ada@example.com');
      await Promise.all([page.waitForURL((url) => url.pathname === '/signed-out'), page.click('button[type="submit"]')]);
      const landed = new URL(page.url());
      expect(landed.origin).toBe(clientOrigin);
      expect(landed.searchParams.get('state')).toBe('bye-state');
      expect(await page.textContent('body')).toContain('signed out at the app');
      // Signed out of Gatehouse: its login page asks for the password again.
      await page.goto(`${origin}/oauth/login`);
      expect(await page.textContent('h1')).toBe('Sign in');
    } finally {
      await context.close();
    }
  }, 60_000);

  it('with an id_token_hint of this sign-in: no page, straight back to the app, signed out', async () => {
    const { browser, origin } = harness;
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      const { idToken, signedOut } = await signInForIdToken(page, 'grace@example.com');
      const endSession = new URL('/oauth/logout', origin);
      endSession.search = new URLSearchParams({ id_token_hint: idToken, post_logout_redirect_uri: signedOut }).toString();
      await page.goto(endSession.toString());
      expect(new URL(page.url()).pathname).toBe('/signed-out');
      await page.goto(`${origin}/oauth/login`);
      expect(await page.textContent('h1')).toBe('Sign in');
    } finally {
      await context.close();
    }
  }, 60_000);
});
