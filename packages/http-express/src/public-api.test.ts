import { IncomingMessage, ServerResponse } from 'node:http';
import { ABSENT_REPOSITORY, createGatehouse, StorageUnavailableError } from '@gatehouse/core';
import { createMemoryUserDirectory, createTestGatehouse } from '@gatehouse/core/testing';
import express, { Router } from 'express';
import request from 'supertest';
import { describe, expect, it, vi } from 'vitest';
// The package's two entry points, as package.json's `exports` names them (`.` and `./pages`).
import * as gatehouseHttp from './index.js';
import * as pages from './pages/public.js';
import { createRecordingLogger } from './test-support/recording-logger.js';

// Each value the public entry points export, and nothing else (docs/decisions/0163-http-express-public-surface.md):
// a name added here is a decision of the public surface, with its JSDoc, an @example and a test below.
const MAIN_VALUES = [
  'accessTokenOf',
  'authorizationServerMetadataRouter',
  'bearerAuth',
  'bearerErrorHandler',
  'completeGatehouseConsent',
  'completeGatehouseLogin',
  'createClientMetadataDocumentFetcher',
  'createGatehouseApp',
  'createGatehouseRouter',
  'createPortalRouter',
  'createResourceRouter',
  'createStorageOutages',
  'expressServerOptions',
  'GatehouseSetupError',
  'HttpProblem',
  'issuerPath',
  'logoutGatehouseUser',
  'passwordHelpUrlProblem',
  'problem',
  'problemErrorHandler',
  'protectedResourceMetadataRouter',
  'purgeExpiredRecords',
  'requireScope',
  'routineRequest',
  'startMaintenance',
  'userKeyOf',
  'watchStorage',
];
const PAGES_VALUES = ['gatehousePaths', 'html', 'layout', 'sendPage'];

const byName = (a: string, b: string) => a.localeCompare(b);

describe('the public entry points', () => {
  it('@gatehouse/http-express exports exactly these values', () => {
    expect(Object.keys(gatehouseHttp).sort(byName)).toEqual([...MAIN_VALUES].sort(byName));
  });

  it('@gatehouse/http-express/pages exports exactly these values', () => {
    expect(Object.keys(pages).sort(byName)).toEqual([...PAGES_VALUES].sort(byName));
  });
});

const ISSUER = 'http://127.0.0.1/auth';
const ADA = { userKey: 'ord-7', email: 'ada@orders.example', givenName: 'Ada', familyName: 'Lovelace' };

