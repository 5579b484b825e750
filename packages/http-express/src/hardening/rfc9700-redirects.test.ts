import { s256Challenge } from '@gatehouse/core/testing';
import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { authorizePath, formAction, inputValue, type TestBrowser } from '../test-support/index.js';
import { createHardenedApp, type Hardened } from './test-support/harness.js';

// RFC 9700 §2.1 and §4.1 (redirect URIs), §4.11 (open redirection), RFC 9207 (iss).

const ISSUER = 'http://localhost:3000';
const REGISTERED = 'https://client.example/callback';

let h: Hardened;
let browser: TestBrowser;

beforeAll(async () => {
  h = await createHardenedApp();
  browser = await h.signedInBrowser('ada@example.com');
});

function expectErrorPageWithoutRedirect(res: request.Response, label: string): void {
  expect(res.status, label).toBe(400);
  expect(res.headers.location, label).toBeUndefined();
  expect(res.headers['content-type'], label).toMatch(/^text\/html; charset=utf-8/);
  expect(res.text, label).toContain('This sign-in link is not valid');
  expect(res.text, label).not.toMatch(/evil\.example/);
}

/** Every way a redirect_uri can differ from the registered one while looking alike. */
const LOOKALIKES: Array<[string, string]> = [
  ['a prefix of the registered URI', 'https://client.example/call'],
  ['the registered URI as a prefix', 'https://client.example/callbackevil'],
  ['the registered host as a prefix', 'https://client.example.evil.example/callback'],
  ['an added query', `${REGISTERED}?next=https://evil.example/`],
  ['an added empty query', `${REGISTERED}?`],
  ['an added path segment', `${REGISTERED}/evil`],
  ['a trailing slash', `${REGISTERED}/`],
  ['dot segments', 'https://client.example/x/../callback'],
  ['a different case in the path', 'https://client.example/Callback'],
  ['a different case in the host', 'https://CLIENT.example/callback'],
  ['percent-encoding of an unreserved character', 'https://client.example/%63allback'],
  ['a fragment', `${REGISTERED}#evil`],
  ['an empty fragment', `${REGISTERED}#`],
  ['http instead of https (not loopback)', 'http://client.example/callback'],
  ['the default port spelled out', 'https://client.example:443/callback'],
  ['another port', 'https://client.example:8443/callback'],
  ['user information pointing elsewhere', 'https://client.example@evil.example/callback'],
  ['another host entirely', 'https://evil.example/callback'],
  ['a relative reference', '/callback'],
  ['a javascript: URI', 'javascript:alert(1)'],
];

describe('RFC 9700 §4.1.3: the redirect URI must equal a registered one exactly', () => {
  it.each(LOOKALIKES)('refuses %s with the 400 page and no Location (signed in or not, at authorize and at the decision)', async (label, uri) => {
    h.writes.length = 0;
    const path = authorizePath(h.client, { redirect_uri: uri, state: 'xyz' });
    expectErrorPageWithoutRedirect(await request(h.app).get(path), `${label}: anonymous`);
    expectErrorPageWithoutRedirect(await browser.get(path), `${label}: signed in`);
    // Other errors in the same request must not turn it into a redirect either.
    expectErrorPageWithoutRedirect(await browser.get(authorizePath(h.client, { redirect_uri: uri, response_type: 'token', scope: 'nope' })), `${label}: with other errors`);
    // A forged consent answer with the same parameters issues nothing.
    const decision = await browser.postForm(`/oauth/authorize/decision?${path.split('?')[1]}`, { decision: 'allow' });
    expectErrorPageWithoutRedirect(decision, `${label}: decision`);
    expect(h.writes.filter((w) => w.changed), label).toEqual([]);
  });

  it('the registered URI itself works (the lookalikes differ only in the named way)', async () => {
    const code = await h.codeOverHttp(browser, h.client, { redirect_uri: REGISTERED });
    expect(code).toMatch(/^[0-9A-Za-z]{8}_[A-Za-z0-9]{43}$/);
  });

  it('http is accepted on loopback only, at registration and at authorize (RFC 8252 §7.3)', async () => {
    const { client: loopback } = await h.seedClient({ redirectUris: ['http://127.0.0.1:8080/cb', 'http://localhost:8080/cb'] });
    expect((await browser.get(authorizePath(loopback, { redirect_uri: 'http://127.0.0.1:8080/cb' })))?.status).toBe(200);
    // RFC 8252 §7.3: a loopback IP redirect URI takes any port; nothing else about it changes.
    expect((await browser.get(authorizePath(loopback, { redirect_uri: 'http://127.0.0.1:8081/cb' })))?.status).toBe(200);
    expectErrorPageWithoutRedirect(await browser.get(authorizePath(loopback, { redirect_uri: 'http://127.0.0.1:8081/cb2' })), 'another loopback path');
    expectErrorPageWithoutRedirect(await browser.get(authorizePath(loopback, { redirect_uri: 'http://127.0.0.2:8080/cb' })), 'another loopback address');
    // RFC 8252 §8.3: localhost is not an IP literal, so its port is compared like the rest.
    expectErrorPageWithoutRedirect(await browser.get(authorizePath(loopback, { redirect_uri: 'http://localhost:8081/cb' })), 'localhost on another port');
    for (const uri of ['http://client.example/cb', 'https://client.example/cb#x', 'client.example/cb', 'https://user:pw@client.example/cb']) {
      await expect(h.seedClient({ redirectUris: [uri] }), uri).rejects.toMatchObject({ kind: 'invalid' });
    }
  });
});

