import { DEFAULT_SCOPES, OAuthError, StorageUnavailableError, type Gatehouse } from '@gatehouse/core';
import { createTestGatehouse } from '@gatehouse/core/testing';
import express, { type ErrorRequestHandler } from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { HttpProblem, accessTokenOf, bearerAuth, bearerErrorHandler, createStorageOutages, problem, problemErrorHandler, requireScope, userKeyOf } from '../index.js';

/** An embedder's "orders" service: its own API, its own scope, Gatehouse's middleware from the package root. */
const ORDERS = { scope: 'orders.v1.read', description: 'See your orders' };

async function ordersService() {
  const t = await createTestGatehouse({ settings: { scopes: [...DEFAULT_SCOPES, ORDERS] } });
  const user = await t.seedUser({ email: 'ada@example.com' });
  const { client } = await t.seedClient({ scopes: ['orders.v1.read', 'messaging.v1.read'] });
  const tokenWith = async (scope: string) => (await t.obtainTokens({ client, user, scope })).access_token;
  return { t, user, client, tokenWith };
}

function ordersRoute(gatehouse: Gatehouse, app: express.Express, realm?: string): void {
  const auth = realm === undefined ? bearerAuth(gatehouse) : bearerAuth(gatehouse, { realm });
  app.get('/orders', auth, requireScope('orders.v1.read'), (_req, res) => {
    const token = accessTokenOf(res);
    res.json({ orders: [], userKey: token.userKey, scopes: token.scopes });
  });
}

