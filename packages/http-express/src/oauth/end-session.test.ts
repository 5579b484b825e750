import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createTestApp, inputValue, type TestApp } from '../test-support/index.js';
import type { TestBrowser } from '../test-support/test-browser.js';

// RP-Initiated Logout 1.0 at /oauth/logout (docs/decisions/0135-rp-initiated-logout.md): a
// confirmation when the hint is missing or stale, none when it names this very sign-in; only
// registered post-logout redirect URIs, exactly; the sign-in and its grants end.

const SLOW = { timeout: 30_000 };
const BYE = 'https://client.example/signed-out';

async function setup() {
  const t = await createTestApp({ settings: { openid: true } });
  const user = await t.seedUser({ email: 'ada@example.com' });
  const { client, clientSecret } = await t.seedClient({ name: 'Relying Party', scopes: ['openid', 'profile'], postLogoutRedirectUris: [BYE] });
  return { t, user, client, clientSecret };
}

/** Signs in on a browser and gets an ID token (and access token) of that sign-in. */
async function signInWithIdToken(t: TestApp, client: Awaited<ReturnType<typeof setup>>['client'], clientSecret: string) {
  const { body, browser } = await t.tokensOverHttp({ client, clientSecret, email: 'ada@example.com', extra: { scope: 'openid' } });
  return { browser, idToken: body.id_token as string, accessToken: body.access_token as string };
}

const logoutPath = (params: Record<string, string>) => `/oauth/logout?${new URLSearchParams(params).toString()}`;

async function stillSignedIn(browser: TestBrowser): Promise<boolean> {
  const page = await browser.get('/oauth/login');
  return page.status === 200 && page.text.includes('You are signed in');
}

