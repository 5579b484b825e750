import { describe, expect, it } from 'vitest';
import { createMemoryRepositories, createTestGatehouse, s256Challenge } from '@gatehouse/core/testing';
import { createGatehouse } from '../gatehouse.js';
import type { ClientMetadataDocumentFetcher, FetchedClientMetadataDocument } from '../ports/client-metadata-documents.js';
import type { ClientMetadataDocumentSettings } from '../registration-settings.js';
import { defineSettings } from '../settings.js';
import { createControllableClock } from '../testing/clock.js';
import { cacheLifetimeSeconds } from './metadata-document-clients.js';

const URL_ID = 'https://agent.example/oauth/client.json';
const REDIRECT = 'http://127.0.0.1:33418/callback';

function documentOf(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { client_id: URL_ID, client_name: 'Agent', redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], token_endpoint_auth_method: 'none', ...overrides };
}

function answer(body: unknown, headers: Record<string, string> = {}, status = 200): FetchedClientMetadataDocument {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return { kind: 'fetched', status, headers: { 'content-type': 'application/json', ...headers }, body: new TextEncoder().encode(text) };
}

/** A fetcher that answers what the test says, counting the fetches of each URL. */
function fakeFetcher(initial: FetchedClientMetadataDocument = answer(documentOf())) {
  let next = initial;
  const fetched: string[] = [];
  const fetcher: ClientMetadataDocumentFetcher & { fetched: string[]; answer(value: FetchedClientMetadataDocument): void } = {
    fetched,
    answer: (value) => {
      next = value;
    },
    fetchDocument: async (url) => {
      fetched.push(url);
      return next;
    },
  };
  return fetcher;
}

async function setup(options: { documents?: Partial<ClientMetadataDocumentSettings>; anonymousScopes?: string[]; fetcher?: ReturnType<typeof fakeFetcher> } = {}) {
  const fetcher = options.fetcher ?? fakeFetcher();
  const t = await createTestGatehouse({
    settings: { clientMetadataDocuments: { enabled: true, ...options.documents }, ...(options.anonymousScopes ? { registration: { anonymousScopes: options.anonymousScopes } } : {}) },
    clientMetadataDocumentFetcher: fetcher,
  });
  return { t, fetcher };
}

function authorize(t: Awaited<ReturnType<typeof createTestGatehouse>>, params: Record<string, string> = {}) {
  return t.gatehouse.checkAuthorizationRequest({
    client_id: URL_ID,
    response_type: 'code',
    redirect_uri: REDIRECT,
    code_challenge: s256Challenge('v'.repeat(50)),
    code_challenge_method: 'S256',
    ...params,
  });
}

/** The error page's words for a request (never a redirect), or fails. */
async function errorPageOf(t: Awaited<ReturnType<typeof createTestGatehouse>>, params: Record<string, string> = {}): Promise<string> {
  const check = await authorize(t, params);
  if (check.kind !== 'show-error') throw new Error(`expected an error page, got ${check.kind}`);
  return check.error.description;
}

