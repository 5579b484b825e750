import { constantTimeEqual, createScryptPasswordHasher, sha256 } from '@gatehouse/core';
import { s256Challenge } from '@gatehouse/core/testing';
import request from 'supertest';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CSRF_COOKIE } from '../security/cookies.js';
import { basicAuth, formEncode, inputValue, type TestBrowser } from '../test-support/index.js';
import { createHardenedApp, type Hardened } from './test-support/harness.js';
import { hex, spyOnTimingSafeEqual } from './test-support/timing-safe-spy.js';

// RFC 9700 §4.x / docs/security.md "Secrets handling": secrets, verifiers and hashes are compared in constant time. The spy
// records the real crypto.timingSafeEqual calls, so a comparison done with === instead fails these tests.

let spy: ReturnType<typeof spyOnTimingSafeEqual>;
beforeEach(() => {
  spy = spyOnTimingSafeEqual();
});
afterEach(() => spy.restore());

describe('constantTimeEqual', () => {
  it('answers like === for equal, different, empty, longer and non-ASCII strings', () => {
    const pairs: Array<[string, string]> = [
      ['abc', 'abc'],
      ['abc', 'abd'],
      ['', ''],
      ['', 'a'],
      ['abc', 'abcd'],
      ['é', 'é'],
      ['é', 'e\u0301'],
      ['😀x', '😀x'],
    ];
    for (const [a, b] of pairs) expect(constantTimeEqual(a, b), `${a} vs ${b}`).toBe(a === b);
  });

  it('compares with crypto.timingSafeEqual, also when the lengths differ (no early exit)', () => {
    expect(constantTimeEqual('secret-one', 'secret-two')).toBe(false);
    expect(spy.calls).toEqual([{ a: hex('secret-one'), b: hex('secret-two') }]);
    spy.clear();
    expect(constantTimeEqual('short', 'much longer value')).toBe(false);
    expect(spy.calls).toHaveLength(1);
  });
});

describe('the code paths that compare secrets use it', () => {
  let h: Hardened;
  let browser: TestBrowser;
  beforeAll(async () => {
    h = await createHardenedApp();
    browser = await h.signedInBrowser('ada@example.com');
  });

  it('client authentication compares SHA-256(secret) with the stored hash (wrong, right and unknown client)', async () => {
    const wrong = 'W'.repeat(43);
    spy.clear();
    await request(h.app).post('/oauth/introspect').set('Authorization', basicAuth(h.client.clientId, wrong)).type('form').send('token=x').expect(401);
    expect(spy.calls).toContainEqual({ a: hex(sha256(wrong)), b: hex(h.client.clientSecretHash as string) });

    spy.clear();
    await request(h.app).post('/oauth/introspect').type('form').send(`client_id=${h.client.clientId}&client_secret=${formEncode(h.clientSecret)}&token=x`).expect(200);
    expect(spy.calls).toContainEqual({ a: hex(sha256(h.clientSecret)), b: hex(h.client.clientSecretHash as string) });

    // An unknown client costs the same comparison (no timing oracle for which ids exist).
    spy.clear();
    await request(h.app).post('/oauth/introspect').set('Authorization', basicAuth('nosuchclient', wrong)).type('form').send('token=x').expect(401);
    expect(spy.calls).toContainEqual({ a: hex(sha256(wrong)), b: hex(sha256('no client')) });
  });

  it('the PKCE verifier (as its S256 hash) and the redirect URI are compared with it at the token endpoint', async () => {
    const verifier = 'v'.repeat(50);
    const code = await h.codeOverHttp(browser, h.client, { code_challenge: s256Challenge(verifier), code_challenge_method: 'S256' });
    spy.clear();
    const wrongVerifier = 'w'.repeat(50);
    await h.token({ grant_type: 'authorization_code', code, redirect_uri: h.client.redirectUris[0] as string, code_verifier: wrongVerifier }).expect(400);
    expect(spy.calls).toContainEqual({ a: hex(sha256(wrongVerifier)), b: hex(s256Challenge(verifier)) });
    expect(spy.calls).toContainEqual({ a: hex(h.client.redirectUris[0] as string), b: hex(h.client.redirectUris[0] as string) });
  });

  it('the CSRF token of a form is compared with the one bound to its session, and the login form’s with its cookie', async () => {
    const bound = browser.csrfToken() as string;
    const cookie = browser.cookie(CSRF_COOKIE) as string;
    const forged = 'F'.repeat(43);
    spy.clear();
    await browser.postForm('/oauth/logout', { csrf_token: forged }).expect(403);
    expect(spy.calls).toContainEqual({ a: hex(bound), b: hex(forged) });
    expect(browser.csrfToken()).toBe(bound);
    spy.clear();
    await browser.postForm('/oauth/login', { email: 'ada@example.com', password: 'x', csrf_token: forged }).expect(403);
    expect(spy.calls).toContainEqual({ a: hex(cookie), b: hex(forged) });
    expect(browser.cookie(CSRF_COOKIE)).toBe(cookie);
  });

  it('the one-time secret cookie of the portal is checked against the stored hash', async () => {
    const created = await browser.postForm('/portal/clients', { name: 'Timing', redirect_uris: 'https://timing.example/cb', 'scope_messaging.v1.send': 'on' });
    expect(created.status).toBe(303);
    const clientId = /\/portal\/clients\/([A-Za-z0-9]+)\/secret/.exec(created.headers.location as string)?.[1] as string;
    const stored = await h.repositories.clients.findById(clientId);
    spy.clear();
    const page = await browser.get(created.headers.location as string).expect(200);
    const secret = inputValue(page.text, 'client_secret') as string;
    expect(secret).toMatch(/^[A-Za-z0-9]{43,}$/);
    expect(spy.calls).toContainEqual({ a: hex(sha256(secret)), b: hex(stored?.clientSecretHash as string) });
  });
});

describe('passwords', () => {
  it('the scrypt hasher compares derived keys with crypto.timingSafeEqual', async () => {
    const hasher = createScryptPasswordHasher({ N: 1024, r: 8, p: 1 });
    const stored = await hasher.hash('correct horse');
    spy.clear();
    expect(await hasher.verify('wrong horse', stored)).toBe(false);
    expect(await hasher.verify('correct horse', stored)).toBe(true);
    const key = Buffer.from(stored.split('$')[5] as string, 'base64url').toString('hex');
    expect(spy.calls).toHaveLength(2);
    expect(spy.calls[1]).toEqual({ a: key, b: key });
    expect(spy.calls[0]?.a).toBe(key);
    expect(spy.calls[0]?.b).not.toBe(key);
  });
});