describe('bearer middleware on a host’s own routes', () => {
  it('answers a token that cannot be checked during a storage outage with a 503 problem and Retry-After, reported to the tracker (issue 35)', async () => {
    const { t, tokenWith } = await ordersService();
    const token = await tokenWith('orders.v1.read');
    const outage = new StorageUnavailableError('busy', 'locked', { cause: Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }) });
    const failing: Gatehouse = { ...t.gatehouse, verifyAccessToken: () => Promise.reject(outage) };
    const lines: unknown[] = [];
    const storageOutages = createStorageOutages({ logger: { error: (obj) => void lines.push(obj) } });
    const app = express();
    ordersRoute(failing, app);
    app.use(bearerErrorHandler({ storageOutages }));
    const res = await request(app).get('/orders').set('Authorization', `Bearer ${token}`);
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.body).toMatchObject({ type: 'urn:gatehouse:problem:unavailable', status: 503 });
    expect(storageOutages.current).toMatchObject({ reason: 'busy', failures: 1 });
    expect(lines).toHaveLength(1);
  });

  it('userKeyOf gives the user of a user’s token and refuses a client-credentials token with 403, even under Express’s default handler', async () => {
    const { t, user, tokenWith } = await ordersService();
    const { client: machine } = await t.seedClient({ redirectUris: [], grantTypes: ['client_credentials'], scopes: ['orders.v1.read'] });
    const machineToken = (await t.gatehouse.clientCredentials({ client: machine, scope: undefined })).access_token;
    const app = express();
    app.get('/orders/mine', bearerAuth(t.gatehouse), requireScope('orders.v1.read'), (_req, res) => {
      res.json({ userKey: userKeyOf(res) });
    });
    app.get('/orders/all', bearerAuth(t.gatehouse), requireScope('orders.v1.read'), (_req, res) => {
      const token = accessTokenOf(res);
      res.json({ subjectType: token.subjectType, clientId: token.clientId, userKey: token.userKey });
    });
    expect((await request(app).get('/orders/mine').set('Authorization', `Bearer ${await tokenWith('orders.v1.read')}`).expect(200)).body).toEqual({ userKey: user.userKey });
    const refused = await request(app).get('/orders/mine').set('Authorization', `Bearer ${machineToken}`);
    expect(refused.status).toBe(403);
    expect(refused.text).not.toContain(user.userKey);
    const all = await request(app).get('/orders/all').set('Authorization', `Bearer ${machineToken}`).expect(200);
    expect(all.body).toEqual({ subjectType: 'client', clientId: machine.clientId, userKey: null });
    // With bearerErrorHandler(), the refusal is a problem like the other refusals of the route, not Express's HTML page.
    app.use(bearerErrorHandler());
    const answered = await request(app).get('/orders/mine').set('Authorization', `Bearer ${machineToken}`);
    expect(answered.status).toBe(403);
    expect(answered.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(answered.body).toMatchObject({ type: 'urn:gatehouse:problem:forbidden', status: 403, detail: expect.stringContaining('client-credentials token has no user') });
  });

  it('lets a token with the scope through and hands the verified token to the route', async () => {
    const { t, user, tokenWith } = await ordersService();
    const app = express();
    ordersRoute(t.gatehouse, app, 'orders');
    app.use(bearerErrorHandler());
    const res = await request(app).get('/orders').set('Authorization', `Bearer ${await tokenWith('orders.v1.read')}`).expect(200);
    expect(res.body).toEqual({ orders: [], userKey: user.userKey, scopes: ['orders.v1.read'] });
  });

  it('bearerErrorHandler answers each refusal per RFC 6750 §3 with the configured realm and a problem body', async () => {
    const { t, tokenWith } = await ordersService();
    const app = express();
    ordersRoute(t.gatehouse, app, 'orders');
    app.use(bearerErrorHandler());
    const cases: Array<[request.Test, number, string, string]> = [
      [request(app).get('/orders'), 401, 'Bearer realm="orders"', 'AUTHN_INVALID_TOKEN'],
      [request(app).get('/orders').set('Authorization', 'Bearer not-a-jwt'), 401, 'Bearer realm="orders", error="invalid_token"', 'AUTHN_INVALID_TOKEN'],
      [request(app).get('/orders').set('Authorization', 'Bearer a b'), 400, 'Bearer realm="orders", error="invalid_request"', 'INVALID_REQUEST'],
      [request(app).get('/orders?access_token=x'), 400, 'Bearer realm="orders", error="invalid_request"', 'INVALID_REQUEST'],
      [
        request(app).get('/orders').set('Authorization', `Bearer ${await tokenWith('messaging.v1.read')}`),
        403,
        'Bearer realm="orders", error="insufficient_scope", scope="orders.v1.read"',
        'AUTHZ_INSUFFICIENT_SCOPE',
      ],
    ];
    for (const [pending, status, challenge, errorCode] of cases) {
      const res = await pending;
      expect(res.status).toBe(status);
      expect(res.headers['www-authenticate']).toBe(challenge);
      expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toMatchObject({ status, errorCode });
    }
  });

  it('the realm defaults to "gatehouse", and requireScope may name its own', async () => {
    const { t, tokenWith } = await ordersService();
    const app = express();
    app.get('/default', bearerAuth(t.gatehouse), requireScope('orders.v1.read'), (_req, res) => res.end());
    app.get('/own', bearerAuth(t.gatehouse, { realm: 'orders' }), requireScope('orders.v1.read', { realm: 'orders-admin' }), (_req, res) => res.end());
    app.use(bearerErrorHandler());
    const token = await tokenWith('messaging.v1.read');
    expect((await request(app).get('/default')).headers['www-authenticate']).toBe('Bearer realm="gatehouse"');
    expect((await request(app).get('/default').set('Authorization', `Bearer ${token}`)).headers['www-authenticate']).toBe(
      'Bearer realm="gatehouse", error="insufficient_scope", scope="orders.v1.read"',
    );
    expect((await request(app).get('/own').set('Authorization', `Bearer ${token}`)).headers['www-authenticate']).toBe(
      'Bearer realm="orders-admin", error="insufficient_scope", scope="orders.v1.read"',
    );
  });

  it('refuses a realm that would need escaping in the challenge, when the middleware is made', async () => {
    const { t } = await ordersService();
    for (const realm of ['', 'a"b', 'a\\b', 'line\nbreak', 'é', 'x'.repeat(101)]) {
      expect(() => bearerAuth(t.gatehouse, { realm }), realm).toThrow(TypeError);
      expect(() => requireScope('orders.v1.read', { realm }), realm).toThrow(TypeError);
    }
  });

  it('bearerErrorHandler passes every other error on to the host’s own handler', async () => {
    const { t } = await ordersService();
    const app = express();
    app.get('/boom', bearerAuth(t.gatehouse), () => {
      throw new Error('host failure');
    });
    app.get('/unprotected', () => {
      throw new HttpProblem(problem('not-found', 'No such order.'));
    });
    app.use(bearerErrorHandler());
    const hostHandler: ErrorRequestHandler = (error: Error, _req, res, _next) => {
      res.status(418).json({ host: error.message });
    };
    app.use(hostHandler);
    const failing = await request(app).get('/boom');
    expect(failing.status).toBe(401); // refused before the route ran
    const notFound = await request(app).get('/unprotected');
    expect(notFound.status).toBe(418);
    expect(notFound.body).toEqual({ host: 'No such order.' });
  });

  it('bearerErrorHandler answers the core’s own bearer errors too (a host calling verifyAccessToken itself)', async () => {
    const { t } = await ordersService();
    const app = express();
    app.get('/manual', async (req) => {
      await t.gatehouse.verifyAccessToken(req.get('X-Token') ?? '');
    });
    app.get('/scope', () => {
      throw new OAuthError('insufficient_scope', 'Needs orders.v1.read.', { scope: 'orders.v1.read' });
    });
    app.use(bearerErrorHandler());
    const manual = await request(app).get('/manual').set('X-Token', 'garbage');
    expect(manual.status).toBe(401);
    expect(manual.headers['www-authenticate']).toBe('Bearer realm="gatehouse", error="invalid_token"');
    const scope = await request(app).get('/scope');
    expect(scope.status).toBe(403);
    expect(scope.body).toMatchObject({ errorCode: 'AUTHZ_INSUFFICIENT_SCOPE', scope: 'orders.v1.read' });
  });

  it('problemErrorHandler answers the refusals the same way, and any other error as a problem', async () => {
    const { t } = await ordersService();
    const app = express();
    ordersRoute(t.gatehouse, app, 'orders');
    app.get('/boom', () => {
      throw new Error('SELECT failed');
    });
    app.use(problemErrorHandler());
    const refused = await request(app).get('/orders');
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toBe('Bearer realm="orders"');
    expect(refused.body).toMatchObject({ status: 401, errorCode: 'AUTHN_INVALID_TOKEN' });
    const boom = await request(app).get('/boom');
    expect(boom.status).toBe(500);
    expect(boom.text).not.toContain('SELECT');
  });
});