describe('Client ID Metadata Documents', () => {
  it('takes an https client_id as the client its document describes: a public client with PKCE, stored, its host known', async () => {
    const { t, fetcher } = await setup();
    const check = await authorize(t);
    if (check.kind !== 'valid') throw new Error(JSON.stringify(check));
    expect(check.client).toMatchObject({
      clientId: URL_ID,
      clientSecretHash: null,
      name: 'Agent',
      redirectUris: [REDIRECT],
      scopes: t.settings.scopes.map((entry) => entry.scope),
      grantTypes: ['authorization_code', 'refresh_token'],
      pkceRequired: true,
      registration: { kind: 'metadata-document', metadata: { applicationType: 'native', tokenEndpointAuthMethod: 'none' }, firstUsedAt: null },
    });
    expect(fetcher.fetched).toEqual([URL_ID]);
    expect((await t.repositories.clients.findById(URL_ID))?.registration?.kind).toBe('metadata-document');
    expect(t.audit.ofType('client.created')).toMatchObject([{ clientId: URL_ID, reason: 'client metadata document' }]);
  });

  it('runs the whole flow: consent, a code for the registered redirect URI, tokens at the token endpoint as a public client', async () => {
    const { t } = await setup();
    const user = await t.seedUser();
    const check = await authorize(t);
    if (check.kind !== 'valid') throw new Error(JSON.stringify(check));
    const { redirectTo } = await t.gatehouse.approveAuthorization({ request: check.request, userKey: user.userKey, sessionId: null });
    const client = await t.gatehouse.authenticateClient({ clientId: URL_ID, clientSecret: null });
    const tokens = await t.gatehouse.exchangeCode({ client, code: new URL(redirectTo).searchParams.get('code') as string, redirectUri: REDIRECT, codeVerifier: 'v'.repeat(50) });
    expect((await t.gatehouse.verifyAccessToken(tokens.access_token)).clientId).toBe(URL_ID);
    expect((await t.repositories.clients.findById(URL_ID))?.registration?.firstUsedAt).toEqual(t.clock.now());
  });

  it('uses the stored document while it is fresh (its max-age, within bounds), then fetches it again', async () => {
    const { t, fetcher } = await setup();
    fetcher.answer(answer(documentOf(), { 'cache-control': 'public, max-age=600' }));
    await authorize(t);
    await authorize(t);
    t.clock.advance(599);
    await authorize(t);
    expect(fetcher.fetched).toHaveLength(1);
    t.clock.advance(2);
    await authorize(t);
    expect(fetcher.fetched).toHaveLength(2);
  });

  it('fetches a document once for requests that come at the same time', async () => {
    const { t, fetcher } = await setup();
    const checks = await Promise.all([authorize(t), authorize(t), authorize(t)]);
    expect(checks.map((check) => check.kind)).toEqual(['valid', 'valid', 'valid']);
    expect(fetcher.fetched).toHaveLength(1);
  });

  it('forgets the remembered consent when the document changes, and keeps it when it comes back the same', async () => {
    // An https redirect URI: a loopback one never skips the consent page (docs/decisions/0109).
    const web = { redirect_uris: ['https://agent.example/cb'] };
    const { t, fetcher } = await setup({ fetcher: fakeFetcher(answer(documentOf(web))) });
    const user = await t.seedUser();
    const user2 = { userKey: user.userKey, sessionId: null, signedInAt: t.clock.now(), authenticatedAt: t.clock.now() };
    const first = await authorize(t, { scope: 'messaging.v1.read', redirect_uri: 'https://agent.example/cb' });
    if (first.kind !== 'valid') throw new Error(JSON.stringify(first));
    await t.gatehouse.approveAuthorization({ request: first.request, userKey: user.userKey, sessionId: null });
    const returnTo = '/oauth/authorize?…';
    expect((await t.gatehouse.nextAuthorizationStep({ request: first.request, user: user2, returnTo })).kind).toBe('redirect');

    t.clock.advance(301);
    const same = await authorize(t, { scope: 'messaging.v1.read', redirect_uri: 'https://agent.example/cb' });
    if (same.kind !== 'valid') throw new Error(JSON.stringify(same));
    expect((await t.gatehouse.nextAuthorizationStep({ request: same.request, user: user2, returnTo })).kind).toBe('redirect');

    t.clock.advance(301);
    fetcher.answer(answer(documentOf({ ...web, client_name: 'Agent (renamed)' })));
    const changed = await authorize(t, { scope: 'messaging.v1.read', redirect_uri: 'https://agent.example/cb' });
    if (changed.kind !== 'valid') throw new Error(JSON.stringify(changed));
    expect(changed.client.name).toBe('Agent (renamed)');
    expect(await t.repositories.consents.find(user.userKey, URL_ID)).toBeUndefined();
    expect((await t.gatehouse.nextAuthorizationStep({ request: changed.request, user: user2, returnTo })).kind).toBe('consent');
    expect(t.audit.ofType('client.updated')).toMatchObject([{ clientId: URL_ID, reason: 'client metadata document changed; remembered consent forgotten' }]);
  });

  it('shows an error page, never a redirect, for a redirect_uri the document does not list', async () => {
    const { t } = await setup();
    expect(await errorPageOf(t, { redirect_uri: 'http://127.0.0.1:33418/other' })).toBe('The redirect_uri is not registered for this client.');
    expect(await errorPageOf(t, { redirect_uri: 'https://evil.example/cb' })).toBe('The redirect_uri is not registered for this client.');
  });

  it('refuses client_id URLs that cannot name a document, and hosts the settings refuse, without fetching', async () => {
    const { t, fetcher } = await setup({ documents: { allowedHosts: ['*.example', 'agent.example'], deniedHosts: ['bad.example'] } });
    for (const clientId of [
      'https://agent.example',
      'https://agent.example/',
      'https://agent.example/a/../client.json',
      'https://agent.example/a/%2E%2E/client.json',
      'https://agent.example/./client.json',
      'https://user:pw@agent.example/client.json',
      'https://agent.example/client.json#x',
      `https://agent.example/${'x'.repeat(520)}`,
      'https://agent.example?x=/client.json',
    ]) {
      expect(await errorPageOf(t, { client_id: clientId })).toMatch(/^The client_id is not a valid client metadata document URL/);
    }
    expect(await errorPageOf(t, { client_id: 'https://bad.example/client.json' })).toBe('Gatehouse does not accept clients whose metadata is at bad.example.');
    expect(await errorPageOf(t, { client_id: 'https://agent.other/client.json' })).toBe('Gatehouse does not accept clients whose metadata is at agent.other.');
    expect(fetcher.fetched).toEqual([]);
    // A URL with a query (allowed) under an allowed host: fetched.
    await authorize(t, { client_id: 'https://tools.example/client.json?v=2' });
    expect(fetcher.fetched).toEqual(['https://tools.example/client.json?v=2']);
  });

  it('refuses a client_id whose host ends with a dot, whatever the host lists say, without fetching (docs/decisions/0178)', async () => {
    const trailingDot = (host: string) => `The client_id is not a valid client metadata document URL: its host must not end with a dot (${host}, not ${host}.).`;
    const denied = await setup({ documents: { deniedHosts: ['denied.example', '*.denied.example'] } });
    for (const host of ['denied.example', 'sub.denied.example', 'Denied.Example']) {
      expect(await errorPageOf(denied.t, { client_id: `https://${host}./doc.json` })).toBe(trailingDot(host.toLowerCase()));
    }
    const allowed = await setup({ documents: { allowedHosts: ['allowed.example', '*.allowed.example'] } });
    for (const host of ['allowed.example', 'sub.allowed.example']) {
      expect(await errorPageOf(allowed.t, { client_id: `https://${host}./doc.json` })).toBe(trailingDot(host));
    }
    expect([...denied.fetcher.fetched, ...allowed.fetcher.fetched]).toEqual([]);
  });

  it('refuses a client_id the URL parser would read as another URL, saying why, without fetching; ordinary ones are fetched as written (docs/decisions/0178)', async () => {
    const { t, fetcher } = await setup();
    const invalid = 'The client_id is not a valid client metadata document URL: ';
    const dotSegments = `${invalid}it must not contain . or .. path segments, also not written with %2e.`;
    const cases: Array<[string, string]> = [
      // WHATWG URL reads a backslash as "/" in an https URL: fetched as https://127.0.0.1:8443/b.json.
      ['https://127.0.0.1:8443/trusted-app\\..\\b.json', `${invalid}it contains a backslash.`],
      ['https://agent.example/a\\client.json', `${invalid}it contains a backslash.`],
      // Tabs and line breaks are dropped by the parser: ".\t." is "..".
      ['https://app.example/a/.\t./b.json', `${invalid}it contains a space, a tab, a line break or another control character.`],
      ['https://app.example/a/.\n./b.json', `${invalid}it contains a space, a tab, a line break or another control character.`],
      ['https://app.example/a/.\r\n./b.json', `${invalid}it contains a space, a tab, a line break or another control character.`],
      ['https://app.example/a b.json', `${invalid}it contains a space, a tab, a line break or another control character.`],
      ['https://app.example/a/%2e%2e/b.json', dotSegments],
      ['https://app.example/a/%2E./b.json', dotSegments],
      ['https://app.example/a/.%2e/b.json', dotSegments],
      ['https://app.example/a/%2e/b.json', dotSegments],
      ['https://app.example/a/../b.json', dotSegments],
      ['https://Agent.example/client.json', `${invalid}it must be written exactly as its URL reads back, https://agent.example/client.json (a lower-case host, no :443, other characters percent-encoded).`],
      ['https://agent.example:443/client.json', `${invalid}it must be written exactly as its URL reads back, https://agent.example/client.json (a lower-case host, no :443, other characters percent-encoded).`],
      ['https://127.0.0.1./client.json', `${invalid}it must be written exactly as its URL reads back, https://127.0.0.1/client.json (a lower-case host, no :443, other characters percent-encoded).`],
      ['https://agent.example/café.json', `${invalid}it must be written exactly as its URL reads back, https://agent.example/caf%C3%A9.json (a lower-case host, no :443, other characters percent-encoded).`],
      ['https://agent.example', `${invalid}it must have a path (such as /client.json).`],
      ['https://agent.example/client.json#x', `${invalid}it must not contain a fragment (#).`],
      ['https://user@agent.example/client.json', `${invalid}it must not contain a user name or password.`],
    ];
    for (const [clientId, words] of cases) expect({ clientId, page: await errorPageOf(t, { client_id: clientId }) }).toEqual({ clientId, page: words });
    expect(fetcher.fetched).toEqual([]);

    // An https URL with a path; a port, a query, percent-encoded characters and IP addresses are allowed (draft §3).
    const ordinary = [
      'https://agent.example/client.json',
      'https://agent.example:8443/oauth/client.json',
      'https://agent.example/client.json?v=2&x=a%20b',
      'https://agent.example/caf%C3%A9/client.json',
      'https://agent.example/a.b/..c/client.json',
      'https://127.0.0.1:8443/trusted-app/b.json',
      'https://[::1]:8443/client.json',
    ];
    for (const clientId of ordinary) await authorize(t, { client_id: clientId });
    expect(fetcher.fetched).toEqual(ordinary);
  });

  it('refuses a document with client_secret or client_secret_expires_at, naming the field, and stores nothing (draft §4.1)', async () => {
    for (const field of ['client_secret', 'client_secret_expires_at']) {
      for (const value of ['s3cret', 0, null]) {
        const { t } = await setup({ fetcher: fakeFetcher(answer(documentOf({ [field]: value }))) });
        expect(await errorPageOf(t)).toBe(`The app's metadata document (${URL_ID}) contains ${field}, which a metadata document must not have: it cannot hold a shared secret.`);
        expect(await t.repositories.clients.listAll()).toEqual([]);
      }
    }
  });

  it('explains each document it cannot use on the error page, and stores nothing', async () => {
    const cases: Array<[FetchedClientMetadataDocument, string]> = [
      [{ kind: 'failed', reason: 'unreachable', detail: 'ECONNREFUSED' }, 'could not be fetched.'],
      [{ kind: 'failed', reason: 'refused-address', detail: '10.0.0.1 is private' }, 'could not be fetched.'],
      [{ kind: 'failed', reason: 'timeout', detail: '5000 ms' }, 'did not arrive within 5 seconds.'],
      [{ kind: 'failed', reason: 'too-large', detail: '6000 bytes' }, 'is larger than 5 KiB.'],
      [answer(documentOf(), {}, 404), 'could not be fetched (HTTP 404).'],
      [answer(documentOf(), { location: 'https://evil.example/doc.json' }, 302), 'answered with a redirect (HTTP 302), which Gatehouse does not follow.'],
      [answer(documentOf(), { 'content-type': 'text/html' }), 'is not JSON (its Content-Type is not application/json).'],
      [answer('{"client_id": '), 'is not valid JSON.'],
      [answer([documentOf()]), 'is not a JSON object.'],
      [answer({ ...documentOf(), padding: 'x'.repeat(5200) }), 'is larger than 5 KiB.'],
      [answer(documentOf({ client_id: 'https://other.example/client.json' })), 'names another client_id: it must be its own URL.'],
      [answer(documentOf({ client_id: undefined })), 'names another client_id: it must be its own URL.'],
      [answer(documentOf({ token_endpoint_auth_method: 'client_secret_basic' })), 'uses token_endpoint_auth_method client_secret_basic; only none (a public client) is accepted.'],
      [answer(documentOf({ redirect_uris: ['http://agent.example/cb'] })), 'lists no redirect URI Gatehouse accepts.'],
      [answer(documentOf({ redirect_uris: [] })), 'lists no redirect URI Gatehouse accepts.'],
      // Not written as a URL parser writes it back (docs/decisions/0197).
      [answer(documentOf({ redirect_uris: ['http://127.1/cb', 'HTTPS://agent.example/cb'] })), 'lists no redirect URI Gatehouse accepts.'],
      [answer(documentOf({ redirect_uris: 'http://127.0.0.1/cb' })), 'is not valid: redirect_uris: must be an array of strings.'],
      [answer(documentOf({ client_name: 'x'.repeat(101) })), 'has a client_name that is not 1 to 100 characters without control characters.'],
      [answer(documentOf({ client_name: 'Agent\u202e' })), 'has a client_name that must not contain invisible formatting characters.'],
    ];
    for (const [fetched, words] of cases) {
      const { t } = await setup({ fetcher: fakeFetcher(fetched) });
      expect(await errorPageOf(t)).toBe(`The app's metadata document (${URL_ID}) ${words}`);
      expect(await t.repositories.clients.listAll()).toEqual([]);
    }
  });

  it('never falls back to a stale copy when the document cannot be fetched again', async () => {
    const { t, fetcher } = await setup();
    expect((await authorize(t)).kind).toBe('valid');
    t.clock.advance(301);
    fetcher.answer({ kind: 'failed', reason: 'unreachable', detail: 'ECONNREFUSED' });
    expect(await errorPageOf(t)).toContain('could not be fetched.');
  });

  it('keeps only the scopes anonymous clients may have and the grant types of a public client: one document serves many servers', async () => {
    const { t, fetcher } = await setup({ anonymousScopes: ['messaging.v1.read', 'messaging.v1.send'] });
    fetcher.answer(answer(documentOf({ scope: 'messaging.v1.read admin.v1.attributes.write orders.v1.read', grant_types: ['authorization_code', 'client_credentials', 'urn:other'] })));
    const check = await authorize(t);
    if (check.kind !== 'valid') throw new Error(JSON.stringify(check));
    expect(check.client).toMatchObject({ scopes: ['messaging.v1.read'], grantTypes: ['authorization_code'] });
  });

  it('gives a document without a scope every scope anonymous clients may have, and without a name its host', async () => {
    const { t, fetcher } = await setup({ anonymousScopes: ['messaging.v1.send'] });
    fetcher.answer(answer(documentOf({ client_name: undefined, grant_types: undefined })));
    const check = await authorize(t);
    if (check.kind !== 'valid') throw new Error(JSON.stringify(check));
    expect(check.client).toMatchObject({ name: 'agent.example', scopes: ['messaging.v1.send'], grantTypes: ['authorization_code'] });
  });

  it('is off by default: an https client_id is an unknown client, also one stored while it was on', async () => {
    const repositories = createMemoryRepositories();
    const on = await createTestGatehouse({ repositories, settings: { clientMetadataDocuments: { enabled: true } }, clientMetadataDocumentFetcher: fakeFetcher() });
    expect((await authorize(on)).kind).toBe('valid');
    const off = await createTestGatehouse({ repositories });
    expect(await errorPageOf(off)).toBe('The client is not known.');
  });

  it('needs a fetcher when it is on', () => {
    const settings = defineSettings({ issuer: 'https://auth.example', clientMetadataDocuments: { enabled: true } });
    expect(() => createGatehouse({ repositories: createMemoryRepositories(), settings, clock: createControllableClock() })).toThrow('needs a clientMetadataDocumentFetcher');
  });
});

