import { randomAlphanumeric } from '@gatehouse/core';
import request from 'supertest';
import { beforeEach, describe, expect, it } from 'vitest';
import { CSRF_COOKIE, SESSION_COOKIE } from '../security/cookies.js';
import { authorizePath, formAction, type TestBrowser } from '../test-support/index.js';
import { ALL_SCOPES, createHardenedApp, type Hardened } from './test-support/harness.js';

// RFC 9700 §4.7 / RFC 6749 §10.12: every state-changing form (login, consent, logout and the
// portal's) needs the CSRF token of its own browser; a refused form changes nothing. The login
// form's token is a double-submit cookie's; a signed-in form's is bound to the sign-in session
// (docs/decisions/0025), so a cookie alone is never enough.

interface FormUnderTest {
  browser: TestBrowser;
  /** False for the anonymous login form (double-submit); true for the forms of a signed-in session. */
  signedIn: boolean;
  path: string;
  fields: Record<string, string>;
  /** The answer of the same form with its right token. */
  expectAccepted(res: request.Response): void;
}

/** The harness, plus a grant made under a browser's sign-in session (so logout has something to revoke). */
type CsrfHarness = Hardened & { tokensUnderSession(browser: TestBrowser): Promise<void> };

type FormCase = [string, (h: CsrfHarness) => Promise<FormUnderTest>];

const scopeFields = Object.fromEntries(ALL_SCOPES.map((scope) => [`scope_${scope}`, 'on']));

const FORMS: FormCase[] = [
  ['login', async (h) => {
    const browser = h.browser();
    await browser.get('/oauth/login').expect(200);
    return { browser, signedIn: false, path: '/oauth/login', fields: { email: 'ada@example.com', password: 'password123' }, expectAccepted: (res) => expect(res.status).toBe(303) };
  }],
  ['consent (Allow)', async (h) => {
    const browser = await h.signedInBrowser('ada@example.com');
    const consent = await browser.get(authorizePath(h.client, { state: 's', prompt: 'consent' })).expect(200);
    const path = formAction(consent.text, '/oauth/authorize/decision') as string;
    return {
      browser,
      signedIn: true,
      path,
      fields: { decision: 'allow' },
      expectAccepted: (res) => {
        expect(res.status).toBe(302);
        expect(new URL(res.headers.location as string).searchParams.get('code')).toMatch(/^[0-9A-Za-z]{8}_[A-Za-z0-9]{43}$/);
      },
    };
  }],
  ['logout', async (h) => {
    const browser = await h.signedInBrowser('ada@example.com');
    await h.tokensUnderSession(browser);
    return { browser, signedIn: true, path: '/oauth/logout', fields: {}, expectAccepted: (res) => expect(res.text).toContain('signed out') };
  }],
  ['portal: register a client', async (h) => {
    const browser = await h.signedInBrowser('ada@example.com');
    await browser.get('/portal/clients/new').expect(200);
    return { browser, signedIn: true, path: '/portal/clients', fields: { name: 'Forged', redirect_uris: 'https://forged.example/cb', ...scopeFields }, expectAccepted: (res) => expect(res.status).toBe(303) };
  }],
  ['portal: edit a client', async (h) => {
    const browser = await h.signedInBrowser('ada@example.com');
    await browser.get(`/portal/clients/${h.client.clientId}/edit`).expect(200);
    return {
      browser,
      signedIn: true,
      path: `/portal/clients/${h.client.clientId}`,
      fields: { name: 'Renamed', redirect_uris: 'https://evil.example/cb', ...scopeFields },
      expectAccepted: (res) => expect(res.status).toBe(303),
    };
  }],
  ['portal: rotate a secret', async (h) => {
    const browser = await h.signedInBrowser('ada@example.com');
    return { browser, signedIn: true, path: `/portal/clients/${h.client.clientId}/rotate-secret`, fields: {}, expectAccepted: (res) => expect(res.status).toBe(303) };
  }],
  ['portal: delete a client', async (h) => {
    const browser = await h.signedInBrowser('ada@example.com');
    return { browser, signedIn: true, path: `/portal/clients/${h.client.clientId}/delete`, fields: {}, expectAccepted: (res) => expect(res.headers.location).toBe('/portal/clients?done=deleted') };
  }],
  ['portal: withdraw an authorized app', async (h) => {
    const browser = await h.signedInBrowser('ada@example.com');
    return { browser, signedIn: true, path: `/portal/authorized-apps/${h.client.clientId}/revoke`, fields: {}, expectAccepted: (res) => expect(res.headers.location).toBe('/portal/authorized-apps?done=revoked') };
  }],
];

