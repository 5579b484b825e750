import fc from 'fast-check';
import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import type { HttpMethod } from '../resource/test-support/openapi.js';
import type { TestBrowser } from '../test-support/index.js';
import {
  authorizationHeader,
  bodyOf,
  encodePairs,
  expectRefusalChangesNothing,
  expectWellFormed,
  extraHeaders,
  FUZZ_TIMEOUT_MS,
  latin1Safe,
  pairsOf,
  pct,
  RUNS,
  setHeaders,
  text,
  withBody,
} from './test-support/fuzz.js';
import { ADMIN_PHONE, ALL_SCOPES, createHardenedApp, type Hardened } from './test-support/harness.js';

// Issue 9 / docs/security.md "Bad input, faults, concurrency and durability": random and malformed requests at the resource and admin APIs
// and the portal get a 4xx in the documented shape (RFC 9457 problems for the APIs, HTML pages
// for the portal), never a 5xx, and a refused request changes nothing.

let h: Hardened;
let tokens: string[];
let portal: TestBrowser;

beforeAll(async () => {
  h = await createHardenedApp();
  tokens = [
    (await h.tokenFor(h.admin)).access_token,
    (await h.tokenFor(h.member)).access_token,
    (await h.tokenFor(h.admin, 'messaging.v1.read')).access_token,
  ];
  portal = await h.signedInBrowser('mel@example.com');
});

const TEMPLATES: Array<{ template: string; methods: HttpMethod[] }> = [
  { template: '/identity/v1/Users/me', methods: ['get'] },
  { template: '/messaging/v1/messages', methods: ['get', 'post'] },
  { template: '/admin/rest/v1/accounts/{accountKey}/attributes', methods: ['get', 'post'] },
  { template: '/admin/rest/v1/accounts/{accountKey}/attributes/{attributeKey}', methods: ['get', 'put', 'delete'] },
  { template: '/admin/rest/v1/accounts/{accountKey}/users/{userKey}/attributes', methods: ['get', 'put'] },
];

/** A path parameter, ready for the URL: usually a real key, otherwise anything, percent-encoded or raw (bad escapes and all). */
const key = (real: () => string[]) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.nat().map((i) => pct(real()[i % Math.max(1, real().length)] ?? 'none')) },
    { weight: 1, arbitrary: text.map((value) => pct(value.slice(0, 300))) },
    { weight: 1, arbitrary: text.map((value) => latin1Safe(value).slice(0, 300)) },
  );

/** JSON bodies shaped like the APIs' own, with any value in any place. */
const apiJson = fc.oneof(
  fc.record({ name: fc.oneof(text, fc.jsonValue({ maxDepth: 2 })) }, { requiredKeys: [] }),
  fc.array(fc.record({ key: fc.oneof(fc.constant('ATTR'), text, fc.jsonValue({ maxDepth: 1 })), value: fc.oneof(text, fc.constant(null), fc.jsonValue({ maxDepth: 1 })) }, { requiredKeys: [] }), { maxLength: 5 }),
  fc.record(
    {
      ownerPhoneNumber: fc.oneof(fc.constant(ADMIN_PHONE), text),
      contactPhoneNumbers: fc.oneof(fc.array(fc.oneof(fc.constant('+15551230000'), text), { maxLength: 12 }), fc.jsonValue({ maxDepth: 1 })),
      body: fc.oneof(text, fc.jsonValue({ maxDepth: 1 })),
    },
    { requiredKeys: [] },
  ),
  fc.jsonValue({ maxDepth: 3 }),
);

let attributeKeys: string[] = [];