describe('the adapter decides whether a document may be fetched (docs/decisions/0166)', () => {
  it('asks only when a fetch would start: refused, nothing is fetched or stored and the page says why; a stored document is not asked about', async () => {
    const { t, fetcher } = await setup();
    let asked = 0;
    const refuse = { mayFetchClientMetadataDocument: async () => ((asked += 1), false) };
    const allow = { mayFetchClientMetadataDocument: async () => ((asked += 1), true) };
    const params = { client_id: URL_ID, response_type: 'code', redirect_uri: REDIRECT, code_challenge: s256Challenge('v'.repeat(50)), code_challenge_method: 'S256' };

    const refused = await t.gatehouse.checkAuthorizationRequest(params, refuse);
    expect(refused).toMatchObject({ kind: 'show-error', error: { description: 'Too many new apps were started from your network. Please try again later.' } });
    expect(asked).toBe(1);
    expect(fetcher.fetched).toEqual([]);
    expect(await t.repositories.clients.findById(URL_ID)).toBeUndefined();

    expect((await t.gatehouse.checkAuthorizationRequest(params, allow)).kind).toBe('valid');
    expect(asked).toBe(2);
    expect(fetcher.fetched).toEqual([URL_ID]);
    // Stored and fresh: no fetch, so nothing to ask, even of a closed gate.
    expect((await t.gatehouse.checkAuthorizationRequest(params, refuse)).kind).toBe('valid');
    expect(asked).toBe(2);
    // A registered client is never asked about.
    const { client } = await t.seedClient();
    expect((await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', redirect_uri: client.redirectUris[0] as string }, refuse)).kind).toBe('valid');
    expect(asked).toBe(2);
  });
});

describe('cacheLifetimeSeconds (RFC 9111 §4.2.1, within bounds)', () => {
  const bounds = { defaultSeconds: 300, minSeconds: 60, maxSeconds: 86400 };
  it('reads max-age and s-maxage, no-store and no-cache, Expires against Date, and keeps the result within the bounds', () => {
    expect(cacheLifetimeSeconds({ 'cache-control': 'public, max-age=600' }, bounds)).toBe(600);
    expect(cacheLifetimeSeconds({ 'cache-control': 'max-age=600, s-maxage=1200' }, bounds)).toBe(1200);
    expect(cacheLifetimeSeconds({ 'cache-control': 'max-age="900"' }, bounds)).toBe(900);
    expect(cacheLifetimeSeconds({ 'cache-control': 'no-store' }, bounds)).toBe(60);
    expect(cacheLifetimeSeconds({ 'cache-control': 'no-cache, max-age=600' }, bounds)).toBe(60);
    expect(cacheLifetimeSeconds({ 'cache-control': 'max-age=10' }, bounds)).toBe(60);
    expect(cacheLifetimeSeconds({ 'cache-control': 'max-age=99999999' }, bounds)).toBe(86400);
    expect(cacheLifetimeSeconds({ date: 'Tue, 01 Jul 2025 10:00:00 GMT', expires: 'Tue, 01 Jul 2025 11:00:00 GMT' }, bounds)).toBe(3600);
    expect(cacheLifetimeSeconds({ date: 'Tue, 01 Jul 2025 10:00:00 GMT', expires: '0' }, bounds)).toBe(60);
    expect(cacheLifetimeSeconds({ 'cache-control': 'max-age=oops' }, bounds)).toBe(300);
    expect(cacheLifetimeSeconds({}, bounds)).toBe(300);
  });
});
