import request from 'supertest';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { expectMatchesOpenApi } from '../resource/test-support/openapi.js';
import { authorizePath, basicAuth, type TestBrowser } from '../test-support/index.js';
import { ADMIN_PHONE, createHardenedApp, type Hardened } from './test-support/harness.js';

// Issue 35: a database that cannot be reached, is locked past its timeout or is full is an
// outage, answered 503 with Retry-After in each surface's shape — never 500 "server_error" — and
// logged once per outage (docs/decisions/0100-storage-outages-answered-503.md).

const LEAKS = /ECONNREFUSED|127\.0\.0\.1:5432|injected|\n\s+at |\.ts:\d+/;

let h: Hardened;
let browser: TestBrowser;
let accessToken: string;
let refreshToken: string;

beforeAll(async () => {
  h = await createHardenedApp();
  browser = await h.signedInBrowser('ada@example.com');
  ({ access_token: accessToken, refresh_token: refreshToken } = await h.tokenFor(h.admin));
});

beforeEach(async () => {
  h.unavailable.clear();
  // Any outage of an earlier test ends at the next write that succeeds.
  expect((await sendMessage()).status).toBe(201);
  expect(h.storageOutages.current).toBeUndefined();
  h.logger.lines.length = 0;
});

async function duringOutage<T>(send: () => Promise<T>, methods: readonly string[] = ['*']): Promise<T> {
  for (const method of methods) h.unavailable.add(method);
  try {
    return await send();
  } finally {
    h.unavailable.clear();
  }
}

/** A request that writes (a message is saved). */
const sendMessage = () =>
  request(h.app).post('/messaging/v1/messages').set('Authorization', `Bearer ${accessToken}`).send({ ownerPhoneNumber: ADMIN_PHONE, contactPhoneNumbers: ['+15550001111'], body: 'hello' });

const outageLines = () => h.logger.lines.filter((line) => (line.obj as { event?: string }).event === 'storage_unavailable');
const recoveryLines = () => h.logger.lines.filter((line) => (line.obj as { event?: string }).event === 'storage_recovered');

describe('a database outage', () => {
  it('token, revocation and introspection: 503 temporarily_unavailable with Retry-After and no-store, never server_error', async () => {
    const auth = basicAuth(h.client.clientId, h.clientSecret);
    for (const [path, body] of [
      ['/oauth/token', `grant_type=refresh_token&refresh_token=${refreshToken}`],
      ['/oauth/revoke', `token=${refreshToken}`],
      ['/oauth/introspect', `token=${accessToken}`],
    ] as const) {
      const res = await duringOutage(() => request(h.app).post(path).set('Authorization', auth).type('form').send(body));
      expect(res.status, path).toBe(503);
      expect(res.body, path).toEqual({ error: 'temporarily_unavailable', error_description: expect.stringContaining('try again') });
      expect(res.headers['retry-after'], path).toBe('5');
      expect(res.headers['cache-control'], path).toBe('no-store');
      expect(res.text, path).not.toMatch(LEAKS);
      expectMatchesOpenApi(res, 'post', path);
    }
    expect((await h.token({ grant_type: 'refresh_token', refresh_token: refreshToken })).status).toBe(200);
  });

  it('resource APIs: a 503 problem with Retry-After; a bearer check that cannot read the grant too', async () => {
    const me = await duringOutage(() => request(h.app).get('/identity/v1/Users/me').set('Authorization', `Bearer ${accessToken}`));
    expect(me.status).toBe(503);
    expect(me.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(me.headers['retry-after']).toBe('5');
    expect(me.body).toMatchObject({ type: 'urn:gatehouse:problem:unavailable', status: 503, errorCode: 'INTERNAL' });
    expect(me.text).not.toMatch(LEAKS);
    expectMatchesOpenApi(me, 'get', '/identity/v1/Users/me');
    const attributes = `/admin/rest/v1/accounts/${h.account.accountKey}/attributes`;
    const created = await duringOutage(() => request(h.app).post(attributes).set('Authorization', `Bearer ${accessToken}`).send({ name: 'team' }), ['attributes.create']);
    expect(created.status).toBe(503);
    expectMatchesOpenApi(created, 'post', '/admin/rest/v1/accounts/{accountKey}/attributes');
  });

  it('pages: a 503 page that says to try again, with Retry-After and the page headers', async () => {
    for (const path of [authorizePath(h.client), '/portal/clients', '/oauth/login', '/']) {
      const res = await duringOutage(() => browser.get(path));
      expect(res.status, path).toBe(503);
      expect(res.headers['content-type'], path).toMatch(/^text\/html/);
      expect(res.headers['retry-after'], path).toBe('5');
      expect(res.headers['x-frame-options'], path).toBe('DENY');
      expect(res.text, path).toContain('Temporarily unavailable');
      expect(res.text, path).toContain('try again');
      expect(res.text, path).not.toMatch(LEAKS);
    }
    const login = await duringOutage(() => h.browser().signIn('ada@example.com', 'password123'));
    expect(login.status).toBe(503);
  });

  it('is logged once with its cause however many requests it fails, its recovery once, and the next outage again', async () => {
    const auth = basicAuth(h.client.clientId, h.clientSecret);
    h.unavailable.add('*');
    for (let index = 0; index < 5; index += 1) {
      expect((await request(h.app).get('/identity/v1/Users/me').set('Authorization', `Bearer ${accessToken}`)).status).toBe(503);
      expect((await request(h.app).post('/oauth/introspect').set('Authorization', auth).type('form').send(`token=${accessToken}`)).status).toBe(503);
      expect((await browser.get('/portal/clients')).status).toBe(503);
    }
    expect(outageLines()).toHaveLength(1);
    expect(outageLines()[0]).toMatchObject({ level: 'error', obj: { reason: 'unreachable', cause: { code: 'ECONNREFUSED' } } });
    expect(h.logger.lines.filter((line) => line.level === 'error')).toHaveLength(1);
    expect(h.storageOutages.current).toMatchObject({ reason: 'unreachable', failures: 15 });
    expect(recoveryLines()).toEqual([]);

    // Reads answering again do not end it: a full disk or a read-only file still answers reads.
    h.unavailable.clear();
    expect((await request(h.app).get('/identity/v1/Users/me').set('Authorization', `Bearer ${accessToken}`)).status).toBe(200);
    expect(recoveryLines()).toEqual([]);
    // The first write that goes through does.
    expect((await sendMessage()).status).toBe(201);
    expect(recoveryLines()).toHaveLength(1);
    expect(recoveryLines()[0]?.obj).toMatchObject({ reason: 'unreachable', failures: 15, downMs: expect.any(Number) });
    expect(h.storageOutages.current).toBeUndefined();

    await duringOutage(() => request(h.app).get('/identity/v1/Users/me').set('Authorization', `Bearer ${accessToken}`));
    expect(outageLines()).toHaveLength(2);
  });

  it('leaves a code whose exchange failed usable: the same code is exchanged once the database is back', async () => {
    const code = await h.codeOverHttp(browser);
    const redirect = h.client.redirectUris[0] as string;
    const failed = await duringOutage(() => h.token({ grant_type: 'authorization_code', code, redirect_uri: redirect }), ['grants.createFromCode']);
    expect(failed.status).toBe(503);
    expect(failed.body).toMatchObject({ error: 'temporarily_unavailable' });
    const again = await h.token({ grant_type: 'authorization_code', code, redirect_uri: redirect });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ token_type: 'Bearer', refresh_token: expect.any(String) });
  });
});
