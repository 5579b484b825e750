import type { PasswordHasher } from '@gatehouse/core';
import { createFastPasswordHasher } from '@gatehouse/core/testing';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { authorizePath, createHostApp, createTestApp, csrfFieldOf, inputValue } from '../test-support/index.js';

function setCookies(res: request.Response): string[] {
  const header = res.headers['set-cookie'] as unknown as string[] | undefined;
  return header ?? [];
}

function cookieLine(res: request.Response, name: string): string | undefined {
  return setCookies(res).find((line) => line.startsWith(`${name}=`));
}

describe('GET /oauth/login', () => {
  it('shows a form with email, password and a CSRF token, and sets the CSRF cookie', async () => {
    const t = await createTestApp();
    const res = await request(t.app).get('/oauth/login?return_to=%2Foauth%2Fauthorize%3Fclient_id%3Dx').expect(200);
    expect(res.text).toMatch(/<form method="post" action="\/oauth\/login"/);
    expect(res.text).toMatch(/<input[^>]*name="email"[^>]*type="email"/);
    expect(res.text).toMatch(/<input[^>]*name="password"[^>]*type="password"/);
    const token = inputValue(res.text, 'csrf_token');
    expect(token).toMatch(/^[A-Za-z0-9]{43}$/);
    expect(cookieLine(res, 'gatehouse_csrf')).toContain(`gatehouse_csrf=${token}`);
    expect(inputValue(res.text, 'return_to')).toBe('/oauth/authorize?client_id=x');
    expect(res.text).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
  });

  it('names the app only for a valid authorization request (a made-up link puts no name on the page)', async () => {
    const t = await createTestApp();
    const { client } = await t.seedClient({ name: 'Demo client' });
    const named = await request(t.app).get(`/oauth/login?${new URLSearchParams({ return_to: authorizePath(client) })}`).expect(200);
    expect(named.text).toContain('<h1>Sign in to continue to Demo client</h1>');
    const forged = authorizePath({ clientId: client.clientId, redirectUris: ['https://evil.example/cb'] });
    for (const returnTo of [forged, '/portal/clients', '/oauth/authorize?client_id=nosuchclient&response_type=code']) {
      const page = await request(t.app).get(`/oauth/login?${new URLSearchParams({ return_to: returnTo })}`).expect(200);
      expect(page.text).toContain('<h1>Sign in</h1>');
      expect(page.text).not.toContain('Demo client');
    }
  });

  it("fills in the e-mail with the request's login_hint (OIDC Core §3.1.2.1), focusing the password; a made-up link fills in nothing", async () => {
    const t = await createTestApp();
    const { client } = await t.seedClient();
    const res = await request(t.app).get(authorizePath(client, { login_hint: 'ada@example.com' })).expect(302);
    const page = await request(t.app).get(res.headers.location as string).expect(200);
    expect(inputValue(page.text, 'email')).toBe('ada@example.com');
    expect(page.text).toMatch(/<input id="password"[^>]* autofocus>/);
    const forged = authorizePath({ clientId: client.clientId, redirectUris: ['https://evil.example/cb'] }, { login_hint: 'eve@example.com' });
    const refused = await request(t.app).get(`/oauth/login?${new URLSearchParams({ return_to: forged })}`).expect(200);
    expect(inputValue(refused.text, 'email')).toBe('');
    expect(refused.text).toMatch(/<input id="email"[^>]* autofocus value=""/);
  });

  it('drops a return_to that leaves the origin', async () => {
    const t = await createTestApp();
    for (const evil of ['//evil.example/x', 'https://evil.example/', '/\\evil.example', 'javascript:alert(1)', '/%0d%0aSet-Cookie:x']) {
      const res = await request(t.app).get(`/oauth/login?return_to=${encodeURIComponent(evil)}`).expect(200);
      const kept = inputValue(res.text, 'return_to');
      if (kept !== undefined) expect(kept.startsWith('/') && !kept.startsWith('//')).toBe(true);
      expect(res.text).not.toContain('evil.example"');
    }
  });
});