describe('fuzzing the resource and admin APIs', () => {
  it('any method, path keys, query, body and headers → a documented answer, problems for every error, no 5xx, nothing written when refused', async () => {
    const realAccount = () => [h.account.accountKey];
    const realUser = () => [h.admin.userKey, h.member.userKey];
    const realAttribute = () => attributeKeys;
    await fc.assert(
      fc.asyncProperty(
        // Mostly the route's own methods, sometimes any.
        fc.constantFrom(...TEMPLATES).chain((route) =>
          fc.tuple(
            fc.constant(route),
            fc.oneof(
              { weight: 5, arbitrary: fc.constantFrom<HttpMethod | 'head' | 'options'>(...route.methods) },
              { weight: 1, arbitrary: fc.constantFrom<HttpMethod | 'head' | 'options'>('get', 'post', 'put', 'delete', 'patch', 'head', 'options') },
            ),
          ),
        ),
        fc.tuple(key(realAccount), key(realAttribute), key(realUser)),
        pairsOf(['ownerPhoneNumber', 'pageSize', 'pageMarker', 'offset'], { ownerPhoneNumber: fc.constant(ADMIN_PHONE), pageSize: fc.constantFrom('1', '0', '1000', '1001', '-1', '1.5', '1e3') }),
        fc.oneof(
          { weight: 3, arbitrary: apiJson.map((value) => ({ type: 'application/json' as string | undefined, body: (JSON.stringify(value) ?? 'null').replace(/"ATTR"/g, JSON.stringify(attributeKeys[0] ?? 'x')) as string | undefined })) },
          { weight: 1, arbitrary: bodyOf(pairsOf(['name', 'key', 'value', 'access_token'])) },
        ),
        fc.oneof({ weight: 3, arbitrary: fc.constantFrom(0, 1, 2).map((i) => `Bearer ${tokens[i]}`) }, { weight: 2, arbitrary: authorizationHeader([]) }),
        extraHeaders,
        async ([route, method], [account, attribute, user], query, body, authorization, headers) => {
          attributeKeys = (await h.repositories.attributes.list(h.account.accountKey, { offset: 0, limit: 1000 })).results.map((a) => a.key);
          const path = route.template
            .replace('{accountKey}', account)
            .replace('{attributeKey}', attribute)
            .replace('{userKey}', user);
          const url = `${path}${query.length > 0 ? `?${encodePairs(query).slice(0, 4000)}` : ''}`;
          const res = await expectRefusalChangesNothing(h, () => {
            const test = setHeaders(request(h.app)[method](url), { ...headers, authorization });
            return method === 'get' || method === 'head' ? test : withBody(test, body);
          });
          // An empty last key leaves a trailing slash: Express routes `/attributes/` as the collection `/attributes`.
          const template = attribute === '' && route.template.endsWith('/{attributeKey}') ? route.template.replace(/\/\{attributeKey\}$/, '') : route.template;
          const methods = TEMPLATES.find((t) => t.template === template)?.methods ?? [];
          const documented = (methods as string[]).includes(method) ? { method: method as HttpMethod, path: template } : undefined;
          if (method === 'head' || method === 'options') {
            expect(res.status).toBeLessThan(500);
          } else {
            expectWellFormed(res, 'problem', documented);
          }
        },
      ),
      { numRuns: RUNS * 4 },
    );
  }, FUZZ_TIMEOUT_MS);

  it('unknown paths and odd paths under the API prefixes → 404/405 problems', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/identity', '/messaging', '/admin', '/identity/v1/Users', '/admin/rest/v1/accounts', '/messaging/v1/messages'),
        fc.array(text.map((segment) => (segment.length % 2 === 0 ? pct(segment) : segment.replace(/[^\x21-\x7e]/g, '').replace(/[?#]/g, '')).slice(0, 200)), { maxLength: 4 }),
        fc.constantFrom<HttpMethod>('get', 'post', 'put', 'delete', 'patch'),
        async (prefix, segments, method) => {
          const res = await expectRefusalChangesNothing(h, () => request(h.app)[method](`${prefix}/${segments.join('/')}`).set('Authorization', `Bearer ${tokens[0]}`).set('Accept', 'application/json'));
          expectWellFormed(res, 'problem');
        },
      ),
      { numRuns: RUNS },
    );
  }, FUZZ_TIMEOUT_MS);

  it('public JSON documents (metadata, JWKS, OpenAPI) answer 200 JSON to any query and headers', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('/.well-known/oauth-authorization-server', '/oauth/jwks', '/openapi.json'), pairsOf(['x', 'format']), extraHeaders, async (path, query, headers) => {
        const res = await setHeaders(request(h.app).get(`${path}?${encodePairs(query).slice(0, 4000)}`), headers);
        expect(res.status).toBe(200);
        expect(res.headers['content-type']).toMatch(/^application\/json/);
      }),
      { numRuns: RUNS / 2 },
    );
  }, FUZZ_TIMEOUT_MS);
});

describe('fuzzing the developer portal', () => {
  const PORTAL_PATHS = [
    '/portal',
    '/portal/clients',
    '/portal/clients/new',
    '/portal/clients/{id}',
    '/portal/clients/{id}/edit',
    '/portal/clients/{id}/secret',
    '/portal/clients/{id}/rotate-secret',
    '/portal/clients/{id}/delete',
    '/portal/authorized-apps',
    '/portal/authorized-apps/{id}/revoke',
  ];
  const fields = ['csrf_token', 'name', 'redirect_uris', 'pkce_required', ...ALL_SCOPES.map((s) => `scope_${s}`), 'scope_admin.v1.everything'];

  it('any path, query and form, signed in or not, with or without the CSRF token → a page or a same-origin redirect; nothing written when refused', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...PORTAL_PATHS),
        fc.oneof(fc.constant(h.client.clientId), fc.constant('nosuchclient'), text.map((t) => pct(t.slice(0, 200)))),
        fc.constantFrom('get', 'post', 'post'),
        fc.boolean(),
        pairsOf(['done', 'return_to']),
        bodyOf(pairsOf(fields, { csrf_token: fc.constant(portal.csrfToken() as string), redirect_uris: fc.constantFrom('https://ok.example/cb', 'http://evil.example/cb', 'https://a.example/cb\nhttps://b.example/cb#x', 'javascript:alert(1)') })),
        extraHeaders,
        async (template, id, method, signedIn, query, body, headers) => {
          const url = `${template.replace('{id}', id)}${query.length > 0 ? `?${encodePairs(query).slice(0, 4000)}` : ''}`;
          const res = await expectRefusalChangesNothing(h, () => {
            if (signedIn) {
              const test = setHeaders(portal.agent[method as 'get'](url), { accept: headers.accept, 'x-request-id': headers['x-request-id'] });
              return method === 'post' ? withBody(test, body) : test;
            }
            const test = setHeaders(request(h.app)[method as 'get'](url), headers);
            return method === 'post' ? withBody(test, body) : test;
          });
          expectWellFormed(res, 'page');
          if (res.status >= 300 && res.status < 400) expect(res.headers.location).toMatch(/^\/(?![/\\])/);
        },
      ),
      { numRuns: RUNS * 3 },
    );
    // The portal browser is still signed in (nothing above signed it out or broke its session).
    expect((await portal.get('/portal/clients')).status).toBe(200);
  }, FUZZ_TIMEOUT_MS);
});
