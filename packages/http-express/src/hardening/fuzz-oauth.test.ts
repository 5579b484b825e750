import fc from 'fast-check';
import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { basicAuth, formAction, type TestBrowser } from '../test-support/index.js';
import {
  authorizationHeader,
  bodyOf,
  encodePairs,
  expectRefusalChangesNothing,
  expectWellFormed,
  extraHeaders,
  pairsOf,
  pct,
  FUZZ_TIMEOUT_MS,
  RUNS,
  setHeaders,
  text,
  withBody,
} from './test-support/fuzz.js';
import { ALL_SCOPES, createHardenedApp, type Hardened } from './test-support/harness.js';

// Issue 9 / docs/security.md "Bad input, faults, concurrency and durability": random and malformed requests at the OAuth endpoints and pages
// get a 4xx in the documented shape (never a 5xx), and a refused request writes nothing.

const REDIRECT = 'https://client.example/callback';
let h: Hardened;
let signedIn: TestBrowser;
let consentAction: string;
let liveRefreshToken: string;

beforeAll(async () => {
  h = await createHardenedApp();
  signedIn = await h.signedInBrowser('mel@example.com');
  const consent = await signedIn.get(`/oauth/authorize?client_id=${h.client.clientId}&response_type=code`).expect(200);
  consentAction = formAction(consent.text, '/oauth/authorize/decision') as string;
  liveRefreshToken = (await h.tokenFor(h.admin)).refresh_token;
});

const goodAuthorization = () => [basicAuth(h.client.clientId, h.clientSecret)];

describe('fuzzing the JSON OAuth endpoints', () => {
  it.each([
    ['/oauth/token', ['grant_type', 'code', 'redirect_uri', 'code_verifier', 'refresh_token', 'scope', 'client_id', 'client_secret']],
    ['/oauth/revoke', ['token', 'token_type_hint', 'client_id', 'client_secret']],
    ['/oauth/introspect', ['token', 'token_type_hint', 'client_id', 'client_secret']],
  ] as Array<[string, string[]]>)('%s: any headers and body → JSON in RFC 6749 §5.2 shape, no 5xx, nothing written when refused', async (path, names) => {
    const known = {
      grant_type: fc.constantFrom('authorization_code', 'refresh_token', 'password', 'client_credentials', 'urn:ietf:params:oauth:grant-type:jwt-bearer'),
      redirect_uri: fc.constantFrom(REDIRECT, `${REDIRECT}/`),
      client_id: fc.constant(h.client.clientId),
      client_secret: fc.constant(h.clientSecret),
      token_type_hint: fc.constantFrom('refresh_token', 'access_token', 'x'),
      // Only a refresh token of a grant the test does not mind revoking.
      token: fc.constant('0'.repeat(43)),
      refresh_token: fc.constant(liveRefreshToken),
    };
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('post', 'post', 'post', 'get', 'put', 'delete', 'patch'),
        authorizationHeader(goodAuthorization()),
        bodyOf(pairsOf(names, known)),
        extraHeaders,
        async (method, authorization, body, headers) => {
          const res = await expectRefusalChangesNothing(h, () =>
            withBody(setHeaders(request(h.app)[method as 'post'](path), { ...headers, authorization }), method === 'get' ? { type: undefined, body: undefined } : body),
          );
          expectWellFormed(res, 'oauth-json', method === 'post' ? { method: 'post', path } : undefined);
          if (!(path === '/oauth/revoke' && res.status === 200)) expect(res.headers['content-type']).toMatch(/^application\/json/);
        },
      ),
      { numRuns: RUNS * 2 },
    );
  }, FUZZ_TIMEOUT_MS);
});

