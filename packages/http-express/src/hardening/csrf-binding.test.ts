import request from 'supertest';
import { beforeEach, describe, expect, it } from 'vitest';
import { createGatehouseApp } from '../app.js';
import { authorizePath, createTestApp, formAction, inputValue, TestBrowser } from '../test-support/index.js';
import { createHardenedApp, type Hardened } from './test-support/harness.js';

// RFC 9700 §4.7.1 / RFC 6749 §10.12: the CSRF token of a signed-in form is bound to the sign-in
// session (a token+cookie pair taken from any anonymous page does not work with the victim's
// session cookie); a security cookie sent twice (one planted from a sibling domain) is refused;
// on an https issuer the cookies are `__Host-` cookies, which no sibling domain can set.

let h: Hardened;

beforeEach(async () => {
  h = await createHardenedApp();
});

/** A token + cookie pair as anyone can take it from the anonymous login page. */
async function anonymousPair(): Promise<string> {
  const attacker = h.browser();
  const page = await attacker.get('/oauth/login').expect(200);
  const token = inputValue(page.text, 'csrf_token') as string;
  expect(attacker.cookie('gatehouse_csrf')).toBe(token);
  return token;
}

function expectRefusedWithoutEffect(res: request.Response, status: number, label: string): void {
  expect(res.status, label).toBe(status);
  expect(res.headers['content-type'], label).toMatch(/^text\/html/);
  expect(res.headers.location, label).toBeUndefined();
  expect(h.writes.filter((write) => write.changed), label).toEqual([]);
}

describe('the CSRF token of a signed-in form is bound to its session', () => {
  it('an anonymous token+cookie pair with the victim’s session cookie is refused on every signed-in form', async () => {
    const pair = await anonymousPair();
    const victim = await h.signedInBrowser('ada@example.com');
    const consent = await victim.get(authorizePath(h.client, { state: 's', prompt: 'consent' })).expect(200);
    const decision = formAction(consent.text, '/oauth/authorize/decision') as string;
    const forms: Array<[string, Record<string, string>]> = [
      [decision, { decision: 'allow' }],
      ['/oauth/logout', {}],
      ['/portal/clients', { name: 'Forged', redirect_uris: 'https://evil.example/cb', scope_messaging_v1_read: 'on' }],
      [`/portal/clients/${h.client.clientId}/rotate-secret`, {}],
      [`/portal/clients/${h.client.clientId}/delete`, {}],
      [`/portal/authorized-apps/${h.client.clientId}/revoke`, {}],
    ];
    h.writes.length = 0;
    for (const [path, fields] of forms) {
      const res = await request(h.app)
        .post(path)
        .set('Cookie', `gatehouse_session=${victim.sessionToken() as string}; gatehouse_csrf=${pair}`)
        .type('form')
        .send(new URLSearchParams({ ...fields, csrf_token: pair }).toString());
      expectRefusedWithoutEffect(res, 403, path);
    }
    // The victim's own form still works (so the refusals were the binding's doing).
    const allowed = await victim.postForm(decision, { decision: 'allow' });
    expect(allowed.status).toBe(302);
    expect(new URL(allowed.headers.location as string).searchParams.get('code')).toMatch(/^[0-9A-Za-z]{8}_[A-Za-z0-9]{43}$/);
  });

  it('the token of another session, even of the same user, is refused', async () => {
    const first = await h.signedInBrowser('ada@example.com');
    const second = await h.signedInBrowser('ada@example.com');
    const firstToken = inputValue((await first.get('/oauth/logout').expect(200)).text, 'csrf_token') as string;
    const secondToken = inputValue((await second.get('/oauth/logout').expect(200)).text, 'csrf_token') as string;
    expect(firstToken).not.toBe(secondToken);
    h.writes.length = 0;
    expectRefusedWithoutEffect(await second.postForm('/oauth/logout', { csrf_token: firstToken }), 403, 'first session’s token');
    expect((await second.postForm('/oauth/logout', { csrf_token: secondToken })).text).toContain('You are signed out');
  });

  it('the page’s token changes when the session does, and the old one stops working', async () => {
    const browser = h.browser();
    const anonymous = inputValue((await browser.get('/oauth/login').expect(200)).text, 'csrf_token') as string;
    await browser.signIn('ada@example.com', 'password123');
    const signedIn = inputValue((await browser.get('/oauth/logout').expect(200)).text, 'csrf_token') as string;
    expect(signedIn).not.toBe(anonymous);
    await browser.postForm('/oauth/logout', {}).expect(200);
    await browser.signIn('ada@example.com', 'password123');
    const renewed = inputValue((await browser.get('/oauth/logout').expect(200)).text, 'csrf_token') as string;
    expect(renewed).not.toBe(signedIn);
    h.writes.length = 0;
    expectRefusedWithoutEffect(await browser.postForm('/oauth/logout', { csrf_token: signedIn }), 403, 'the previous session’s token');
  });
});