describe('RP-initiated logout (end_session_endpoint)', SLOW, () => {
  it('a hint of this very sign-in: signed out at once, back to the registered post-logout URI with state; the grants end', async () => {
    const { t, client, clientSecret } = await setup();
    const { browser, idToken, accessToken } = await signInWithIdToken(t, client, clientSecret);
    const res = await browser.get(logoutPath({ id_token_hint: idToken, post_logout_redirect_uri: BYE, state: 'st 1' })).expect(303);
    expect(res.headers.location).toBe(`${BYE}?state=st+1`);
    expect(await stillSignedIn(browser)).toBe(false);
    await expect(t.gatehouse.verifyAccessToken(accessToken)).rejects.toMatchObject({ code: 'invalid_token' });
    expect(t.audit.ofType('logout')).toMatchObject([{ clientId: client.clientId, reason: 'RP-initiated logout' }]);
  });

  it('no hint: the confirmation page names the app; its form signs out and goes back with state', async () => {
    const { t, client, clientSecret } = await setup();
    const { browser, accessToken } = await signInWithIdToken(t, client, clientSecret);
    const page = await browser.get(logoutPath({ client_id: client.clientId, post_logout_redirect_uri: BYE, state: 'abc' })).expect(200);
    expect(page.text).toContain('<strong>Relying Party</strong> asks you to sign out.');
    expect(inputValue(page.text, 'post_logout_redirect_uri')).toBe(BYE);
    expect(inputValue(page.text, 'state')).toBe('abc');
    expect(await stillSignedIn(browser)).toBe(true);
    const answer = await browser.postForm('/oauth/logout', { client_id: client.clientId, post_logout_redirect_uri: BYE, state: 'abc' }).expect(303);
    expect(answer.headers.location).toBe(`${BYE}?state=abc`);
    expect(await stillSignedIn(browser)).toBe(false);
    await expect(t.gatehouse.verifyAccessToken(accessToken)).rejects.toMatchObject({ code: 'invalid_token' });
  });

  it('a stale hint (another sign-in of the user, or a token that is not one of ours) asks first', async () => {
    const { t, client, clientSecret } = await setup();
    const first = await signInWithIdToken(t, client, clientSecret);
    const second = await signInWithIdToken(t, client, clientSecret);
    for (const hint of [first.idToken, 'not.a.token', second.accessToken]) {
      const page = await second.browser.get(logoutPath({ id_token_hint: hint, client_id: client.clientId, post_logout_redirect_uri: BYE })).expect(200);
      expect(page.text).toContain('<h1>Sign out?</h1>');
    }
    expect(await stillSignedIn(second.browser)).toBe(true);
    // Without client_id, the stale hint still names the client (its audience).
    const named = await second.browser.get(logoutPath({ id_token_hint: first.idToken, post_logout_redirect_uri: BYE })).expect(200);
    expect(named.text).toContain('Relying Party');
  });

  it('never an open redirect: an unregistered or merely similar URI, no client to name, a client_id the hint was not issued to, an unknown client', async () => {
    const { t, client, clientSecret } = await setup();
    const { client: other } = await t.seedClient({ name: 'Other', scopes: ['openid'], postLogoutRedirectUris: ['https://other.example/bye'] });
    const { browser, idToken } = await signInWithIdToken(t, client, clientSecret);
    const refusals: Array<Record<string, string>> = [
      { client_id: client.clientId, post_logout_redirect_uri: 'https://evil.example/' },
      { client_id: client.clientId, post_logout_redirect_uri: `${BYE}/` },
      { client_id: client.clientId, post_logout_redirect_uri: 'https://CLIENT.example/signed-out' },
      { id_token_hint: idToken, post_logout_redirect_uri: 'https://other.example/bye' },
      { post_logout_redirect_uri: BYE },
      { id_token_hint: idToken, client_id: other.clientId, post_logout_redirect_uri: 'https://other.example/bye' },
      { client_id: 'nosuchclient', post_logout_redirect_uri: BYE },
    ];
    for (const params of refusals) {
      const res = await browser.get(logoutPath(params));
      expect(res.status, JSON.stringify(params)).toBe(400);
      expect(res.headers.location).toBeUndefined();
      expect(res.text).toContain('This sign-out link is not valid');
    }
    expect(await stillSignedIn(browser)).toBe(true);
  });

  it('a confirmation form changed on its way (another post-logout URI) is refused and signs nobody out', async () => {
    const { t, client, clientSecret } = await setup();
    const { browser } = await signInWithIdToken(t, client, clientSecret);
    const res = await browser.postForm('/oauth/logout', { client_id: client.clientId, post_logout_redirect_uri: 'https://evil.example/' }).expect(400);
    expect(res.headers.location).toBeUndefined();
    expect(await stillSignedIn(browser)).toBe(true);
    // And without the CSRF token, the form is a relying party's request: sent to the GET, which
    // asks again; nobody signed out.
    const unsigned = await browser.postForm('/oauth/logout', { client_id: client.clientId, post_logout_redirect_uri: BYE }, { csrf: false }).expect(303);
    const asked = await browser.get(unsigned.headers.location as string).expect(200);
    expect(asked.text).toContain('<h1>Sign out?</h1>');
    expect(await stillSignedIn(browser)).toBe(true);
  });

  it('nobody signed in: straight back to the relying party with a hint it was issued (nothing to end); without one, the signed-out page (docs/decisions/0177)', async () => {
    const { t, client, clientSecret } = await setup();
    const { idToken } = await signInWithIdToken(t, client, clientSecret);
    const res = await request(t.app).get(logoutPath({ id_token_hint: idToken, post_logout_redirect_uri: BYE, state: 's' })).expect(303);
    expect(res.headers.location).toBe(`${BYE}?state=s`);
    // A registered URI alone vouches for nothing: no redirect for whoever crafted the link.
    const unvouched = await request(t.app).get(logoutPath({ client_id: client.clientId, post_logout_redirect_uri: BYE, state: 's' })).expect(200);
    expect(unvouched.headers.location).toBeUndefined();
    expect(unvouched.text).toContain('You are not signed in');
    const page = await request(t.app).get(logoutPath({ client_id: client.clientId })).expect(200);
    expect(page.text).toContain('You are not signed in');
  });

  it('a client that registered itself: its post-logout URI is no open redirect; only a hint of this very sign-in follows it', async () => {
    // RP-Initiated Logout §3 (docs/decisions/0177-post-logout-redirects-vouched-for.md):
    // anyone may register https://evil.example as a post-logout URI; the registration vouches for nothing.
    const t = await createTestApp({ settings: { openid: true, registration: { policy: 'open' } } });
    const registered = await request(t.app)
      .post('/oauth/register')
      .send({ redirect_uris: ['https://evil.example/cb'], post_logout_redirect_uris: ['https://evil.example/landing'], scope: 'openid' })
      .expect(201);
    const clientId = registered.body.client_id as string;
    const params = { client_id: clientId, post_logout_redirect_uri: 'https://evil.example/landing', state: 's' };
    // Nobody signed in: the signed-out page, no redirect.
    const page = await request(t.app).get(logoutPath(params)).expect(200);
    expect(page.text).toContain('You are not signed in');
    expect(page.headers.location).toBeUndefined();
    // Signed in, no hint: the confirmation carries no post-logout URI, and its form ends on the signed-out page.
    const user = await t.seedUser({ email: 'bob@example.com' });
    const browser = await t.signedInBrowser(user.email);
    const confirm = await browser.get(logoutPath(params)).expect(200);
    expect(confirm.text).toContain('<h1>Sign out?</h1>');
    expect(confirm.text).not.toContain('evil.example/landing');
    const answer = await browser.postForm('/oauth/logout', params).expect(200);
    expect(answer.headers.location).toBeUndefined();
    expect(await stillSignedIn(browser)).toBe(false);
  });

  it('a relying party may POST the request too (RP-Initiated Logout §2): a 303 to the same request as a GET, which ends the sign-in', async () => {
    const { t, client, clientSecret } = await setup();
    const { browser, idToken } = await signInWithIdToken(t, client, clientSecret);
    const form = { id_token_hint: idToken, post_logout_redirect_uri: BYE, state: 'a b&c' };
    // Sent from the relying party's site, the POST carries no session cookie (SameSite=Lax): it
    // must not answer "nobody signed in" and send the browser back with the sign-in still alive.
    const crossSite = await request(t.app).post('/oauth/logout').type('form').send(form).expect(303);
    const location = crossSite.headers.location as string;
    expect(location).toBe(`/oauth/logout?${new URLSearchParams(form).toString()}`);
    expect(await stillSignedIn(browser)).toBe(true);
    // The browser follows it as a top-level GET, with its cookie: signed out, back with the state.
    const followed = await browser.get(location).expect(303);
    expect(followed.headers.location).toBe(`${BYE}?state=a+b%26c`);
    expect(await stillSignedIn(browser)).toBe(false);
  });

  it('without OpenID Connect, the logout page ignores the parameters as before: it asks, and redirects nowhere', async () => {
    const t = await createTestApp();
    const user = await t.seedUser({ email: 'bob@example.com' });
    const browser = await t.signedInBrowser(user.email);
    const page = await browser.get(logoutPath({ client_id: 'x', post_logout_redirect_uri: BYE })).expect(200);
    expect(page.text).toContain('<h1>Sign out?</h1>');
    expect(page.text).not.toContain(BYE);
  });
});
