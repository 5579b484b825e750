import fc from 'fast-check';
import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { safeReturnTo } from '../security/session.js';
import { inputValue, type TestBrowser } from '../test-support/index.js';
import { createHardenedApp, type Hardened } from './test-support/harness.js';

// RFC 9700 §4.11 (open redirection), CWE-601: every `return_to` and every `Location` built from
// input is a same-origin path AFTER URL normalisation (dot segments, percent-encoded dots,
// backslashes, control characters), so it can never be read as `//host` (protocol-relative).

const ISSUER = 'http://localhost:3000';

/** `return_to` values that normalise to another host if checked before normalisation. */
const HOSTILE: string[] = [
  '/.//evil.example/phish',
  '/././/evil.example/phish',
  '/.///evil.example/phish',
  '/%2e//evil.example/phish',
  '/%2E//evil.example/phish',
  '/.%2e//evil.example/phish',
  '/%2e%2e//evil.example/phish',
  '/%2E%2E//evil.example/phish',
  '/..//evil.example/phish',
  '/oauth/..//evil.example/phish',
  '/oauth/%2e%2e//evil.example/phish',
  '/oauth/login/../..//evil.example/phish',
  '/a/b/../../..//evil.example/phish',
  '/%2e/%2e//evil.example/phish',
  '/.//%5cevil.example/phish',
  '/.//%5Cevil.example/phish',
  '/./\\evil.example/phish',
  '/.\\/evil.example/phish',
  '/.%5c/evil.example/phish',
  '/.\t//evil.example/phish',
  '/\t.//evil.example/phish',
  '/.\n//evil.example/phish',
  '/.\r//evil.example/phish',
  '/.\u0000//evil.example/phish',
  '/. //evil.example/phish',
  '/.//evil.example:443/phish',
  '/.//user@evil.example/phish',
  '/.//evil.example?x=/',
  '/.//evil.example#/',
];

/** The same attacks sent double-encoded in the raw query or form (`%252e` decodes once to `%2e`). */
const RAW_ENCODED: string[] = [
  '%2F.%2F%2Fevil.example%2Fphish',
  '%2F%252e%2F%2Fevil.example%2Fphish',
  '%2F%252E%2F%2Fevil.example%2Fphish',
  '%2Foauth%2F%252e%252e%2F%2Fevil.example%2Fphish',
  '%2F%25252e%2F%2Fevil.example%2Fphish',
  '%2F.%2F%2F%255cevil.example',
];

function hasControlSpaceOrBackslash(value: string): boolean {
  return [...value].some((char) => char.charCodeAt(0) <= 0x20 || char.charCodeAt(0) === 0x7f || char === '\\');
}

/** A Location (or a `return_to`) that stays on the issuer's origin and cannot be read as another host. */
function expectSameOriginPath(value: string | undefined, label: string): void {
  expect(value, label).toBeDefined();
  const path = value as string;
  expect(path, label).toMatch(/^\/(?![/\\])/);
  expect(hasControlSpaceOrBackslash(path), label).toBe(false);
  // A browser resolves it against any page of the issuer: always the issuer's own origin.
  for (const base of [ISSUER, `${ISSUER}/oauth/login`, `${ISSUER}/portal/clients/x/`]) {
    const resolved = new URL(path, base);
    expect(resolved.origin, `${label} from ${base}`).toBe(ISSUER);
    expect(resolved.pathname, `${label} from ${base}`).not.toMatch(/^\/[/\\]/);
  }
}

let h: Hardened;
let browser: TestBrowser;

beforeAll(async () => {
  h = await createHardenedApp();
  browser = await h.signedInBrowser('ada@example.com');
});

async function expectEveryPathSafe(rawQueryValue: string, label: string): Promise<void> {
  // Signed in: GET /oauth/login?return_to= goes on at once (302) or shows the signed-in page.
  const signedIn = await browser.get(`/oauth/login?return_to=${rawQueryValue}`);
  if (signedIn.status === 302) {
    expectSameOriginPath(signedIn.headers.location, `GET signed in ${label}`);
  } else {
    expect(signedIn.status, label).toBe(200);
    expect(signedIn.text, label).not.toMatch(/evil\.example/i);
  }

  // Signed out: the login page carries it on only as a same-origin path.
  const page = await h.browser().get(`/oauth/login?return_to=${rawQueryValue}`);
  expect(page.status, label).toBe(200);
  const carried = inputValue(page.text, 'return_to');
  if (carried !== undefined) expectSameOriginPath(carried, `login page ${label}`);

  // The sign-in form's answer (303): the form body carries the value with the same encoding.
  const fresh = h.browser();
  await fresh.get('/oauth/login').expect(200);
  const login = await fresh.agent
    .post('/oauth/login')
    .type('form')
    .send(`email=ada%40example.com&password=password123&csrf_token=${fresh.csrfToken() as string}&return_to=${rawQueryValue}`);
  expect(login.status, `POST ${label}`).toBe(303);
  expectSameOriginPath(login.headers.location, `POST ${label}`);
}