describe('a security cookie sent twice is refused (a planted one could come first)', () => {
  const twice = (name: string, first: string, second: string) => `${name}=${first}; other=1; ${name}=${second}`;

  it('the CSRF cookie twice: 400 page on every page route, nothing changes', async () => {
    const pair = await anonymousPair();
    const own = await anonymousPair();
    const victim = await h.signedInBrowser('ada@example.com');
    const session = `gatehouse_session=${victim.sessionToken() as string}`;
    const cookie = `${twice('gatehouse_csrf', pair, own)}; ${session}`;
    h.writes.length = 0;
    const attempts: Array<[string, () => request.Test]> = [
      ['GET login', () => request(h.app).get('/oauth/login').set('Cookie', cookie)],
      ['GET authorize', () => request(h.app).get(authorizePath(h.client)).set('Cookie', cookie)],
      ['GET portal', () => request(h.app).get('/portal/clients').set('Cookie', cookie)],
      ['POST login (planted pair first)', () => request(h.app).post('/oauth/login').set('Cookie', twice('gatehouse_csrf', pair, own)).type('form').send({ email: 'ada@example.com', password: 'password123', csrf_token: pair })],
      ['POST logout', () => request(h.app).post('/oauth/logout').set('Cookie', cookie).type('form').send({ csrf_token: pair })],
    ];
    for (const [label, attempt] of attempts) {
      const res = await attempt();
      expectRefusedWithoutEffect(res, 400, label);
      expect(res.text, label).toContain('cookie');
      expect(res.headers['set-cookie'] ?? [], label).not.toEqual(expect.arrayContaining([expect.stringMatching(/^gatehouse_session=[A-Za-z0-9]/)]));
    }
  });

  it('the session cookie twice: 400 page, the planted session is not used', async () => {
    const attacker = await h.signedInBrowser('mel@example.com');
    const victim = await h.signedInBrowser('ada@example.com');
    const cookie = twice('gatehouse_session', attacker.sessionToken() as string, victim.sessionToken() as string);
    h.writes.length = 0;
    for (const path of ['/oauth/login', authorizePath(h.client), '/portal/clients', '/oauth/logout']) {
      const res = await request(h.app).get(path).set('Cookie', cookie);
      expectRefusedWithoutEffect(res, 400, path);
      expect(res.text, path).not.toContain('mel@example.com');
    }
  });
});

