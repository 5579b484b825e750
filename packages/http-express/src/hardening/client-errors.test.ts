import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createPortalRouter } from '../portal/router.js';
import { createHostApp, createRecordingLogger, createTestApp, type RecordingLogger } from '../test-support/index.js';

// A client error that Express or its parsers flag with a 4xx status (`err.status`), such as the
// URIError of a malformed percent-escape in a path parameter, is answered as that 4xx in the
// shape of the surface it hit, and logged at info, never as an unhandled error
// (docs/decisions/0180-client-errors-answered-as-such.md).

const SLOW = { timeout: 30_000 };

function expectNoErrorLine(logger: RecordingLogger, label: string) {
  expect(logger.lines.filter((line) => line.level === 'error' || line.level === 'warn'), label).toEqual([]);
  expect(logger.lines.some((line) => line.level === 'info' && (line.obj as { event?: string }).event === 'client_error'), label).toBe(true);
}

function expectPage(res: request.Response, status: number, label: string) {
  expect(res.status, label).toBe(status);
  expect(res.headers['content-type'], label).toMatch(/^text\/html; charset=utf-8/);
  expect(res.headers['content-security-policy'], label).toContain("frame-ancestors 'none'");
  expect(res.text, label).toContain('The request could not be read');
  expect(res.text, label).not.toMatch(/URIError|Failed to decode|at .*\.[jt]s:\d+/);
}

describe('a malformed percent-escape in a path parameter', SLOW, () => {
  it('is a 400 in every surface of the app, in its own shape: a portal page, OAuth JSON, a problem; logged at info only', async () => {
    const t = await createTestApp({ settings: { registration: { policy: 'open' } } });
    await t.seedUser({ email: 'ada@example.com' });
    const browser = await t.signedInBrowser('ada@example.com');

    // The portal's pages, signed in or not (the escape is decoded before the sign-in check).
    for (const path of ['/portal/clients/%E0%A4%A', '/portal/clients/%ff/edit', '/portal/authorized-apps/%ff/revoke']) {
      t.logger.lines.length = 0;
      expectPage(await request(t.app).get(path), 400, `GET ${path}, not signed in`);
      expectPage(await browser.get(path), 400, `GET ${path}, signed in`);
      expectNoErrorLine(t.logger, path);
    }
    t.logger.lines.length = 0;
    expectPage(await browser.postForm('/portal/authorized-apps/%ff/revoke', {}), 400, 'POST revoke');
    expectNoErrorLine(t.logger, 'POST revoke');

    // RFC 7592 management under /oauth/register/<client_id>: an OAuth JSON error (RFC 6749 §5.2).
    t.logger.lines.length = 0;
    for (const method of ['get', 'put', 'delete'] as const) {
      const res = await request(t.app)[method]('/oauth/register/%E0%A4%A').set('Authorization', 'Bearer some-token');
      expect(res.status, method).toBe(400);
      expect(res.headers['content-type'], method).toMatch(/^application\/json/);
      expect(res.headers['cache-control'], method).toBe('no-store');
      expect(res.body, method).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
      expect(res.text, method).not.toContain('Failed to decode');
    }
    expectNoErrorLine(t.logger, 'register');

    // The admin API: an RFC 9457 problem.
    t.logger.lines.length = 0;
    const api = await request(t.app).get('/admin/rest/v1/accounts/%ff/attributes').set('Accept', 'application/json');
    expect(api.status).toBe(400);
    expect(api.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(api.body).toMatchObject({ status: 400, errorCode: 'INVALID_REQUEST', type: 'urn:gatehouse:problem:invalid-request' });
    expect(t.logger.lines.filter((line) => line.level === 'error')).toEqual([]);
  });

  it('is a 400 in the routers an embedder mounts: the portal page and OAuth JSON, never the host\'s 500', async () => {
    const logger = createRecordingLogger();
    const host = await createHostApp({
      gatehouse: { settings: { registration: { policy: 'open' } } },
      routerOptions: { logger },
      beforeOwnRoutes: (app, t) => app.use('/auth', createPortalRouter({ gatehouse: t.gatehouse, logger })),
    });
    expectPage(await request(host.app).get('/auth/portal/clients/%E0%A4%A'), 400, 'portal under /auth');
    expectNoErrorLine(logger, 'portal under /auth');
    logger.lines.length = 0;
    const register = await request(host.app).get('/auth/oauth/register/%ff').set('Authorization', 'Bearer some-token');
    expect(register.status).toBe(400);
    expect(register.body).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
    expectNoErrorLine(logger, 'register under /auth');
  });
});

describe('an error Express or a parser raised with a 4xx status in an extra router', SLOW, () => {
  it('keeps its status: a page for a browser, a problem for an API caller; logged at info', async () => {
    const extra = express.Router();
    // A JSON parser and a parameter: a malformed body is 400 entity.parse.failed, a malformed escape a URIError.
    extra.post('/host/echo', express.json(), (req, res) => void res.json(req.body));
    extra.get('/host/items/:id', (req, res) => void res.json({ id: req.params.id }));
    const t = await createTestApp({ extraRouters: () => [extra] });

    const page = await request(t.app).get('/host/items/%E0%A4%A').set('Accept', 'text/html');
    expectPage(page, 400, 'page');
    const api = await request(t.app).get('/host/items/%ff').set('Accept', 'application/json');
    expect(api.status).toBe(400);
    expect(api.body).toMatchObject({ status: 400, errorCode: 'INVALID_REQUEST' });
    const body = await request(t.app).post('/host/echo').set('Content-Type', 'application/json').send('{"secret": ');
    expect(body.status).toBe(400);
    expect(body.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(body.text).not.toContain('secret');
    expectNoErrorLine(t.logger, 'extra router');
    expect(t.logger.text()).not.toContain('secret');
  });
});
