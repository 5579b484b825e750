import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectMatchesOpenApi } from '../resource/test-support/openapi.js';
import { authorizePath, basicAuth, type TestBrowser } from '../test-support/index.js';
import { expectRefusalChangesNothing, expectWellFormed } from './test-support/fuzz.js';
import { createHardenedApp, type Hardened } from './test-support/harness.js';

// A failing database (every repository call throws, as a lost disk or connection would) gives a
// 5xx in each surface's documented shape, never the cause, and the cause goes to the log only.

const LEAKS = /SQLITE_IOERR|secret-path|injected fault|\n\s+at |\.ts:\d+/;

let h: Hardened;
let browser: TestBrowser;
let accessToken: string;
let refreshToken: string;

beforeAll(async () => {
  h = await createHardenedApp();
  browser = await h.signedInBrowser('ada@example.com');
  ({ access_token: accessToken, refresh_token: refreshToken } = await h.tokenFor(h.admin));
});

async function whileDatabaseFails<T>(send: () => Promise<T>): Promise<T> {
  h.faults.add('*');
  try {
    return await send();
  } finally {
    h.faults.clear();
  }
}

describe('a failing database', () => {
  it('token, revocation and introspection: 500 server_error in the OAuth JSON shape, no-store, nothing leaked', async () => {
    const auth = basicAuth(h.client.clientId, h.clientSecret);
    for (const [path, body] of [
      ['/oauth/token', `grant_type=refresh_token&refresh_token=${refreshToken}`],
      ['/oauth/revoke', `token=${refreshToken}`],
      ['/oauth/introspect', `token=${accessToken}`],
    ] as const) {
      const res = await whileDatabaseFails(() => request(h.app).post(path).set('Authorization', auth).type('form').send(body));
      expect(res.status, path).toBe(500);
      expect(res.body, path).toEqual({ error: 'server_error', error_description: expect.any(String) });
      expect(res.headers['cache-control'], path).toBe('no-store');
      expect(res.text, path).not.toMatch(LEAKS);
      expectMatchesOpenApi(res, 'post', path);
    }
    // The requests work again once the database is back.
    expect((await h.token({ grant_type: 'refresh_token', refresh_token: refreshToken })).status).toBe(200);
  });

  it('resource APIs: 500 INTERNAL problem, nothing leaked; the cause is logged with the request id', async () => {
    const res = await whileDatabaseFails(() => request(h.app).get('/identity/v1/Users/me').set('Authorization', `Bearer ${accessToken}`).set('X-Request-Id', 'fault-1'));
    expect(res.status).toBe(500);
    expect(res.body).toMatchObject({ status: 500, errorCode: 'INTERNAL' });
    expect(res.text).not.toMatch(LEAKS);
    expectMatchesOpenApi(res, 'get', '/identity/v1/Users/me');
    const logged = h.logger.lines.filter((line) => line.level === 'error');
    expect(logged.length).toBeGreaterThan(0);
    expect(JSON.stringify(logged.at(-1)?.obj, (_k, v: unknown) => (v instanceof Error ? v.message : v))).toContain('injected fault');
    expect(h.logger.text()).not.toContain(accessToken);
  });

  it('pages: a 500 page with the page headers, nothing leaked', async () => {
    for (const path of [authorizePath(h.client), '/portal/clients', '/oauth/login']) {
      const res = await whileDatabaseFails(() => browser.get(path));
      expect(res.status, path).toBe(500);
      expect(res.headers['content-type'], path).toMatch(/^text\/html/);
      expect(res.headers['x-frame-options'], path).toBe('DENY');
      expect(res.text, path).not.toMatch(LEAKS);
    }
    const login = await whileDatabaseFails(() => h.browser().signIn('ada@example.com', 'password123'));
    expect(login.status).toBe(500);
    expect(login.text).not.toMatch(LEAKS);
  });
});

describe('the fuzzing checks can fail', () => {
  it('a 5xx is caught', async () => {
    const res = await whileDatabaseFails(() => request(h.app).get('/identity/v1/Users/me').set('Authorization', `Bearer ${accessToken}`));
    expect(() => expectWellFormed(res, 'problem')).toThrow();
  });

  it('a refused request that wrote something is caught', async () => {
    await expect(
      expectRefusalChangesNothing(h, async () => {
        await h.repositories.attributes.rename(h.account.accountKey, h.attributeKey, 'changed behind the back');
        return request(h.app).get('/identity/v1/Users/me');
      }),
    ).rejects.toThrow();
  });

  it('an error in the wrong shape is caught', async () => {
    const page = await request(h.app).get('/oauth/login');
    expect(() => expectWellFormed({ ...page, status: 400 } as request.Response, 'problem')).toThrow();
    expect(() => expectWellFormed({ ...page, status: 400 } as request.Response, 'oauth-json')).toThrow();
  });
});
