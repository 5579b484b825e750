import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { healthRouter } from './health.js';

const quietLogger = { warn: () => undefined };
const appWith = (ping: () => Promise<boolean>) => express().use(healthRouter({ ping, logger: quietLogger }));

describe('healthRouter', () => {
  it('GET /healthz answers 200 while the process is up, whatever the database', async () => {
    const response = await request(appWith(async () => false)).get('/healthz');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'ok' });
    expect(response.headers['cache-control']).toBe('no-store');
  });

  it('GET /readyz answers 200 when the database answers the ping', async () => {
    const response = await request(appWith(async () => true)).get('/readyz');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'ready' });
  });

  it('GET /readyz answers 503 when the ping fails or throws', async () => {
    expect((await request(appWith(async () => false)).get('/readyz')).status).toBe(503);
    const thrown = await request(appWith(async () => Promise.reject(new Error('connection refused')))).get('/readyz');
    expect(thrown.status).toBe(503);
    expect(thrown.body).toEqual({ status: 'unavailable' });
  });

  it('GET /readyz answers 503 without pinging once shutdown has begun; /healthz stays 200', async () => {
    let stopping = false;
    let pings = 0;
    const app = express().use(healthRouter({ ping: async () => (pings += 1) > 0, logger: quietLogger, stopping: () => stopping }));
    expect((await request(app).get('/readyz')).status).toBe(200);
    stopping = true;
    const response = await request(app).get('/readyz');
    expect(response.status).toBe(503);
    expect(response.body).toEqual({ status: 'stopping' });
    expect(response.headers['cache-control']).toBe('no-store');
    expect(pings).toBe(1);
    expect((await request(app).get('/healthz')).status).toBe(200);
  });
});