describe('POST /oauth/login', () => {
  it('signs in: session cookie HttpOnly, SameSite=Lax, Path=/, not Secure on http; CSRF token rotated; back to return_to', async () => {
    const t = await createTestApp();
    await t.seedUser({ email: 'ada@example.com' });
    const browser = t.browser();
    await browser.get('/oauth/login').expect(200);
    const before = browser.csrfToken();
    const res = await browser.postForm('/oauth/login', { email: 'ada@example.com', password: 'password123', return_to: '/oauth/authorize?client_id=abc&state=1' });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/oauth/authorize?client_id=abc&state=1');
    const session = cookieLine(res, 'gatehouse_session') as string;
    expect(session).toMatch(/^gatehouse_session=[A-Za-z0-9]{43};/);
    expect(session).toContain('HttpOnly');
    expect(session).toContain('SameSite=Lax');
    expect(session).toContain('Path=/');
    expect(session).not.toContain('Secure');
    expect(session).not.toContain('Domain');
    const csrf = cookieLine(res, 'gatehouse_csrf') as string;
    expect(csrf).toContain('HttpOnly');
    expect(browser.csrfToken()).not.toBe(before);
    // The session is stored by its hash only.
    const stored = await t.gatehouse.resolveSession(browser.sessionToken() as string);
    expect(stored?.user.email).toBe('ada@example.com');
    expect(stored?.session.sessionId).not.toBe(browser.sessionToken());
    expect(t.audit.ofType('sign_in.succeeded')).toHaveLength(1);
  });

  it('sets Secure cookies when the issuer is https', async () => {
    const t = await createTestApp({ settings: { issuer: 'https://auth.example.com' } });
    await t.seedUser({ email: 'ada@example.com' });
    const page = await request(t.app).get('/oauth/login').expect(200);
    // On https the cookies are __Host- cookies (docs/decisions/0025): no sibling domain can set them.
    expect(cookieLine(page, '__Host-gatehouse_csrf')).toContain('Secure');
    const token = inputValue(page.text, 'csrf_token') as string;
    const res = await request(t.app)
      .post('/oauth/login')
      .set('Cookie', `__Host-gatehouse_csrf=${token}`)
      .type('form')
      .send({ email: 'ada@example.com', password: 'password123', csrf_token: token })
      .expect(303);
    const session = cookieLine(res, '__Host-gatehouse_session') as string;
    expect(session).toContain('Secure');
    expect(session).toContain('HttpOnly');
    expect(session).toContain('SameSite=Lax');
    expect(res.headers['strict-transport-security']).toBeDefined();
  });

  it('without return_to lands on the portal in the reference app, and the login page of a signed-in browser links there', async () => {
    const t = await createTestApp();
    await t.seedUser({ email: 'ada@example.com' });
    const browser = t.browser();
    const res = await browser.signIn('ada@example.com');
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/portal/clients');
    const page = await browser.get('/portal/clients').expect(200);
    expect(page.text).toContain('<h1>OAuth Clients</h1>');
    const again = await browser.get('/oauth/login').expect(200);
    expect(again.text).toContain('<a class="button" href="/portal/clients">Continue</a>');
  });

  it('the bare router (no afterSignIn) lands on the login page, which says who is signed in', async () => {
    const host = await createHostApp();
    await host.seedUser({ email: 'ada@example.com' });
    const browser = host.agent();
    const login = await browser.get('/auth/oauth/login').expect(200);
    const res = await browser.post('/auth/oauth/login').type('form').send({ csrf_token: csrfFieldOf(login.text), email: 'ada@example.com', password: 'password123' });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/auth/oauth/login');
    const page = await browser.get('/auth/oauth/login').expect(200);
    expect(page.text).toContain('Signed in as <strong>ada@example.com</strong>');
  });

  it('another user signing in in a signed-in browser signs the previous one out (session ended, its grants revoked) (docs/decisions/0191)', async () => {
    const t = await createTestApp();
    const ada = await t.seedUser({ email: 'ada@example.com' });
    await t.seedUser({ email: 'bob@example.com' });
    const { client, clientSecret } = await t.seedClient();
    const { body, browser } = await t.tokensOverHttp({ client, clientSecret, email: ada.email });
    const adas = browser.sessionToken() as string;
    // Another user in the same browser: Ada's session ends, with the grant made under it.
    expect((await browser.signIn('bob@example.com')).status).toBe(303);
    expect((await t.gatehouse.resolveSession(browser.sessionToken() as string))?.user.email).toBe('bob@example.com');
    expect(await t.gatehouse.resolveSession(adas)).toBeUndefined();
    await expect(t.gatehouse.verifyAccessToken(body.access_token as string)).rejects.toMatchObject({ code: 'invalid_token' });
    expect(t.audit.ofType('logout').map((event) => event.userKey)).toEqual([ada.userKey]);
  });

  it('the same user signing in again hands the previous session over: it ends, its grants live on under the new one, whose sign-out ends them (docs/decisions/0194)', async () => {
    const t = await createTestApp();
    const ada = await t.seedUser({ email: 'ada@example.com' });
    const { client, clientSecret } = await t.seedClient();
    const { body, browser } = await t.tokensOverHttp({ client, clientSecret, email: ada.email });
    const first = browser.sessionToken() as string;

    // prompt=login: a new session; the previous one ends (nobody could end it from this browser any more).
    expect((await browser.signIn('ada@example.com')).status).toBe(303);
    const second = browser.sessionToken() as string;
    expect(second).not.toBe(first);
    expect(await t.gatehouse.resolveSession(first)).toBeUndefined();
    expect((await t.gatehouse.resolveSession(second))?.user.userKey).toBe(ada.userKey);
    // The grant made under it is the user's app: it still works, now under the new session.
    const { grantId } = await t.gatehouse.verifyAccessToken(body.access_token as string);
    expect((await t.repositories.grants.findById(grantId))?.sessionId).toBe((await t.gatehouse.resolveSession(second))?.session.sessionId);
    expect(t.audit.ofType('logout')).toEqual([]);

    // Signing out of this browser now ends it.
    await t.gatehouse.logout(second);
    await expect(t.gatehouse.verifyAccessToken(body.access_token as string)).rejects.toMatchObject({ code: 'invalid_token' });
  });

  it('an already signed-in browser is sent straight on to return_to', async () => {
    const t = await createTestApp();
    await t.seedUser({ email: 'ada@example.com' });
    const browser = await t.signedInBrowser('ada@example.com');
    const res = await browser.get('/oauth/login?return_to=%2Foauth%2Flogout').expect(302);
    expect(res.headers.location).toBe('/oauth/logout');
  });

  it('never redirects off the origin after sign-in', async () => {
    const t = await createTestApp();
    await t.seedUser({ email: 'ada@example.com' });
    for (const evil of ['//evil.example/', 'https://evil.example/', '/\\evil.example', 'http:/evil.example']) {
      const browser = t.browser();
      const res = await browser.signIn('ada@example.com', 'password123', evil);
      expect(res.status).toBe(303);
      expect(res.headers.location).toBe('/portal/clients');
    }
  });

  it('wrong password or unknown e-mail: the form again (401) with one generic message, no cookie', async () => {
    const t = await createTestApp();
    await t.seedUser({ email: 'ada@example.com' });
    const browser = t.browser();
    const wrong = await browser.signIn('ada@example.com', 'nope', '/oauth/logout');
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('The e-mail or password is not right.');
    expect(cookieLine(wrong, 'gatehouse_session')).toBeUndefined();
    expect(inputValue(wrong.text, 'email')).toBe('ada@example.com');
    expect(inputValue(wrong.text, 'return_to')).toBe('/oauth/logout');
    const unknown = await browser.signIn('nobody@example.com', 'nope');
    expect(unknown.status).toBe(401);
    expect(unknown.text).toContain('The e-mail or password is not right.');
    expect(t.audit.ofType('sign_in.failed')).toHaveLength(2);
  });

  it('missing fields: 400 with a message', async () => {
    const t = await createTestApp();
    const browser = t.browser();
    await browser.get('/oauth/login');
    const res = await browser.postForm('/oauth/login', { email: 'ada@example.com' });
    expect(res.status).toBe(400);
    expect(res.text).toContain('Enter your password.');
  });

  it('a login form without the CSRF token, or with a wrong one, is refused (403) and signs nobody in', async () => {
    const t = await createTestApp();
    await t.seedUser({ email: 'ada@example.com' });
    const browser = t.browser();
    await browser.get('/oauth/login');
    const missing = await browser.postForm('/oauth/login', { email: 'ada@example.com', password: 'password123' }, { csrf: false });
    expect(missing.status).toBe(403);
    expect(cookieLine(missing, 'gatehouse_session')).toBeUndefined();
    const noCookie = await request(t.app).post('/oauth/login').type('form').send({ email: 'ada@example.com', password: 'password123', csrf_token: browser.csrfToken() as string });
    expect(noCookie.status).toBe(403);
    expect(cookieLine(noCookie, 'gatehouse_session')).toBeUndefined();
    expect(t.audit.ofType('sign_in.succeeded')).toHaveLength(0);
  });

  it('a form body that is not form-urlencoded or repeats a field is refused', async () => {
    const t = await createTestApp();
    const browser = t.browser();
    await browser.get('/oauth/login');
    const json = await browser.agent.post('/oauth/login').send({ email: 'a', password: 'b' });
    expect(json.status).toBe(415);
    const token = browser.csrfToken() as string;
    const repeated = await browser.agent.post('/oauth/login').type('form').send(`csrf_token=${token}&email=a%40example.com&email=b%40example.com&password=x`);
    expect(repeated.status).toBe(400);
    expect(repeated.headers['content-type']).toMatch(/^text\/html/);
  });
});

