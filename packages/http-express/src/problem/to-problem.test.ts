import { DomainError, OAuthError } from '@gatehouse/core';
import express from 'express';
import supertest from 'supertest';
import { describe, expect, it } from 'vitest';
import { expectMatchesSchema } from '../resource/test-support/openapi.js';
import { problemErrorHandler } from './error-handler.js';
import { HttpProblem, problem } from './problem.js';
import { toProblem } from './to-problem.js';

describe('toProblem', () => {
  it('maps each DomainError kind to its status and errorCode, naming the field of an invalid input', () => {
    const cases: Array<[DomainError, number, string]> = [
      [new DomainError('invalid', 'name must be 1 to 64 characters.', { field: 'name' }), 400, 'INVALID_REQUEST'],
      [new DomainError('not_found', 'No such account.'), 404, 'NOT_FOUND'],
      [new DomainError('forbidden', 'Only an admin may do this.'), 403, 'FORBIDDEN'],
      [new DomainError('conflict', 'Exists.'), 409, 'CONFLICT'],
      [new DomainError('unauthenticated', 'Sign in.'), 401, 'AUTHN_INVALID_TOKEN'],
    ];
    for (const [error, status, errorCode] of cases) {
      const { problem: body, unexpected } = toProblem(error);
      expect(body).toMatchObject({ status, errorCode, detail: error.message });
      expect(unexpected).toBe(false);
      expectMatchesSchema(body, 'Problem');
    }
    expect(toProblem(cases[0]![0]).problem.invalidParams).toEqual([{ name: 'name', reason: 'name must be 1 to 64 characters.' }]);
    expect(toProblem(cases[4]![0]).headers['WWW-Authenticate']).toBe('Bearer realm="gatehouse", error="invalid_token"');
  });

  it('maps OAuth errors with their public description only', () => {
    const invalid = toProblem(new OAuthError('invalid_token', 'The access token is invalid.', { detail: 'kid k-secret unknown' }));
    expect(invalid.problem).toMatchObject({ status: 401, errorCode: 'AUTHN_INVALID_TOKEN', detail: 'The access token is invalid.' });
    expect(JSON.stringify(invalid.problem)).not.toContain('k-secret');
    expect(invalid.headers['WWW-Authenticate']).toBe('Bearer realm="gatehouse", error="invalid_token"');
    const scope = toProblem(new OAuthError('insufficient_scope', 'Needs more.', { scope: 'messaging.v1.send' }));
    expect(scope.problem).toMatchObject({ status: 403, errorCode: 'AUTHZ_INSUFFICIENT_SCOPE', scope: 'messaging.v1.send' });
    expect(scope.headers['WWW-Authenticate']).toBe('Bearer realm="gatehouse", error="insufficient_scope", scope="messaging.v1.send"');
    expect(toProblem(new OAuthError('server_error', 'db password is hunter2')).problem.detail).not.toContain('hunter2');
    expect(toProblem(new OAuthError('temporarily_unavailable', 'x')).problem.status).toBe(503);
  });

  it('answers body-parser failures with fixed words, never the parser message', () => {
    const parse = Object.assign(new SyntaxError('Unexpected token s in JSON at position 9: {"secret'), { type: 'entity.parse.failed', status: 400 });
    const mapped = toProblem(parse);
    expect(mapped.problem).toMatchObject({ status: 400, errorCode: 'INVALID_REQUEST' });
    expect(mapped.problem.detail).not.toContain('secret');
    expect(toProblem(Object.assign(new Error('too big'), { type: 'entity.too.large', status: 413 })).problem.status).toBe(413);
    expect(toProblem(Object.assign(new Error('x'), { type: 'charset.unsupported', status: 415 })).problem.status).toBe(415);
  });

  it('keeps the 4xx status Express or a parser put on an error, also one without a kind of its own (decision 0180)', () => {
    const uri = toProblem(Object.assign(new URIError("Failed to decode param '%E0%A4%A'"), { status: 400 }));
    expect(uri).toMatchObject({ unexpected: false, problem: { status: 400, errorCode: 'INVALID_REQUEST', type: 'urn:gatehouse:problem:invalid-request' } });
    expect(uri.problem.detail).not.toContain('decode');
    const range = toProblem(Object.assign(new Error('Range Not Satisfiable'), { statusCode: 416 }));
    expect(range).toMatchObject({ unexpected: false, problem: { status: 416, errorCode: 'INVALID_REQUEST' } });
    expect(toProblem(Object.assign(new Error('x'), { status: 400.5 })).problem.status).toBe(500);
  });

  it('turns anything else into a 500 that says nothing about the cause', () => {
    const mapped = toProblem(new Error('SELECT * FROM users WHERE password = $1 failed: connection refused'));
    expect(mapped.unexpected).toBe(true);
    expect(mapped.problem).toMatchObject({ status: 500, errorCode: 'INTERNAL', type: 'urn:gatehouse:problem:internal' });
    expect(JSON.stringify(mapped.problem)).not.toMatch(/SELECT|password|refused/);
    expect(toProblem('a string').problem.status).toBe(500);
    expect(toProblem(null).problem.status).toBe(500);
  });

  it('passes an HttpProblem through with its headers', () => {
    const mapped = toProblem(new HttpProblem(problem('method-not-allowed', 'No.'), { Allow: 'GET' }));
    expect(mapped.problem.status).toBe(405);
    expect(mapped.headers).toEqual({ Allow: 'GET' });
  });
});

describe('problemErrorHandler', () => {
  function appThrowing(error: unknown, lines: unknown[]) {
    const app = express();
    app.get('/boom', () => {
      throw error;
    });
    app.use(problemErrorHandler({ logger: { error: (details, message) => lines.push({ ...details, message }) } }));
    return supertest(app);
  }

  it('answers problem+json without a stack trace and logs the 5xx with its cause', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const failure = new Error('SQLITE_BUSY: database is locked');
    const response = await appThrowing(failure, lines).get('/boom?access_token=abc');
    expect(response.status).toBe(500);
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(response.text).not.toMatch(/SQLITE|locked|\s+at /);
    expectMatchesSchema(response.body, 'Problem');
    expect(lines).toEqual([expect.objectContaining({ err: failure, method: 'GET', path: '/boom', status: 500, message: 'request failed' })]);
    // The query string (which may carry a token) is not logged.
    expect(JSON.stringify(lines)).not.toContain('abc');
  });

  it('does not log a client error', async () => {
    const lines: unknown[] = [];
    const response = await appThrowing(new DomainError('conflict', 'Exists.'), lines).get('/boom');
    expect(response.status).toBe(409);
    expect(lines).toEqual([]);
  });
});