describe('__Host- cookie names when the issuer is https', () => {
  const ISSUER = 'https://auth.example.com';

  function cookieLines(res: request.Response): string[] {
    return (res.headers['set-cookie'] as unknown as string[] | undefined) ?? [];
  }

  async function httpsSignIn() {
    const t = await createTestApp({ settings: { issuer: ISSUER } });
    await t.seedUser({ email: 'ada@example.com' });
    const { client } = await t.seedClient();
    const page = await request(t.app).get('/oauth/login').expect(200);
    const token = inputValue(page.text, 'csrf_token') as string;
    return { t, client, page, token };
  }

  it('the CSRF and session cookies are __Host-: Secure, Path=/, no Domain', async () => {
    const { t, page, token } = await httpsSignIn();
    const csrf = cookieLines(page).find((line) => line.startsWith('__Host-gatehouse_csrf=')) as string;
    expect(csrf).toBe(`__Host-gatehouse_csrf=${token}; Path=/; HttpOnly; Secure; SameSite=Lax`);
    const res = await request(t.app)
      .post('/oauth/login')
      .set('Cookie', `__Host-gatehouse_csrf=${token}`)
      .type('form')
      .send({ email: 'ada@example.com', password: 'password123', csrf_token: token });
    expect(res.status).toBe(303);
    const session = cookieLines(res).find((line) => line.startsWith('__Host-gatehouse_session=')) as string;
    expect(session).toMatch(/^__Host-gatehouse_session=[A-Za-z0-9]{43}; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
    expect(cookieLines(res).some((line) => line.startsWith('gatehouse_'))).toBe(false);
  });

  it('unprefixed cookies (which a sibling domain could plant) are ignored on https', async () => {
    const { t, client, token } = await httpsSignIn();
    const planted = await request(t.app)
      .post('/oauth/login')
      .set('Cookie', `gatehouse_csrf=${token}`)
      .type('form')
      .send({ email: 'ada@example.com', password: 'password123', csrf_token: token });
    expect(planted.status).toBe(403);
    const signIn = await request(t.app)
      .post('/oauth/login')
      .set('Cookie', `__Host-gatehouse_csrf=${token}`)
      .type('form')
      .send({ email: 'ada@example.com', password: 'password123', csrf_token: token });
    const sessionToken = /^__Host-gatehouse_session=([A-Za-z0-9]+);/.exec(cookieLines(signIn).find((line) => line.startsWith('__Host-gatehouse_session=')) as string)?.[1] as string;
    const unprefixed = await request(t.app).get(authorizePath(client)).set('Cookie', `gatehouse_session=${sessionToken}`);
    expect(unprefixed.status).toBe(302);
    expect(unprefixed.headers.location).toMatch(/^\/oauth\/login\?return_to=/);
    const prefixed = await request(t.app).get(authorizePath(client)).set('Cookie', `__Host-gatehouse_session=${sessionToken}`);
    expect(prefixed.status).toBe(200);
    expect(prefixed.text).toContain('/oauth/authorize/decision');
  });
});


describe('the CSRF key (createGatehouseApp({ csrfKey }))', () => {
  it('two instances with the same key accept each other’s forms; a different key does not', async () => {
    const t = await createTestApp();
    await t.seedUser({ email: 'ada@example.com' });
    const { client } = await t.seedClient();
    const key = 'k'.repeat(32);
    const instanceA = createGatehouseApp({ gatehouse: t.gatehouse, product: t.product, csrfKey: key });
    const instanceB = createGatehouseApp({ gatehouse: t.gatehouse, product: t.product, csrfKey: key });
    const otherKey = createGatehouseApp({ gatehouse: t.gatehouse, product: t.product, csrfKey: 'x'.repeat(32) });
    const unkeyed = createGatehouseApp({ gatehouse: t.gatehouse, product: t.product });

    const browser = new TestBrowser(instanceA, key);
    expect((await browser.signIn('ada@example.com')).status).toBe(303);
    const consent = await browser.get(authorizePath(client, { state: 's' })).expect(200);
    const token = inputValue(consent.text, 'csrf_token') as string;
    expect(token).toBe(browser.csrfToken());
    const action = formAction(consent.text, '/oauth/authorize/decision') as string;
    const post = (app: typeof instanceA) =>
      request(app).post(action).set('Cookie', `gatehouse_session=${browser.sessionToken() as string}`).type('form').send({ decision: 'allow', csrf_token: token });

    for (const [label, app] of [['another key', otherKey], ['no key', unkeyed]] as const) {
      const refused = await post(app);
      expect(refused.status, label).toBe(403);
      expect(refused.headers.location, label).toBeUndefined();
    }
    const accepted = await post(instanceB);
    expect(accepted.status).toBe(302);
    expect(new URL(accepted.headers.location as string).searchParams.get('code')).toMatch(/^[0-9A-Za-z]{8}_[A-Za-z0-9]{43}$/);
  });
});