describe('embedding: the routers, the host login and consent, the bearer middleware', () => {
  it('issuerPath, authorizationServerMetadataRouter and createGatehouseRouter serve the issuer at its path', async () => {
    const t = await createTestGatehouse({ settings: { issuer: ISSUER } });
    expect(gatehouseHttp.issuerPath(ISSUER)).toBe('/auth');
    const app = express();
    app.use(gatehouseHttp.authorizationServerMetadataRouter(t.gatehouse));
    app.use(gatehouseHttp.issuerPath(ISSUER), gatehouseHttp.createGatehouseRouter({ gatehouse: t.gatehouse }));

    const metadata = await request(app).get('/.well-known/oauth-authorization-server/auth');
    expect(metadata.status).toBe(200);
    expect(metadata.body).toMatchObject({ issuer: ISSUER, token_endpoint: `${ISSUER}/oauth/token` });
    const jwks = await request(app).get('/auth/oauth/jwks');
    expect(jwks.status).toBe(200);
    expect(Array.isArray(jwks.body.keys)).toBe(true);
  });

  it('completeGatehouseLogin, completeGatehouseConsent and logoutGatehouseUser: the host signs in, consents and signs out', async () => {
    const t = await createTestGatehouse({ settings: { issuer: ISSUER }, userDirectory: createMemoryUserDirectory([ADA]) });
    const { client } = await t.seedClient({ scopes: ['messaging.v1.read'] });
    const app = express();
    app.use('/auth', gatehouseHttp.createGatehouseRouter({ gatehouse: t.gatehouse, loginUrl: '/login', consentUrl: '/consent' }));
    // The host's own pages, reduced to what they call (a GET is answered with a 303).
    app.get('/login', async (req, res) => {
      await gatehouseHttp.completeGatehouseLogin(t.gatehouse, res, { loginRequest: String(req.query.login_request), userKey: ADA.userKey, authenticatedAt: t.clock.now() });
    });
    app.get('/consent', async (req, res) => {
      await gatehouseHttp.completeGatehouseConsent(t.gatehouse, res, { consentRequest: String(req.query.consent_request), decision: 'allow' });
    });
    app.post('/logout', async (_req, res) => {
      const ended = await gatehouseHttp.logoutGatehouseUser(t.gatehouse, res, ADA.userKey);
      res.json({ sessions: ended.endedSessionIds.length });
    });
    const browser = request.agent(app);
    const redirectUri = client.redirectUris[0] as string;
    const query = new URLSearchParams({ client_id: client.clientId, response_type: 'code', redirect_uri: redirectUri, scope: 'messaging.v1.read', state: 's1' });

    const toLogin = await browser.get(`/auth/oauth/authorize?${query.toString()}`);
    expect(toLogin.status).toBe(302);
    const login = await browser.get(toLogin.headers.location as string);
    expect(login.status).toBe(303);
    expect(String(login.headers['set-cookie'])).toContain('gatehouse_session=');
    const toConsent = await browser.get(login.headers.location as string);
    expect(new URL(toConsent.headers.location as string, 'http://127.0.0.1').pathname).toBe('/consent');
    const consented = await browser.get(toConsent.headers.location as string);
    expect(consented.status).toBe(303);
    const callback = new URL(consented.headers.location as string);
    expect(`${callback.origin}${callback.pathname}`).toBe(redirectUri);
    expect(callback.searchParams.get('state')).toBe('s1');
    expect(callback.searchParams.get('code')).toMatch(/\S/);

    const logout = await browser.post('/logout');
    expect(logout.body).toEqual({ sessions: 1 });
    expect(String(logout.headers['set-cookie'])).toMatch(/gatehouse_session=;/);
  });

  it('createPortalRouter sends a signed-out browser to sign in; createResourceRouter serves its OpenAPI document', async () => {
    const t = await createTestGatehouse({ settings: { issuer: ISSUER } });
    const app = express();
    app.use('/auth', gatehouseHttp.createGatehouseRouter({ gatehouse: t.gatehouse }), gatehouseHttp.createPortalRouter({ gatehouse: t.gatehouse }));
    app.use(gatehouseHttp.createResourceRouter({ gatehouse: t.gatehouse }));

    const portal = await request(app).get('/auth/portal/clients');
    expect(portal.status).toBeGreaterThanOrEqual(300);
    expect(portal.status).toBeLessThan(400);
    expect(new URL(portal.headers.location as string, 'http://127.0.0.1').pathname).toBe('/auth/oauth/login');
    // The resource router's own document (the APIs behind it are tested in resource/).
    const openapi = await request(app).get('/openapi.json');
    expect(openapi.status).toBe(200);
    expect(openapi.body).toMatchObject({ openapi: expect.stringMatching(/^3\.1/) });
    expect(Object.keys(openapi.body.paths as object)).toContain('/identity/v1/Users/me');
  });

  it('bearerAuth, requireScope, accessTokenOf, userKeyOf and bearerErrorHandler guard the host\'s own route', async () => {
    const t = await createTestGatehouse();
    const user = await t.seedUser();
    const { client } = await t.seedClient({ scopes: ['messaging.v1.read', 'messaging.v1.send'] });
    const app = express();
    app.get('/orders', gatehouseHttp.bearerAuth(t.gatehouse, { realm: 'orders' }), gatehouseHttp.requireScope('messaging.v1.read'), (_req, res) => {
      res.json({ userKey: gatehouseHttp.userKeyOf(res), scopes: gatehouseHttp.accessTokenOf(res).scopes });
    });
    app.use(gatehouseHttp.bearerErrorHandler());
    const reader = await t.obtainTokens({ client, user, scope: 'messaging.v1.read' });
    const other = await t.obtainTokens({ client, user, scope: 'messaging.v1.send' });

    const allowed = await request(app).get('/orders').auth(reader.access_token, { type: 'bearer' });
    expect(allowed.status).toBe(200);
    expect(allowed.body).toEqual({ userKey: user.userKey, scopes: ['messaging.v1.read'] });
    const anonymous = await request(app).get('/orders');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['www-authenticate']).toBe('Bearer realm="orders"');
    const short = await request(app).get('/orders').auth(other.access_token, { type: 'bearer' });
    expect(short.status).toBe(403);
    expect(short.headers['www-authenticate']).toContain('error="insufficient_scope"');
  });

  it('protectedResourceMetadataRouter publishes a configured resource\'s RFC 9728 metadata', async () => {
    const resource = 'https://mcp.example.com/mcp';
    const t = await createTestGatehouse({ settings: { resources: [{ resource, name: 'Orders MCP', scopes: ['messaging.v1.read'] }] } });
    const app = express().use(gatehouseHttp.protectedResourceMetadataRouter(t.gatehouse, { resources: [resource] }));

    const metadata = await request(app).get('/.well-known/oauth-protected-resource/mcp');
    expect(metadata.status).toBe(200);
    expect(metadata.body).toMatchObject({ resource, authorization_servers: [t.settings.issuer] });
  });

  it('problem, HttpProblem and problemErrorHandler answer the host\'s errors as RFC 9457 problems', async () => {
    const app = express();
    app.get('/orders/:id', () => {
      throw new gatehouseHttp.HttpProblem(gatehouseHttp.problem('not-found', 'There is no such order.'));
    });
    app.use(gatehouseHttp.problemErrorHandler());

    const answer = await request(app).get('/orders/9');
    expect(answer.status).toBe(404);
    expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(answer.body).toMatchObject({ status: 404, detail: 'There is no such order.' });
  });

  it('createGatehouseRouter throws GatehouseSetupError on a shared storage without a csrfKey', async () => {
    const t = await createTestGatehouse();
    const build = () => gatehouseHttp.createGatehouseRouter({ gatehouse: t.gatehouse, storage: { sharedByInstances: true, failedAttempts: undefined } });
    expect(build).toThrow(gatehouseHttp.GatehouseSetupError);
    expect(build).toThrow(/csrfKey/);
  });

  it('passwordHelpUrlProblem accepts https, http, mailto and paths, and names what is wrong with the rest', () => {
    expect(gatehouseHttp.passwordHelpUrlProblem('mailto:it@example.com')).toBeUndefined();
    expect(gatehouseHttp.passwordHelpUrlProblem('/help')).toBeUndefined();
    expect(gatehouseHttp.passwordHelpUrlProblem('javascript:alert(1)')).toMatch(/https, http or mailto/);
  });
});