describe('RFC 9700 §4.11: no open redirect from any error path', () => {
  it('authorize errors never redirect to an untrusted URI, whatever else is wrong', async () => {
    const bad = 'https://evil.example/steal';
    const cases: Array<Record<string, string | undefined>> = [
      { client_id: 'unknown-client', redirect_uri: bad },
      { client_id: 'unknown-client', redirect_uri: bad, response_type: 'token' },
      { client_id: undefined, redirect_uri: bad },
      { redirect_uri: bad, response_type: undefined },
      { redirect_uri: bad, response_type: 'token' },
      { redirect_uri: bad, scope: 'admin.v1.everything' },
      { redirect_uri: bad, code_challenge: 'x'.repeat(43), code_challenge_method: 'plain' },
      { redirect_uri: bad, state: 'a', prompt: 'none' },
    ];
    for (const extra of cases) {
      const res = await browser.get(authorizePath(h.client, extra));
      expectErrorPageWithoutRedirect(res, JSON.stringify(extra));
    }
    // A repeated redirect_uri whose first value is the registered one.
    const repeated = `${authorizePath(h.client)}&redirect_uri=${encodeURIComponent(bad)}`;
    expectErrorPageWithoutRedirect(await browser.get(repeated), 'repeated redirect_uri');
  });

  it('authorize errors with a trusted redirect URI go only there', async () => {
    for (const extra of [{ response_type: 'token' }, { scope: 'nope' }, { code_challenge_method: 'plain', code_challenge: 'x'.repeat(43) }]) {
      const res = await browser.get(authorizePath(h.client, extra));
      expect(res.status).toBe(302);
      expect((res.headers.location as string).startsWith(`${REGISTERED}?`)).toBe(true);
    }
  });

  const HOSTILE_RETURN_TO = [
    'https://evil.example/',
    'http:evil.example',
    '//evil.example/',
    '///evil.example/',
    '/\\evil.example',
    '\\\\evil.example',
    '/\t/evil.example',
    '/%09/evil.example',
    ' //evil.example',
    'javascript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    '/oauth/login\r\nLocation: https://evil.example',
  ];

  /** A Location that stays on the issuer's origin and cannot be read as another host. */
  function expectSameOrigin(location: string | undefined, label: string): void {
    expect(location, label).toBeDefined();
    expect(location, label).toMatch(/^\/(?![/\\])/);
    expect(location, label).not.toMatch(/[\\\s]/);
    expect(new URL(location as string, ISSUER).origin, label).toBe(ISSUER);
  }

  it('login return_to: absolute, scheme-relative, backslash and control-character URLs never leave the origin', async () => {
    for (const target of HOSTILE_RETURN_TO) {
      // Already signed in: GET /oauth/login?return_to= goes on at once.
      const signedIn = await browser.get(`/oauth/login?return_to=${encodeURIComponent(target)}`);
      if (signedIn.status === 302) {
        expectSameOrigin(signedIn.headers.location, `GET ${target}`);
      } else {
        expect(signedIn.status, target).toBe(200);
        expect(signedIn.text, target).not.toContain('evil.example');
      }

      // The sign-in form's answer.
      const fresh = h.browser();
      const login = await fresh.signIn('ada@example.com', 'password123', target);
      expect(login.status, target).toBe(303);
      expectSameOrigin(login.headers.location, `POST ${target}`);

      // The login page carries it on only as a same-origin path.
      const page = await h.browser().get(`/oauth/login?return_to=${encodeURIComponent(target)}`);
      expect(page.status).toBe(200);
      const carried = inputValue(page.text, 'return_to');
      if (carried !== undefined) expectSameOrigin(carried, `login page ${target}`);
    }
  });

  it('logout never redirects, whatever redirect parameters it is given', async () => {
    const user = await h.signedInBrowser('mel@example.com');
    const query = '?return_to=https%3A%2F%2Fevil.example&post_logout_redirect_uri=https%3A%2F%2Fevil.example&redirect_uri=https%3A%2F%2Fevil.example';
    const form = await user.get(`/oauth/logout${query}`);
    expect(form.status).toBe(200);
    expect(form.headers.location).toBeUndefined();
    const done = await user.postForm(`/oauth/logout${query}`, { return_to: 'https://evil.example', post_logout_redirect_uri: 'https://evil.example' });
    expect(done.status).toBe(200);
    expect(done.headers.location).toBeUndefined();
    expect(done.text).not.toContain('evil.example');
    const refused = await user.postForm(`/oauth/logout${query}`, {}, { csrf: false });
    expect(refused.status).toBe(403);
    expect(refused.headers.location).toBeUndefined();
  });

  it('the portal sends a signed-out browser to the login page with a same-origin return_to only', async () => {
    for (const path of ['/portal/clients', '/portal//evil.example', '/portal/clients/%2F%2Fevil.example']) {
      const res = await request(h.app).get(path);
      expect(res.status, path).toBe(303);
      const location = res.headers.location as string;
      expectSameOrigin(location, path);
      const returnTo = new URL(location, ISSUER).searchParams.get('return_to');
      if (returnTo !== null) expectSameOrigin(returnTo, `${path} return_to`);
    }
  });
});

