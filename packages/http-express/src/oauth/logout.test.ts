import { describe, expect, it } from 'vitest';
import { exchangeCode, createTestApp, inputValue } from '../test-support/index.js';

describe('/oauth/logout (product logout)', () => {
  it('GET shows a confirmation form with a CSRF token and does not sign out', async () => {
    const t = await createTestApp();
    await t.seedUser({ email: 'ada@example.com' });
    const browser = await t.signedInBrowser('ada@example.com');
    const page = await browser.get('/oauth/logout').expect(200);
    expect(page.text).toMatch(/<form method="post" action="\/oauth\/logout">/);
    expect(inputValue(page.text, 'csrf_token')).toBe(browser.csrfToken());
    expect(await t.gatehouse.resolveSession(browser.sessionToken() as string)).toBeDefined();
  });

  it('POST ends the session, clears the cookie, revokes the grants made under it and shows “signed out”', async () => {
    const t = await createTestApp();
    const user = await t.seedUser({ email: 'ada@example.com' });
    const { client, clientSecret } = await t.seedClient();
    const { body, browser } = await t.tokensOverHttp({ client, clientSecret, email: 'ada@example.com' });
    // A grant made outside this sign-in session survives the logout.
    const elsewhere = await t.obtainTokens({ client, user });
    const sessionToken = browser.sessionToken() as string;
    const csrfBefore = browser.csrfToken();
    const res = await browser.postForm('/oauth/logout', {});
    expect(res.status).toBe(200);
    expect(res.text).toContain('You are signed out');
    const cleared = (res.headers['set-cookie'] as unknown as string[]).find((line) => line.startsWith('gatehouse_session='));
    expect(cleared).toMatch(/^gatehouse_session=;.*Expires=Thu, 01 Jan 1970/);
    expect(browser.sessionToken()).toBeUndefined();
    expect(browser.csrfToken()).not.toBe(csrfBefore);
    expect(await t.gatehouse.resolveSession(sessionToken)).toBeUndefined();
    await expect(t.gatehouse.verifyAccessToken(body.access_token as string)).rejects.toMatchObject({ code: 'invalid_token' });
    await expect(t.gatehouse.verifyAccessToken(elsewhere.access_token)).resolves.toBeDefined();
    expect(t.audit.ofType('logout')).toHaveLength(1);
    const after = await browser.get('/oauth/logout').expect(200);
    expect(after.text).toContain('You are not signed in');
  });

  it('a code allowed before the logout cannot be exchanged after it: 400 invalid_grant, no tokens', async () => {
    const t = await createTestApp();
    const user = await t.seedUser({ email: 'ada@example.com' });
    const { client, clientSecret } = await t.seedClient();
    const browser = await t.signedInBrowser('ada@example.com');
    const { code } = await browser.authorize(client);
    expect(code).toEqual(expect.any(String));
    expect((await browser.postForm('/oauth/logout', {})).text).toContain('You are signed out');

    const res = await exchangeCode(t.app, client, clientSecret, code);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_grant', error_description: 'The authorization code is invalid, expired or already used.' });
    expect(await t.repositories.grants.listActiveByUser(user.userKey)).toEqual([]);
  });

  it('POST without the CSRF token is refused (403) and the session lives on', async () => {
    const t = await createTestApp();
    await t.seedUser({ email: 'ada@example.com' });
    const browser = await t.signedInBrowser('ada@example.com');
    const res = await browser.postForm('/oauth/logout', {}, { csrf: false });
    expect(res.status).toBe(403);
    expect(await t.gatehouse.resolveSession(browser.sessionToken() as string)).toBeDefined();
    expect(t.audit.ofType('logout')).toHaveLength(0);
  });

  it('POST from a browser that is not signed in just shows the page', async () => {
    const t = await createTestApp();
    const browser = t.browser();
    await browser.get('/oauth/logout').expect(200);
    const res = await browser.postForm('/oauth/logout', {});
    expect(res.status).toBe(200);
    expect(res.text).toContain('You are not signed in');
  });
});