describe('the whole server and its running', () => {
  it('createGatehouseApp serves the metadata, and an extra router\'s routineRequest logs at debug', async () => {
    const t = await createTestGatehouse();
    const logger = { ...createRecordingLogger(), debug: vi.fn() };
    const health = Router().get('/healthz', (_req, res) => {
      gatehouseHttp.routineRequest(res);
      res.json({ status: 'ok' });
    });
    const app = gatehouseHttp.createGatehouseApp({ gatehouse: t.gatehouse, logger, extraRouters: [health] });

    expect((await request(app).get('/.well-known/oauth-authorization-server')).body).toMatchObject({ issuer: t.settings.issuer });
    expect((await request(app).get('/healthz')).body).toEqual({ status: 'ok' });
    await vi.waitFor(() => expect(logger.debug).toHaveBeenCalledWith(expect.objectContaining({ path: '/healthz', status: 200 }), 'request'));
    expect(logger.lines.filter((line) => (line.obj as { path?: string }).path === '/healthz')).toEqual([]);
  });

  it('createStorageOutages and watchStorage: a failure starts an outage, the next successful write ends it', async () => {
    const t = await createTestGatehouse();
    const changes: Array<string | undefined> = [];
    const outages = gatehouseHttp.createStorageOutages({ onChange: (outage) => changes.push(outage?.reason), now: () => 1_000 });
    const repositories = gatehouseHttp.watchStorage(t.repositories, outages);

    outages.failed(new StorageUnavailableError('unreachable', 'the database does not answer'));
    expect(outages.current).toMatchObject({ reason: 'unreachable', failures: 1, since: 1_000 });
    await repositories.accounts.create({ accountKey: 'acc-1', name: 'Orders' });
    expect(outages.current).toBeUndefined();
    expect(changes).toEqual(['unreachable', undefined]);
    // A placeholder of tables the storage does not have passes through as it is, still marked absent (docs/decisions/0201).
    const absent = new Proxy({}, { get: (_target, name) => (name === ABSENT_REPOSITORY ? true : () => Promise.reject(new Error('no user tables'))) }) as never;
    const watched = gatehouseHttp.watchStorage({ ...t.repositories, users: absent }, outages);
    expect(watched.users).toBe(absent);
    expect(() => createGatehouse({ repositories: watched, settings: t.gatehouse.settings, clock: t.clock })).toThrow(/no users to sign in/);
  });

  it('purgeExpiredRecords and startMaintenance purge, report what they removed and stop', async () => {
    const t = await createTestGatehouse();
    const purged = await gatehouseHttp.purgeExpiredRecords(t.gatehouse, { failedAttempts: { purgeExpired: async () => 2 } });
    expect(purged).toMatchObject({ failedAttempts: 2 });

    const maintenance = gatehouseHttp.startMaintenance({ gatehouse: t.gatehouse, intervalMs: 3_600_000 });
    expect(Object.values(await maintenance.runNow()).every((count) => Number.isInteger(count))).toBe(true);
    await maintenance.stop();
    expect(() => gatehouseHttp.startMaintenance({ purge: async () => ({}), intervalMs: 0 })).toThrow(RangeError);
  });

  it('expressServerOptions gives node:http the classes whose prototypes are Express\'s', () => {
    const app = express();
    const options = gatehouseHttp.expressServerOptions(app);
    expect(Object.getPrototypeOf(options.IncomingMessage.prototype)).toBe(Object.getPrototypeOf(app.request));
    expect(options.IncomingMessage.prototype).toBeInstanceOf(IncomingMessage);
    expect(options.ServerResponse.prototype).toBeInstanceOf(ServerResponse);
  });

  it('createClientMetadataDocumentFetcher refuses a host that resolves to a loopback address, before connecting', async () => {
    const fetcher = gatehouseHttp.createClientMetadataDocumentFetcher({ resolve: async () => [{ address: '127.0.0.1', family: 4 }] });
    const fetched = await fetcher.fetchDocument('https://client.example/metadata.json');
    expect(fetched).toMatchObject({ kind: 'failed', reason: 'refused-address' });
  });
});

describe('@gatehouse/http-express/pages: a host\'s page with Gatehouse\'s look', () => {
  it('html escapes, layout frames with the stylesheet of gatehousePaths, sendPage sends it with the page headers', async () => {
    const paths = pages.gatehousePaths('/auth');
    expect(paths.stylesheet).toBe('/auth/assets/gatehouse.css');
    expect(pages.html`<p>${'<script>'}</p>`.value).toBe('<p>&lt;script&gt;</p>');
    const app = express().get('/orders', (_req, res) => {
      pages.sendPage(res, 200, pages.layout({ title: 'Orders', body: pages.html`<h1>${'Your <orders>'}</h1>`, stylesheetHref: paths.stylesheet }));
    });

    const page = await request(app).get('/orders');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.text).toContain('<h1>Your &lt;orders&gt;</h1>');
    expect(page.text).toContain('href="/auth/assets/gatehouse.css"');
  });
});