describe('bearer refusals without any error handler of the host', () => {
  it('Express’s default error handler answers 401 / 400 / 403 with the challenge, never 500', async () => {
    const { t, tokenWith } = await ordersService();
    const app = express();
    ordersRoute(t.gatehouse, app, 'orders');
    const cases: Array<[request.Test, number, string]> = [
      [request(app).get('/orders'), 401, 'Bearer realm="orders"'],
      [request(app).get('/orders').set('Authorization', 'Bearer not-a-jwt'), 401, 'Bearer realm="orders", error="invalid_token"'],
      [request(app).get('/orders?access_token=x'), 400, 'Bearer realm="orders", error="invalid_request"'],
      [request(app).get('/orders').set('Authorization', `Bearer ${await tokenWith('messaging.v1.read')}`), 403, 'Bearer realm="orders", error="insufficient_scope", scope="orders.v1.read"'],
    ];
    for (const [pending, status, challenge] of cases) {
      const res = await pending;
      expect(res.status).toBe(status);
      expect(res.headers['www-authenticate']).toBe(challenge);
    }
  });

  it('a host handler that reads only the status keeps the challenge (it is set on the response first)', async () => {
    const { t, tokenWith } = await ordersService();
    const app = express();
    ordersRoute(t.gatehouse, app);
    const statusOnly: ErrorRequestHandler = (error: { status?: number; expose?: boolean; message: string }, _req, res, _next) => {
      res.status(error.status ?? 500).json({ message: error.expose ? error.message : 'Internal error' });
    };
    app.use(statusOnly);
    const missing = await request(app).get('/orders');
    expect(missing.status).toBe(401);
    expect(missing.headers['www-authenticate']).toBe('Bearer realm="gatehouse"');
    expect(missing.body.message).toContain('Authorization: Bearer');
    const narrow = await request(app).get('/orders').set('Authorization', `Bearer ${await tokenWith('messaging.v1.read')}`);
    expect(narrow.status).toBe(403);
    expect(narrow.headers['www-authenticate']).toBe('Bearer realm="gatehouse", error="insufficient_scope", scope="orders.v1.read"');
  });

  it('an HttpProblem carries its status as status and statusCode, and expose for 4xx only', () => {
    const refused = new HttpProblem(problem('insufficient-scope', 'Needs orders.v1.read.', { scope: 'orders.v1.read' }));
    expect(refused).toMatchObject({ status: 403, statusCode: 403, expose: true });
    expect(new HttpProblem(problem('internal', 'x'))).toMatchObject({ status: 500, statusCode: 500, expose: false });
  });
});