/** The cookies of `browser` as a Cookie header, with the CSRF cookie left out or replaced (and the session, when given). */
function cookieHeader(browser: TestBrowser, csrfCookie: string | undefined, session = browser.sessionToken()): string {
  return [session === undefined ? undefined : `${SESSION_COOKIE}=${session}`, csrfCookie === undefined ? undefined : `${CSRF_COOKIE}=${csrfCookie}`].filter(Boolean).join('; ');
}

let h: CsrfHarness;

beforeEach(async () => {
  const base = await createHardenedApp();
  h = Object.assign(base, {
    async tokensUnderSession(browser: TestBrowser) {
      const code = await base.codeOverHttp(browser);
      await base.token({ grant_type: 'authorization_code', code, redirect_uri: base.client.redirectUris[0] as string }).expect(200);
    },
  });
});

describe('CSRF: a form without its own browser’s token is refused and changes nothing', () => {
  it.each(FORMS)('%s', async (_name, prepare) => {
    const form = await prepare(h);
    const own = form.browser.csrfToken() as string;
    // Double-submit: 43 random alphanumerics; session-bound: a base64url HMAC-SHA256.
    expect(own).toMatch(form.signedIn ? /^[A-Za-z0-9_-]{43}$/ : /^[A-Za-z0-9]{43}$/);
    const other = h.browser();
    await other.get('/oauth/login').expect(200);
    const foreign = other.csrfToken() as string;
    const otherSession = (await h.signedInBrowser('mel@example.com')).sessionToken() as string;
    const body = (token: string | undefined) => new URLSearchParams({ ...form.fields, ...(token === undefined ? {} : { csrf_token: token }) }).toString();

    const attempts: Array<[string, () => request.Test]> = [
      ['no token', () => form.browser.postForm(form.path, form.fields, { csrf: false })],
      ['an empty token', () => form.browser.agent.post(form.path).type('form').send(`${body(undefined)}&csrf_token=`)],
      ['a made-up token', () => form.browser.postForm(form.path, { ...form.fields, csrf_token: randomAlphanumeric(43) })],
      ['another browser’s token', () => form.browser.postForm(form.path, { ...form.fields, csrf_token: foreign })],
      ['its own token with one character changed', () => form.browser.postForm(form.path, { ...form.fields, csrf_token: `${own.slice(0, -1)}${own.endsWith('a') ? 'b' : 'a'}` })],
      ['its own token as a prefix', () => form.browser.postForm(form.path, { ...form.fields, csrf_token: own.slice(0, 42) })],
      ...(form.signedIn
        ? ([
            // The token is the session's: with another session cookie it is nobody's.
            ['the right token with another session’s cookie', () => request(h.app).post(form.path).set('Cookie', cookieHeader(form.browser, undefined, otherSession)).type('form').send(body(own))],
            // A token+cookie pair from any anonymous page does not fit the victim's session.
            ['another browser’s token with its own CSRF cookie (a planted pair)', () => request(h.app).post(form.path).set('Cookie', cookieHeader(form.browser, foreign)).type('form').send(body(foreign))],
          ] as Array<[string, () => request.Test]>)
        : ([
            ['the right token but no CSRF cookie', () => request(h.app).post(form.path).set('Cookie', cookieHeader(form.browser, undefined)).type('form').send(body(own))],
            ['a token equal to a forged cookie', () => request(h.app).post(form.path).set('Cookie', cookieHeader(form.browser, foreign)).type('form').send(body(own))],
          ] as Array<[string, () => request.Test]>)),
    ];
    const before = await h.snapshot();
    h.writes.length = 0;
    for (const [label, attempt] of attempts) {
      const res = await attempt();
      expect(res.status, label).toBe(403);
      expect(res.headers['content-type'], label).toMatch(/^text\/html/);
      expect(res.headers.location, label).toBeUndefined();
      expect(res.headers['set-cookie'] ?? [], label).not.toEqual(expect.arrayContaining([expect.stringMatching(new RegExp(`^${SESSION_COOKIE}=[A-Za-z0-9]`))]));
    }
    expect(h.writes.filter((write) => write.changed)).toEqual([]);
    expect(await h.snapshot()).toBe(before);
    expect(h.logger.lines.filter((line) => (line.obj as { event?: string }).event === 'csrf_refused')).toHaveLength(attempts.length);

    // The same form with its own token goes through (so the refusals above were the token's doing).
    form.expectAccepted(await form.browser.postForm(form.path, form.fields));
    expect(h.writes.filter((write) => write.changed).length).toBeGreaterThan(0);
  });
});
