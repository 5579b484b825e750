import { createServer, IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Request } from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { expressServerOptions } from './server-options.js';

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** Serves `app` with `expressServerOptions(app)` and records the prototypes each request arrived with, before Express saw it. */
async function serve(app: express.Express) {
  const arrivedWith: Array<{ request: object | null; response: object | null }> = [];
  server = createServer(expressServerOptions(app), app);
  server.prependListener('request', (req, res) => arrivedWith.push({ request: Object.getPrototypeOf(req) as object, response: Object.getPrototypeOf(res) as object }));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', () => resolve()));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, arrivedWith };
}

describe('expressServerOptions', () => {
  it('creates each request and response with the prototypes Express would give them', async () => {
    const app = express();
    app.get('/hello', (_req, res) => res.json({ hello: 'world' }));
    const { base, arrivedWith } = await serve(app);

    await fetch(`${base}/hello`);
    await fetch(`${base}/hello`);

    expect(arrivedWith).toHaveLength(2);
    for (const seen of arrivedWith) {
      expect(seen.request).toBe(app.request);
      expect(seen.response).toBe(app.response);
    }
  });

  it('leaves Express and Node working as usual: paths, queries, bodies, statuses, headers, instanceof', async () => {
    const app = express();
    app.use(express.urlencoded({ extended: false }));
    app.post('/echo/:name', (req: Request, res) => {
      res.status(201).set('X-Name', String(req.params.name)).json({
        path: req.path,
        query: req.query,
        body: req.body as unknown,
        isMessage: req instanceof IncomingMessage,
        isResponse: res instanceof ServerResponse,
      });
    });
    const { base } = await serve(app);

    const response = await fetch(`${base}/echo/ada?x=1`, { method: 'POST', body: new URLSearchParams({ a: 'b' }) });

    expect(response.status).toBe(201);
    expect(response.headers.get('x-name')).toBe('ada');
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.json()).toEqual({ path: '/echo/ada', query: { x: '1' }, body: { a: 'b' }, isMessage: true, isResponse: true });
  });

  it('refuses prototypes that are not a request and a response', () => {
    expect(() => expressServerOptions({ request: {} as express.Request, response: express().response })).toThrow(/IncomingMessage/);
    expect(() => expressServerOptions({ request: express().request, response: {} as express.Response })).toThrow(/ServerResponse/);
  });
});