describe('fuzzing the authorization endpoint and the sign-in pages', () => {
  const authorizeNames = ['client_id', 'response_type', 'redirect_uri', 'state', 'scope', 'code_challenge', 'code_challenge_method', 'prompt', 'nonce'];
  const authorizeKnown = () => ({
    client_id: fc.constant(h.client.clientId),
    response_type: fc.constantFrom('code', 'token', 'code id_token', ''),
    redirect_uri: fc.constantFrom(REDIRECT, `${REDIRECT}?x=1`, 'https://evil.example/'),
    scope: fc.subarray(ALL_SCOPES).map((s) => s.join(' ')),
    code_challenge_method: fc.constantFrom('S256', 'plain', 's256'),
    code_challenge: fc.constant('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'),
  });

  /** An authorize answer: a page, the login redirect, or a redirect to the registered URI with iss. */
  function expectAuthorizeAnswer(res: request.Response, statuses = [200, 400]): void {
    expectWellFormed(res, 'page');
    if (res.status === 302 || res.status === 303) {
      const location = res.headers.location as string;
      if (location.startsWith('/oauth/login')) return;
      expect(location.startsWith(`${REDIRECT}?`), location).toBe(true);
      expect(new URL(location).searchParams.getAll('iss')).toEqual(['http://localhost:3000']);
    } else {
      expect(statuses).toContain(res.status);
    }
  }

  it('GET /oauth/authorize: any query, signed in or not → a page or a redirect to the registered URI only; nothing written', async () => {
    await fc.assert(
      fc.asyncProperty(pairsOf(authorizeNames, authorizeKnown()), fc.boolean(), extraHeaders, async (pairs, withSession, headers) => {
        const query = encodePairs(pairs).slice(0, 6000);
        const before = await h.snapshot();
        h.writes.length = 0;
        const res = withSession
          ? await setHeaders(signedIn.get(`/oauth/authorize?${query}`), { accept: headers.accept })
          : await setHeaders(request(h.app).get(`/oauth/authorize?${query}`), headers);
        expectAuthorizeAnswer(res);
        expect(h.writes.filter((w) => w.changed)).toEqual([]);
        expect(await h.snapshot()).toBe(before);
      }),
      { numRuns: RUNS * 2 },
    );
  }, FUZZ_TIMEOUT_MS);

  it('POST /oauth/authorize/decision: any query and form, with or without the CSRF token → no 5xx; refused answers write nothing', async () => {
    const csrf = signedIn.csrfToken() as string;
    const validQuery = consentAction.split('?')[1] as string;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.constant(validQuery), pairsOf(authorizeNames, authorizeKnown()).map((p) => encodePairs(p).slice(0, 6000))),
        bodyOf(pairsOf(['decision', 'csrf_token'], { decision: fc.constantFrom('allow', 'deny', 'ALLOW', ''), csrf_token: fc.constant(csrf) })),
        async (query, body) => {
          const res = await expectRefusalChangesNothing(h, () => withBody(signedIn.agent.post(`/oauth/authorize/decision?${query}`), body));
          // 403: CSRF; 413 and 415: a form that cannot be read.
          expectAuthorizeAnswer(res, [400, 403, 413, 415]);
        },
      ),
      { numRuns: RUNS * 2 },
    );
  }, FUZZ_TIMEOUT_MS);

  it('GET and POST /oauth/login: any return_to and form → a page or a same-origin redirect; refused answers write nothing', async () => {
    const anonymous = h.browser();
    await anonymous.get('/oauth/login').expect(200);
    const csrf = anonymous.csrfToken() as string;
    await fc.assert(
      fc.asyncProperty(
        text,
        bodyOf(pairsOf(['email', 'password', 'csrf_token', 'return_to'], { csrf_token: fc.constant(csrf), email: fc.constantFrom('ada@example.com', 'ADA@EXAMPLE.COM', 'nobody@example.com') })),
        async (returnTo, body) => {
          const page = await signedIn.get(`/oauth/login?return_to=${pct(returnTo.slice(0, 3000))}`);
          expectWellFormed(page, 'page');
          if (page.status === 302) expect(page.headers.location).toMatch(/^\/(?![/\\])/);
          const res = await expectRefusalChangesNothing(h, () => withBody(anonymous.agent.post('/oauth/login'), body));
          expectWellFormed(res, 'page');
          if (res.status === 303) expect(res.headers.location).toMatch(/^\/(?![/\\])/);
          else expect([400, 401, 403, 413, 415, 429]).toContain(res.status);
        },
      ),
      { numRuns: RUNS * 2 },
    );
  }, FUZZ_TIMEOUT_MS);

  it('GET and POST /oauth/logout: any form from any browser → a page, never a redirect', async () => {
    const anonymous = h.browser();
    await anonymous.get('/oauth/logout').expect(200);
    const csrf = anonymous.csrfToken() as string;
    await fc.assert(
      fc.asyncProperty(pairsOf(['csrf_token', 'return_to', 'post_logout_redirect_uri'], { csrf_token: fc.constant(csrf) }).chain((p) => bodyOf(fc.constant(p))), extraHeaders, async (body, headers) => {
        const res = await expectRefusalChangesNothing(h, () => withBody(setHeaders(anonymous.agent.post('/oauth/logout'), { accept: headers.accept }), body));
        expectWellFormed(res, 'page');
        expect(res.headers.location).toBeUndefined();
        expectWellFormed(await setHeaders(request(h.app).get('/oauth/logout'), headers), 'page');
      }),
      { numRuns: RUNS },
    );
  }, FUZZ_TIMEOUT_MS);
});