describe('failed sign-ins are rate limited (429 + Retry-After)', () => {
  it('per e-mail: after the limit even the right password is refused until the window has passed', async () => {
    const t = await createTestApp({ rateLimit: { maxFailures: 3, windowSeconds: 60 } });
    await t.seedUser({ email: 'ada@example.com' });
    const browser = t.browser();
    for (let attempt = 0; attempt < 3; attempt += 1) {
      expect((await browser.signIn('ada@example.com', 'wrong')).status).toBe(401);
    }
    const limited = await browser.signIn('ada@example.com', 'password123');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(limited.text).toContain('Too many failed sign-ins');
    expect(cookieLine(limited, 'gatehouse_session')).toBeUndefined();
    // The same e-mail in another case or with spaces is the same key.
    expect((await browser.signIn(' ADA@example.com ', 'password123')).status).toBe(429);
    // Another e-mail from the same IP is still fine (the per-IP ceiling is higher).
    await t.seedUser({ email: 'bob@example.com' });
    expect((await browser.signIn('bob@example.com', 'password123')).status).toBe(303);
    t.clock.advance(61);
    expect((await browser.signIn('ada@example.com', 'password123')).status).toBe(303);
  });

  it('a burst sent at once gets no more password checks than the limit, the right password included (docs/decisions/0181)', async () => {
    // A password check that takes a while, as a real one does (argon2id): the burst overlaps it.
    const fast = createFastPasswordHasher();
    const passwords: PasswordHasher = { ...fast, verify: async (password, hash) => (await new Promise((resolve) => setTimeout(resolve, 200)), fast.verify(password, hash)) };
    const t = await createTestApp({ rateLimit: { maxFailures: 3, windowSeconds: 60 }, passwords });
    await t.seedUser({ email: 'ada@example.com' });
    // Twelve browsers with their login forms open, then every form sent at the same moment.
    const browsers = Array.from({ length: 12 }, () => t.browser());
    for (const browser of browsers) await browser.get('/oauth/login').expect(200);
    const answers = await Promise.all(browsers.map((browser, index) => browser.postForm('/oauth/login', { email: 'ada@example.com', password: index === 11 ? 'password123' : 'wrong', csrf_token: browser.csrfToken() as string })));
    const statuses = answers.map((answer) => answer.status);
    expect(t.audit.ofType('sign_in.failed').length).toBeLessThanOrEqual(3);
    expect(statuses.filter((status) => status === 401).length).toBeLessThanOrEqual(3);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(8);
    expect(statuses.every((status) => [401, 429, 303].includes(status))).toBe(true);
  });

  it('per IP: failures on many e-mails from one address', async () => {
    const t = await createTestApp({ rateLimit: { maxFailures: 2, windowSeconds: 60, maxFailuresPerIp: 3 } });
    await t.seedUser({ email: 'ada@example.com' });
    const browser = t.browser();
    for (const email of ['a@example.com', 'b@example.com', 'c@example.com']) {
      expect((await browser.signIn(email, 'wrong')).status).toBe(401);
    }
    const limited = await browser.signIn('ada@example.com', 'password123');
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBeDefined();
  });

  it('only failures count: many successful sign-ins are never limited', async () => {
    const t = await createTestApp({ rateLimit: { maxFailures: 2, windowSeconds: 60 } });
    await t.seedUser({ email: 'ada@example.com' });
    for (let attempt = 0; attempt < 5; attempt += 1) {
      expect((await t.browser().signIn('ada@example.com')).status).toBe(303);
    }
  });

  it('with trust proxy, the forwarded client address is the key', async () => {
    const t = await createTestApp({ rateLimit: { maxFailures: 100, windowSeconds: 60, maxFailuresPerIp: 1 }, trustProxy: 'loopback' });
    await t.seedUser({ email: 'ada@example.com' });
    const browser = t.browser();
    await browser.get('/oauth/login');
    const post = (ip: string, password: string) =>
      browser.agent.post('/oauth/login').set('X-Forwarded-For', ip).type('form').send({ email: 'ada@example.com', password, csrf_token: browser.csrfToken() as string });
    expect((await post('203.0.113.1', 'wrong')).status).toBe(401);
    expect((await post('203.0.113.1', 'password123')).status).toBe(429);
    expect((await post('203.0.113.2', 'password123')).status).toBe(303);
  });
});

describe('sign-in as part of the code flow', () => {
  it('authorize → login → back to authorize → consent', async () => {
    const t = await createTestApp();
    await t.seedUser({ email: 'ada@example.com' });
    const { client } = await t.seedClient({ name: 'Flow App' });
    const browser = t.browser();
    const first = await browser.get(authorizePath(client, { state: 'zz' })).expect(302);
    const loginPath = first.headers.location as string;
    const page = await browser.get(loginPath).expect(200);
    const returnTo = inputValue(page.text, 'return_to') as string;
    const signIn = await browser.postForm('/oauth/login', { email: 'ada@example.com', password: 'password123', return_to: returnTo });
    expect(signIn.status).toBe(303);
    expect(signIn.headers.location).toBe(authorizePath(client, { state: 'zz' }));
    const consent = await browser.get(signIn.headers.location as string).expect(200);
    expect(consent.text).toContain('Flow App');
  });
});