describe('RFC 9700 §4.11: return_to is checked after URL normalisation', () => {
  it.each(HOSTILE)('login GET (signed in and out) and POST never leave the origin for %j', async (target) => {
    await expectEveryPathSafe(encodeURIComponent(target), JSON.stringify(target));
  });

  it.each(RAW_ENCODED)('the same with the raw, double-encoded query %s', async (raw) => {
    await expectEveryPathSafe(raw, raw);
  });

  it('the reported case: signed in, GET /oauth/login?return_to=%2F.%2F%2Fevil.example%2Fphish is not a redirect to //evil.example', async () => {
    const res = await browser.get('/oauth/login?return_to=%2F.%2F%2Fevil.example%2Fphish');
    expect(res.headers.location).not.toBe('//evil.example/phish');
    expect(res.status).toBe(200);
    expect(res.text).toContain('You are signed in');
  });

  it('a same-origin path with dot segments still works, normalised', async () => {
    const res = await browser.get(`/oauth/login?return_to=${encodeURIComponent('/portal/./x/../clients?tab=1')}`);
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/portal/clients?tab=1');
  });

  it.each([
    '/portal/..//evil.example/phish',
    '/portal/%2e%2e//evil.example/phish',
    '/portal/%2E%2E/%2e%2e//evil.example/phish',
    '/portal/.%2e//evil.example/phish',
    '/portal/clients/../..//evil.example/phish',
    '/portal//evil.example/phish',
    '/portal/%2F%2Fevil.example',
  ])('portal pages send a signed-out browser to the login page with a same-origin return_to only: %s', async (path) => {
    const res = await request(h.app).get(path);
    if (res.status !== 303) {
      // Not a portal page at all (the router did not take it): then no redirect of any kind.
      expect(res.headers.location, path).toBeUndefined();
      return;
    }
    const location = res.headers.location as string;
    expectSameOriginPath(location, path);
    const returnTo = new URL(location, ISSUER).searchParams.get('return_to');
    if (returnTo !== null) expectSameOriginPath(returnTo, `${path} return_to`);
  });
});

/** Strings made of the pieces that URL parsers treat specially. */
const hostile = fc
  .tuple(
    fc.constantFrom('/', '/.', '/..', '/%2e', '/a/', '', '\\', '%2f'),
    fc.array(
      fc.constantFrom('/', '//', '\\', '.', '..', '%2e', '%2E', '%2e%2e', '%2f', '%5c', '%252e', '%09', '\t', '\n', '\r', '\u0000', ' ', ':', '@', '?', '#', 'evil.example', 'http:', 'portal', 'a'),
      { maxLength: 10 },
    ),
  )
  .map(([start, pieces]) => `${start}${pieces.join('')}`);

describe('property: whatever goes in, what comes out is a normalised same-origin path', () => {
  it('safeReturnTo over hostile strings (and any string)', () => {
    fc.assert(
      fc.property(fc.oneof(hostile, fc.string(), fc.string({ unit: 'binary' })), (input) => {
        const safe = safeReturnTo(input);
        if (safe === undefined) return;
        expect(safe).toMatch(/^\/(?![/\\])/);
        expect(hasControlSpaceOrBackslash(safe)).toBe(false);
        for (const base of [ISSUER, `${ISSUER}/a/b/c`]) expect(new URL(safe, base).origin).toBe(ISSUER);
        // Already normalised: checking it again changes nothing (no second normalisation can make it `//`).
        expect(safeReturnTo(safe)).toBe(safe);
      }),
      { numRuns: 3000 },
    );
  });

  it('the login page over HTTP (signed in: the Location; signed out: the carried field)', async () => {
    await fc.assert(
      fc.asyncProperty(hostile, async (input) => {
        const query = encodeURIComponent(input);
        const signedIn = await browser.get(`/oauth/login?return_to=${query}`);
        if (signedIn.status === 302) expectSameOriginPath(signedIn.headers.location, JSON.stringify(input));
        else expect(signedIn.status).toBe(200);
      }),
      { numRuns: 150 },
    );
  });
});
