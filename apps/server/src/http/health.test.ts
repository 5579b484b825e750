import { StorageUnavailableError } from '@gatehouse/core';
import { createStorageOutages } from '@gatehouse/http-express';
import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { healthRouter, OUTAGE_PROBE_BYTES } from './health.js';

const quietLogger = { warn: () => undefined };
const writes = async () => undefined;
const appWith = (ping: () => Promise<boolean>) => express().use(healthRouter({ ping, checkWrites: writes, logger: quietLogger }));

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
    const app = express().use(healthRouter({ ping: async () => (pings += 1) > 0, checkWrites: writes, logger: quietLogger, stopping: () => stopping }));
    expect((await request(app).get('/readyz')).status).toBe(200);
    stopping = true;
    const response = await request(app).get('/readyz');
    expect(response.status).toBe(503);
    expect(response.body).toEqual({ status: 'stopping' });
    expect(response.headers['cache-control']).toBe('no-store');
    expect(pings).toBe(1);
    expect((await request(app).get('/healthz')).status).toBe(200);
  });

  it('GET /readyz answers 503 while writes fail though reads answer, reports the outage once, and turns back to 200 by itself (issue 35)', async () => {
    let full = true;
    const asked: number[] = [];
    const lines: Array<Record<string, unknown>> = [];
    const storageOutages = createStorageOutages({ logger: { error: (obj) => void lines.push({ level: 'error', ...obj }), info: (obj) => void lines.push({ level: 'info', ...obj }) } });
    const checkWrites = async ({ bytes }: { bytes: number }) => {
      asked.push(bytes);
      if (full) throw new StorageUnavailableError('full', 'The SQLite database or its disk is full.', { cause: Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }) });
    };
    const app = express().use(healthRouter({ ping: async () => true, checkWrites, storageOutages, logger: quietLogger }));
    for (let probe = 0; probe < 3; probe += 1) {
      const response = await request(app).get('/readyz');
      expect(response.status).toBe(503);
      expect(response.body).toEqual({ status: 'unavailable' });
    }
    expect(storageOutages.current).toMatchObject({ reason: 'full', failures: 3 });
    expect(lines).toEqual([expect.objectContaining({ level: 'error', event: 'storage_unavailable', reason: 'full' })]);
    full = false;
    expect((await request(app).get('/readyz')).status).toBe(200);
    expect(storageOutages.current).toBeUndefined();
    expect(lines.at(-1)).toMatchObject({ level: 'info', event: 'storage_recovered', reason: 'full', failures: 3 });
    // A write of a few bytes, but 256 KiB during the outage: room a failed write left is not room again.
    expect(asked).toEqual([0, OUTAGE_PROBE_BYTES, OUTAGE_PROBE_BYTES, OUTAGE_PROBE_BYTES]);
    await request(app).get('/readyz');
    expect(asked.at(-1)).toBe(0);
  });

  it('GET /readyz: probes that arrive together share one check', async () => {
    let checks = 0;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let arrived = 0;
    const app = express()
      .use((_req, _res, next) => void ((arrived += 1), next()))
      .use(healthRouter({ ping: async () => true, checkWrites: async () => void ((checks += 1), await held), logger: quietLogger }));
    const probes = Promise.all([request(app).get('/readyz'), request(app).get('/readyz'), request(app).get('/readyz')]);
    await expect.poll(() => arrived, { timeout: 10_000 }).toBe(3);
    await new Promise((resolve) => setImmediate(resolve));
    release();
    expect((await probes).map((response) => response.status)).toEqual([200, 200, 200]);
    expect(checks).toBe(1);
  });
});
