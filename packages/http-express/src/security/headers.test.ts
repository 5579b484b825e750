import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { authorizePath, createTestApp } from '../test-support/index.js';

function expectPageHeaders(res: request.Response, label: string) {
  expect(res.headers['content-type'], label).toMatch(/^text\/html; charset=utf-8/);
  expect(res.headers['x-frame-options'], label).toBe('DENY');
  const csp = res.headers['content-security-policy'] as string;
  expect(csp, label).toContain("frame-ancestors 'none'");
  expect(csp, label).toContain("default-src 'self'");
  expect(csp, label).not.toContain('unsafe-inline');
  expect(res.headers['referrer-policy'], label).toBe('no-referrer');
  expect(res.headers['x-content-type-options'], label).toBe('nosniff');
  expect(res.headers['cache-control'], label).toBe('no-store');
  expect(res.headers['x-powered-by'], label).toBeUndefined();
  expect(res.text, label).toContain('<meta name="viewport"');
  // No inline script or style: the one script is the served file (the sign-in page's show-password button).
  expect(res.text, label).not.toMatch(/<script(?! src="\/assets\/gatehouse\.js" defer><\/script>)|style="/);
}

describe('every HTML page: anti-framing, CSP, no-referrer, nosniff, no-store', () => {
  it('login, consent, logout, signed-out, error and 404 pages', async () => {
    const t = await createTestApp();
    await t.seedUser({ email: 'ada@example.com' });
    const { client } = await t.seedClient();
    const anonymous = t.browser();
    expectPageHeaders(await anonymous.get('/oauth/login'), 'login');
    expectPageHeaders(await anonymous.get('/oauth/logout'), 'logout when signed out');
    expectPageHeaders(await anonymous.get('/oauth/authorize?client_id=nobody'), 'authorize error page');
    expectPageHeaders(await anonymous.get('/oauth/nothing-here').set('Accept', 'text/html'), '404 page');
    expectPageHeaders(await anonymous.signIn('ada@example.com', 'wrong'), 'failed login');
    expectPageHeaders(await anonymous.postForm('/oauth/logout', {}, { csrf: false }), 'csrf failure');
    const browser = await t.signedInBrowser('ada@example.com');
    expectPageHeaders(await browser.get(authorizePath(client)), 'consent');
    expectPageHeaders(await browser.get('/oauth/login'), 'signed in');
    expectPageHeaders(await browser.get('/oauth/logout'), 'logout confirmation');
    expectPageHeaders(await browser.postForm('/oauth/logout', {}), 'signed out');
  });

  it('JSON answers are not framable either and cannot load anything', async () => {
    const t = await createTestApp();
    const res = await request(t.app).get('/.well-known/oauth-authorization-server');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'; base-uri 'none'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('every answer carries the whole header set, HSTS only for an https issuer, and no ETag', async () => {
    const expected = {
      'content-security-policy': "default-src 'none'; frame-ancestors 'none'; base-uri 'none'",
      'cross-origin-opener-policy': 'same-origin',
      'origin-agent-cluster': '?1',
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
      'x-dns-prefetch-control': 'off',
      'x-download-options': 'noopen',
      'x-frame-options': 'DENY',
      'x-permitted-cross-domain-policies': 'none',
      'x-xss-protection': '0',
    };
    const plain = await createTestApp();
    const jwks = await request(plain.app).get('/oauth/jwks').expect(200);
    expect(jwks.headers).toMatchObject(expected);
    expect(jwks.headers['strict-transport-security']).toBeUndefined();
    expect(jwks.headers.etag).toBeUndefined();
    const missing = await request(plain.app).get('/identity/v1/Nobody').expect(404);
    expect(missing.headers).toMatchObject(expected);

    const secure = await createTestApp({ settings: { issuer: 'https://auth.example' } });
    const metadata = await request(secure.app).get('/.well-known/oauth-authorization-server').expect(200);
    expect(metadata.headers).toMatchObject({ ...expected, 'strict-transport-security': 'max-age=31536000' });
  });

  it('the stylesheet is served from our origin (the CSP allows no inline style)', async () => {
    const t = await createTestApp();
    const res = await request(t.app).get('/assets/gatehouse.css').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/css/);
    expect(res.text).toContain('@media (max-width');
    const page = await request(t.app).get('/oauth/login');
    expect(page.text).toContain('<link rel="stylesheet" href="/assets/gatehouse.css">');
  });
});
