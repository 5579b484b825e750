import type request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { authorizePath, formAction, type TestBrowser } from '../test-support/index.js';
import { ALL_SCOPES, createHardenedApp, type Hardened } from './test-support/harness.js';

// RFC 9700 §4.2.4 / §4.16 (Referer leaks, clickjacking) and decision 0022 (login and consent pages): every
// HTML page sends X-Frame-Options: DENY, CSP frame-ancestors 'none' and Referrer-Policy:
// no-referrer, and links only to its own origin, so no code, token or secret can leave in a Referer.

type Page = [label: string, res: request.Response];

function expectAntiFraming(res: request.Response, label: string): void {
  expect(res.headers['x-frame-options'], label).toBe('DENY');
  expect(res.headers['content-security-policy'], label).toMatch(/(^|;)\s*frame-ancestors 'none'\s*(;|$)/);
  expect(res.headers['referrer-policy'], label).toBe('no-referrer');
}

/** Every URL a page can make the browser load or follow: attributes and CSS url(). */
function urlsOf(html: string): string[] {
  const attributes = [...html.matchAll(/\s(?:href|src|action|formaction|poster|data|background|cite|srcset)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/gi)].map((m) => m[1] ?? m[2] ?? m[3] ?? '');
  const css = [...html.matchAll(/url\(\s*['"]?([^'")]+)/gi)].map((m) => m[1] ?? '');
  const refresh = [...html.matchAll(/http-equiv\s*=\s*["']?refresh/gi)].map(() => 'meta refresh');
  return [...attributes, ...css, ...refresh];
}

function expectPage(res: request.Response, label: string): void {
  expect(res.headers['content-type'], label).toMatch(/^text\/html; charset=utf-8/);
  expectAntiFraming(res, label);
  expect(res.headers['cache-control'], label).toBe('no-store');
  expect(res.text, label).toContain('<meta name="referrer" content="no-referrer">');
  for (const url of urlsOf(res.text)) {
    // Same-origin paths only (or a link within the page, `#field` of an error summary): nothing
    // off-site to follow or load, so no Referer goes anywhere else.
    expect(url, `${label}: ${url}`).toMatch(/^(?:\/(?![/\\])|#[A-Za-z][\w-]*$)/);
  }
}

let h: Hardened;
let browser: TestBrowser;

beforeAll(async () => {
  h = await createHardenedApp({ rateLimit: { maxFailures: 1, windowSeconds: 60, maxFailuresPerIp: 1000 } });
  browser = await h.signedInBrowser('ada@example.com');
});

/** Every page Gatehouse renders, in each of its states. */
async function everyPage(): Promise<Page[]> {
  const pages: Page[] = [];
  const add = (label: string, res: request.Response) => pages.push([label, res]);
  const anonymous = h.browser();
  const clientId = h.client.clientId;

  // Sign-in
  add('login form', await anonymous.get('/oauth/login'));
  add('login form with return_to', await anonymous.get('/oauth/login?return_to=%2Fportal%2Fclients'));
  add('login: wrong password (401)', await anonymous.signIn('nobody@example.com', 'wrong'));
  add('login: rate limited (429)', await anonymous.signIn('nobody@example.com', 'wrong'));
  add('login: missing fields (400)', await anonymous.postForm('/oauth/login', {}));
  add('login: CSRF refused (403)', await anonymous.postForm('/oauth/login', { email: 'a@b.c', password: 'x' }, { csrf: false }));
  add('login: unreadable form (415)', await anonymous.agent.post('/oauth/login').set('Content-Type', 'application/json').send('{}'));
  add('login: form too large (413)', await anonymous.agent.post('/oauth/login').type('form').send(`email=${'a'.repeat(20_000)}`));
  add('login: already signed in', await browser.get('/oauth/login'));
  add('login naming the app of an authorization request', await anonymous.get(`/oauth/login?${new URLSearchParams({ return_to: authorizePath(h.client) })}`));
  add('start page (signed out)', await anonymous.get('/'));

  // Authorize and consent
  add('authorize: unknown client (400)', await browser.get('/oauth/authorize?client_id=nobody&response_type=code'));
  add('authorize: unregistered redirect_uri (400)', await browser.get(authorizePath(h.client, { redirect_uri: 'https://evil.example/' })));
  const consent = await browser.get(authorizePath(h.client, { state: 'st', prompt: 'consent' }));
  add('consent', consent);
  const decision = formAction(consent.text, '/oauth/authorize/decision') as string;
  add('consent: no choice (400)', await browser.postForm(decision, {}));
  add('consent: CSRF refused (403)', await browser.postForm(decision, { decision: 'allow' }, { csrf: false }));

  // Logout
  add('logout: confirmation', await browser.get('/oauth/logout'));
  add('logout: not signed in', await anonymous.get('/oauth/logout'));
  add('logout: confirmation keeping an authorization request', await browser.get(`/oauth/logout?${new URLSearchParams({ return_to: authorizePath(h.client) })}`));
  add('logout: CSRF refused (403)', await anonymous.postForm('/oauth/logout', {}, { csrf: false }));
  const leaving = await h.signedInBrowser('mel@example.com');
  add('logout: signed out', await leaving.postForm('/oauth/logout', {}));

  // Portal
  add('portal: clients', await browser.get('/portal/clients'));
  add('portal: register form', await browser.get('/portal/clients/new'));
  add('portal: register form with errors (400)', await browser.postForm('/portal/clients', { name: '', redirect_uris: 'http://evil.example/cb' }));
  const created = await browser.postForm('/portal/clients', { name: 'Pages', redirect_uris: 'https://pages.example/cb', ...Object.fromEntries(ALL_SCOPES.map((s) => [`scope_${s}`, 'on'])) });
  const secretPath = created.headers.location as string;
  add('portal: new secret (shown once)', await browser.get(secretPath));
  add('portal: secret already shown', await browser.get(secretPath));
  add('portal: client detail', await browser.get(`/portal/clients/${clientId}`));
  add('portal: edit form', await browser.get(`/portal/clients/${clientId}/edit`));
  add('portal: edit form with errors (400)', await browser.postForm(`/portal/clients/${clientId}`, { name: '' }));
  add('portal: rotate confirmation', await browser.get(`/portal/clients/${clientId}/rotate-secret`));
  add('portal: delete confirmation', await browser.get(`/portal/clients/${clientId}/delete`));
  add('portal: unknown client (404)', await browser.get('/portal/clients/nosuchclient'));
  add('portal: authorized apps', await browser.get('/portal/authorized-apps'));
  await browser.authorize(h.client);
  add('portal: revoke confirmation', await browser.get(`/portal/authorized-apps/${clientId}/revoke`));
  add('portal: withdraw unknown app (404)', await browser.postForm('/portal/authorized-apps/nosuchclient/revoke', {}));
  add('portal: CSRF refused (403)', await browser.postForm(`/portal/clients/${clientId}/delete`, {}, { csrf: false }));

  // Anything else
  add('not found (404)', await anonymous.get('/oauth/nothing-here').set('Accept', 'text/html'));
  add('not found in the portal area (404)', await browser.get('/portal/nothing/here'));
  h.faults.add('clients.findById');
  add('server error (500)', await browser.get(authorizePath(h.client)));
  h.faults.clear();
  return pages;
}

describe('anti-framing and no-referrer on every page', () => {
  it('each page, in each state, sends the headers and links only to its own origin', async () => {
    const pages = await everyPage();
    expect(pages.length).toBeGreaterThanOrEqual(35);
    for (const [label, res] of pages) {
      expect(res.status, `${label}: ${res.status}`).toBeLessThan(600);
      expectPage(res, label);
    }
    // The states the labels promise really happened.
    const status = Object.fromEntries(pages.map(([label, res]) => [label, res.status]));
    expect(status['login: rate limited (429)']).toBe(429);
    expect(status['login: form too large (413)']).toBe(413);
    expect(status['portal: new secret (shown once)']).toBe(200);
    expect(status['server error (500)']).toBe(500);
    expect(status['portal: revoke confirmation']).toBe(200);
    expect(status['start page (signed out)']).toBe(200);
  });

  it('a crawl of every same-origin link from the pages finds only pages that send the headers', async () => {
    const seen = new Set<string>();
    const queue = ['/oauth/login', '/portal/clients', '/portal/authorized-apps', authorizePath(h.client)];
    while (queue.length > 0 && seen.size < 200) {
      const path = queue.shift() as string;
      if (seen.has(path)) continue;
      seen.add(path);
      const res = await browser.get(path);
      expectAntiFraming(res, path);
      if (!/^text\/html/.test(String(res.headers['content-type']))) continue;
      expectPage(res, path);
      for (const match of res.text.matchAll(/<a\s[^>]*href="([^"]+)"/g)) {
        const href = (match[1] as string).replace(/&amp;/g, '&');
        if (!seen.has(href)) queue.push(href);
      }
    }
    expect(seen.size).toBeGreaterThanOrEqual(10);
  });

  it('non-page answers (JSON, redirects, assets) cannot be framed and send no Referer either', async () => {
    const answers: Page[] = [
      ['metadata', await browser.get('/.well-known/oauth-authorization-server')],
      ['jwks', await browser.get('/oauth/jwks')],
      ['token error', await browser.agent.post('/oauth/token').type('form').send('grant_type=x')],
      ['problem', await browser.get('/identity/v1/Users/me')],
      ['authorize redirect with code', (await browser.authorize(h.client)).response],
      ['authorize redirect with error', await browser.get(authorizePath(h.client, { response_type: 'token' }))],
      ['login redirect', await h.browser().get(authorizePath(h.client))],
      ['stylesheet', await browser.get('/assets/gatehouse.css')],
    ];
    for (const [label, res] of answers) expectAntiFraming(res, label);
  });

  it('the redirect carrying a code leaves from a page and a response that send no Referer', async () => {
    const consent = await browser.get(authorizePath(h.client));
    expect(consent.headers['referrer-policy']).toBe('no-referrer');
    const { response, code } = await browser.authorize(h.client);
    expect(code).toBeDefined();
    expect(response.headers['referrer-policy']).toBe('no-referrer');
    expect(response.headers['cache-control']).toBe('no-store');
  });
});
