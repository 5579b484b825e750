import { OAuthError, StorageUnavailableError } from '@gatehouse/core';
import express, { type NextFunction, type Request, type Response } from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createRecordingLogger } from '../test-support/recording-logger.js';
import { createStorageOutages } from '../storage-outages.js';
import { OAuthJsonRefusal, sendJsonFailure } from './json-errors.js';

/** An app whose one route fails with `error`, answered by `sendJsonFailure` from its error handler. */
function failingWith(error: unknown, options: { beganAnswer?: boolean } = {}) {
  const logger = createRecordingLogger();
  const outages = createStorageOutages({ logger });
  const app = express();
  app.post('/oauth/token', (_req: Request, res: Response, next: NextFunction) => {
    if (options.beganAnswer) res.writeHead(200, { 'Content-Type': 'application/json' }).write('{"access_token":');
    next(error);
  });
  app.use((caught: unknown, _req: Request, res: Response, _next: NextFunction) => sendJsonFailure(res, logger, caught, outages));
  return { app, logger, outages };
}

describe('sendJsonFailure: the one answer of an OAuth JSON endpoint\'s error (RFC 6749 §5.2)', () => {
  it('an OAuthError: its code and description, no-store, its private detail only in the log', async () => {
    const { app, logger } = failingWith(new OAuthError('invalid_grant', 'The refresh token is not valid.', { detail: 'grant g-secret-detail revoked' }));
    const res = await request(app).post('/oauth/token');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_grant', error_description: 'The refresh token is not valid.' });
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers.pragma).toBe('no-cache');
    expect(res.text).not.toContain('g-secret-detail');
    expect(logger.text()).toContain('g-secret-detail');
  });

  it('invalid_client: 401 with WWW-Authenticate: Basic', async () => {
    const res = await request(failingWith(new OAuthError('invalid_client', 'Client authentication failed.')).app).post('/oauth/token');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Basic realm="gatehouse"');
    expect(res.body).toEqual({ error: 'invalid_client', error_description: 'Client authentication failed.' });
  });

  it('a refusal with its own status and headers (429 with Retry-After)', async () => {
    const res = await request(failingWith(new OAuthJsonRefusal('temporarily_unavailable', 'Too many failed client authentications.', 429, { 'Retry-After': '42' })).app).post('/oauth/token');
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBe('42');
    expect(res.body).toEqual({ error: 'temporarily_unavailable', error_description: 'Too many failed client authentications.' });
  });

  it('an error Express or a parser flagged with a 4xx status: invalid_request with that status, logged at info only (decision 0180)', async () => {
    for (const [error, status] of [
      [Object.assign(new URIError("Failed to decode param '%E0%A4%A'"), { status: 400 }), 400],
      [Object.assign(new Error('request entity too large'), { type: 'entity.too.large', statusCode: 413 }), 413],
    ] as const) {
      const { app, logger } = failingWith(error);
      const res = await request(app).post('/oauth/token');
      expect(res.status).toBe(status);
      expect(res.body).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
      expect(res.text).not.toMatch(/decode|entity/);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(logger.lines.map((line) => line.level)).toEqual(['info']);
      expect(logger.lines[0]?.obj).toMatchObject({ event: 'client_error', status, error: error.name });
    }
  });

  it('anything else: 500 server_error without any detail, the error logged', async () => {
    const { app, logger } = failingWith(new Error('disk on fire at /var/lib/gatehouse'));
    const res = await request(app).post('/oauth/token');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: 'server_error', error_description: 'The server could not handle the request.' });
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.text).not.toContain('disk on fire');
    expect(logger.lines.filter((line) => line.level === 'error')).toHaveLength(1);
    expect(logger.text()).toContain('disk on fire');
  });

  it('an unavailable storage: 503 temporarily_unavailable with Retry-After, never server_error; the outage logged once (issue 35)', async () => {
    const cause = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
    const { app, logger, outages } = failingWith(new StorageUnavailableError('unreachable', 'PostgreSQL ended the connection.', { cause }));
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const res = await request(app).post('/oauth/token');
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toEqual({ error: 'temporarily_unavailable', error_description: 'The authorization server cannot reach its database right now; try again later.' });
    }
    const errors = logger.lines.filter((line) => line.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.obj).toMatchObject({ event: 'storage_unavailable', reason: 'unreachable', cause: { code: '57P01', message: 'terminating connection due to administrator command' } });
    expect(outages.current).toMatchObject({ reason: 'unreachable', failures: 3 });
    // A lock held past the busy timeout is likely free sooner.
    const busy = await request(failingWith(new StorageUnavailableError('busy', 'locked')).app).post('/oauth/token');
    expect(busy.headers['retry-after']).toBe('1');
  });

  it('after the answer began: the connection is closed, the error logged', async () => {
    const { app, logger } = failingWith(new Error('serialiser broke'), { beganAnswer: true });
    const outcome = await request(app).post('/oauth/token').then(
      (res) => ({ text: res.text }),
      (error: unknown) => ({ error }),
    );
    expect('error' in outcome || !('text' in outcome && outcome.text.includes('server_error'))).toBe(true);
    expect(logger.text()).toContain('serialiser broke');
  });
});