describe('RFC 9700 §4.12: no 307 after a POST that carried credentials', () => {
  it('sign-in answers 303 and the consent decision 302, so the browser does not re-send the form to the target', async () => {
    const login = await h.browser().signIn('ada@example.com', 'password123', authorizePath(h.client));
    expect(login.status).toBe(303);
    const { response } = await browser.authorize(h.client);
    expect(response.status).toBe(302);
  });
});

describe('RFC 9207: iss in every authorization response', () => {
  function expectIss(res: request.Response, expected: Record<string, string>): URLSearchParams {
    expect(res.status).toBe(302);
    const location = new URL(res.headers.location as string);
    expect(`${location.origin}${location.pathname}`).toBe(REGISTERED);
    const params = location.searchParams;
    expect(params.getAll('iss')).toEqual([ISSUER]);
    for (const [name, value] of Object.entries(expected)) expect(params.get(name), name).toBe(value);
    return params;
  }

  it('success: code, state and iss', async () => {
    const { response } = await browser.authorize(h.client, { state: 's-ok' });
    const params = expectIss(response, { state: 's-ok' });
    expect(params.get('code')).toMatch(/^[0-9A-Za-z]{8}_[A-Za-z0-9]{43}$/);
  });

  it('deny: access_denied, state and iss', async () => {
    const { response } = await browser.authorize(h.client, { state: 's-deny', prompt: 'consent' }, 'deny');
    const params = expectIss(response, { error: 'access_denied', state: 's-deny' });
    expect(params.get('code')).toBeNull();
  });

  it.each([
    ['missing response_type', { response_type: undefined }, 'invalid_request'],
    ['unsupported response_type', { response_type: 'token' }, 'unsupported_response_type'],
    ['unknown scope', { scope: 'admin.v1.nothing' }, 'invalid_scope'],
    ['PKCE plain', { code_challenge: 'x'.repeat(43), code_challenge_method: 'plain' }, 'invalid_request'],
    ['PKCE challenge without a method (plain by default)', { code_challenge: 'x'.repeat(43) }, 'invalid_request'],
    ['PKCE method without a challenge', { code_challenge_method: 'S256' }, 'invalid_request'],
    ['a malformed S256 challenge', { code_challenge: 'short', code_challenge_method: 'S256' }, 'invalid_request'],
  ] as Array<[string, Record<string, string | undefined>, string]>)('error (%s): error, state and iss', async (_label, extra, error) => {
    const res = await browser.get(authorizePath(h.client, { state: 's-err', ...extra }));
    expectIss(res, { error, state: 's-err' });
  });

  it('error for a repeated state, and for a pkceRequired client without a challenge', async () => {
    expectIss(await browser.get(`${authorizePath(h.client, { state: 'a' })}&state=b`), { error: 'invalid_request' });
    const { client: strict } = await h.seedClient({ pkceRequired: true });
    expectIss(await browser.get(authorizePath(strict, { state: 's-pkce' })), { error: 'invalid_request', state: 's-pkce' });
  });

  it('the consent decision re-checks, and its redirect errors carry iss too', async () => {
    const consent = await browser.get(authorizePath(h.client, { state: 's-d', prompt: 'consent', code_challenge: s256Challenge('v'.repeat(43)), code_challenge_method: 'S256' }));
    const action = formAction(consent.text, '/oauth/authorize/decision') as string;
    const tampered = action.replace('code_challenge_method=S256', 'code_challenge_method=plain');
    expectIss(await browser.postForm(tampered, { decision: 'allow' }), { error: 'invalid_request', state: 's-d' });
  });

  it('the metadata says so (RFC 9207 §3)', async () => {
    const res = await request(h.app).get('/.well-known/oauth-authorization-server').expect(200);
    expect(res.body.authorization_response_iss_parameter_supported).toBe(true);
    expect(res.body.issuer).toBe(ISSUER);
    expect(res.body.code_challenge_methods_supported).toEqual(['S256']);
  });
});
