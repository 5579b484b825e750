import fc from 'fast-check';
import type request from 'supertest';
import { expect } from 'vitest';
import { expectMatchesOpenApi, expectMatchesSchema, openApi, type HttpMethod } from '../../resource/test-support/openapi.js';
import type { Hardened } from './harness.js';

/** Strings that have broken parsers before: escapes, encodings, injections, prototype keys, numbers. */
export const NASTY = [
  '',
  ' ',
  '%',
  '%zz',
  '%00',
  '%E0%A4%A',
  '%C0%AF',
  '\u0000',
  '\r\n',
  '\\',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  "' OR 1=1 --",
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'null',
  'undefined',
  'true',
  '[]',
  '{}',
  '-1',
  '0',
  '1e309',
  'NaN',
  '9007199254740993',
  '😀',
  '\uD800',
  'e\u0301',
  '\u202Egnp.exe',
  '\uFEFF',
  'Zs\u200B',
  'A'.repeat(300),
];

/** Any text: nasty constants, ASCII, full Unicode (with lone surrogates), or a huge value. */
export const text: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NASTY) },
  { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 10 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1000, max: 70_000 }).map((n) => 'x'.repeat(n)) },
);

/** Percent-encodes the UTF-8 bytes of any string (lone surrogates become U+FFFD, as a browser would). */
export function pct(value: string): string {
  return [...Buffer.from(value, 'utf8')].map((byte) => (/[A-Za-z0-9\-._~]/.test(String.fromCharCode(byte)) ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`)).join('');
}

/** A query or form string from `pairs`, each part either percent-encoded or sent raw (bad escapes and all). */
export function encodePairs(pairs: ReadonlyArray<readonly [string, string, boolean]>): string {
  return pairs.map(([name, value, raw]) => (raw ? `${latin1Safe(name)}=${latin1Safe(value)}` : `${pct(name)}=${pct(value)}`)).join('&');
}

/** Only what can travel raw in a URL or header without the client library refusing it. */
export function latin1Safe(value: string): string {
  return value.replace(/[^\x21-\x7e]/g, '').replace(/[#&=?]/g, '');
}

/** True one time in five. */
const rarely = fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) });

/** Name/value pairs where the names are mostly the endpoint's own, sometimes repeated, sometimes raw. */
export function pairsOf(names: readonly string[], known: Record<string, fc.Arbitrary<string>> = {}): fc.Arbitrary<Array<[string, string, boolean]>> {
  const name = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...names) }, { weight: 1, arbitrary: text });
  return fc.array(
    name.chain((n) => fc.tuple(fc.constant(n), Object.hasOwn(known, n) ? fc.oneof(known[n] as fc.Arbitrary<string>, text) : text, rarely)),
    { maxLength: 8 },
  );
}

/** A value for a header: printable, never a CR/LF (the HTTP client would refuse those). */
export const headerText: fc.Arbitrary<string> = text.map((value) => value.replace(/[^\t\x20-\x7e]/g, '').slice(0, 3000));

/** An `Authorization` header, good or bad. */
export function authorizationHeader(good: string[]): fc.Arbitrary<string | undefined> {
  // Under Node's 16 kB header limit (a bigger header is answered 431 by Node itself, before any app code).
  const b64 = (value: string) => Buffer.from(value.slice(0, 2000), 'utf8').toString('base64');
  return fc.oneof(
    fc.constant(undefined),
    ...(good.length > 0 ? [fc.constantFrom(...good)] : []),
    fc.tuple(text, text).map(([id, secret]) => `Basic ${b64(`${id}:${secret}`)}`),
    text.map((value) => `Basic ${b64(value)}`),
    headerText.map((value) => `Basic ${value}`),
    headerText.map((value) => `Bearer ${value}`),
    fc.constantFrom('Basic', 'Basic ', 'Basic ====', 'Basic Og==', 'Bearer', 'Bearer  ', 'Digest x', 'basic OmE=', `Basic ${b64('%:%')}`, `Basic ${b64('a:%zz')}`, `Basic ${b64('%E0%A4%A:x')}`),
    headerText,
  );
}

/** A body and its content type: a form, JSON, raw text or nothing, under a right or wrong type. */
export function bodyOf(pairs: fc.Arbitrary<Array<[string, string, boolean]>>): fc.Arbitrary<{ type: string | undefined; body: string | undefined }> {
  const contentType = fc.constantFrom(
    'application/x-www-form-urlencoded',
    'application/x-www-form-urlencoded; charset=utf-8',
    'application/x-www-form-urlencoded; charset=iso-8859-1',
    'application/json',
    'application/merge-patch+json',
    'text/plain',
    'multipart/form-data; boundary=x',
    'application/x-www-form-urlencoded; charset',
    '*/*',
    'garbage',
  );
  return fc.oneof(
    fc.record({ type: fc.constant<string | undefined>('application/x-www-form-urlencoded'), body: pairs.map(encodePairs) }),
    fc.record({ type: fc.option(contentType, { nil: undefined }), body: pairs.map(encodePairs) }),
    fc.record({ type: fc.option(contentType, { nil: undefined }), body: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v) ?? 'null') }),
    fc.record({ type: fc.option(contentType, { nil: undefined }), body: fc.option(text, { nil: undefined }) }),
  );
}

/** Sends a body with its type exactly as given (supertest would otherwise add or rewrite it). */
export function withBody(test: request.Test, input: { type: string | undefined; body: string | undefined }): request.Test {
  if (input.type !== undefined) test = test.set('Content-Type', input.type);
  if (input.body === undefined) return test;
  return test.send(Buffer.from(input.body, 'utf8'));
}

/** Extra headers an attacker controls, beside Authorization and Content-Type. */
export const extraHeaders: fc.Arbitrary<Record<string, string>> = fc
  .record(
    {
      accept: fc.constantFrom('application/json', 'text/html', '*/*', 'image/png', '', 'text/html;q=0, application/json;q=0'),
      'x-forwarded-for': fc.constantFrom('1.2.3.4', '::1', 'not-an-ip', '1.1.1.1, 2.2.2.2'),
      'x-request-id': headerText,
      cookie: fc.oneof(headerText, text.map((v) => `gatehouse_session=${latin1Safe(v).slice(0, 1000)}; gatehouse_csrf=${latin1Safe(v).slice(0, 1000)}`)),
      'accept-language': headerText,
      origin: fc.constantFrom('https://evil.example', 'null'),
    },
    { requiredKeys: [] },
  );

export function setHeaders(test: request.Test, headers: Record<string, string | undefined>): request.Test {
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) test = test.set(name, value);
  return test;
}

/** Run counts small enough for CI (each file stays well under 30 s on two busy cores). */
export const RUNS = Number(process.env.GATEHOUSE_FUZZ_RUNS ?? 40);

/** A property's time limit: generous, as two busy cores can be slow (the runs are bounded anyway). */
export const FUZZ_TIMEOUT_MS = 120_000;

/**
 * What every fuzzed answer must satisfy. `kind` is the surface: OAuth JSON, API problem, HTML page.
 * `documented` names the OpenAPI operation to validate against when its status is listed there.
 */
export function expectWellFormed(res: request.Response, kind: 'oauth-json' | 'problem' | 'page', documented?: { method: HttpMethod; path: string }): void {
  const where = `${res.status} ${String(res.headers['content-type'])}: ${res.text.slice(0, 300)}`;
  expect(res.status, where).toBeGreaterThanOrEqual(200);
  expect(res.status, where).toBeLessThan(500);
  expect(res.headers['x-frame-options'], where).toBe('DENY');
  expect(res.text, where).not.toMatch(/\n\s+at .+\(.*:\d+:\d+\)|SQLITE|node_modules|\.ts:\d+/);
  if (res.status >= 300 && res.status < 400) {
    // RFC 9700 §4.12: never 307/308, which would make the browser re-send a POSTed form (credentials) to the target.
    expect([302, 303], where).toContain(res.status);
    expect(res.headers.location, where).toBeDefined();
    return;
  }
  if (documented && isDocumented(documented.method, documented.path, res.status)) {
    if (kind !== 'page') expectMatchesOpenApi(res, documented.method, documented.path);
  }
  if (res.status < 400) return;
  if (kind === 'oauth-json') {
    expect(res.headers['content-type'], where).toMatch(/^application\/json/);
    expectMatchesSchema(JSON.parse(res.text), 'OAuthError');
    expect(res.headers['cache-control'], where).toBe('no-store');
  } else if (kind === 'problem') {
    expect(res.headers['content-type'], where).toMatch(/^application\/problem\+json/);
    const body = JSON.parse(res.text) as { status: number };
    expectMatchesSchema(body, 'Problem');
    expect(body.status, where).toBe(res.status);
  } else {
    expect(res.headers['content-type'], where).toMatch(/^text\/html; charset=utf-8/);
    expect(res.headers['content-security-policy'], where).toContain("frame-ancestors 'none'");
    expect(res.headers['referrer-policy'], where).toBe('no-referrer');
    expect(res.text, where).toMatch(/^<!doctype html>/);
  }
}

function isDocumented(method: HttpMethod, path: string, status: number): boolean {
  const paths = openApi().document.paths as Record<string, Record<string, { responses?: Record<string, unknown> }>>;
  return paths[path]?.[method]?.responses?.[String(status)] !== undefined;
}

/**
 * Runs `send` and checks that a refused request (4xx) changed nothing: no repository write that
 * changed anything, and the same observable state before and after.
 */
export async function expectRefusalChangesNothing(h: Hardened, send: () => Promise<request.Response>): Promise<request.Response> {
  const before = await h.snapshot();
  h.writes.length = 0;
  const res = await send();
  if (res.status >= 400) {
    const where = `${res.status} ${String(res.text ?? '').slice(0, 200)}`;
    expect(h.writes.filter((write) => write.changed), where).toEqual([]);
    expect(await h.snapshot(), where).toBe(before);
  }
  return res;
}
