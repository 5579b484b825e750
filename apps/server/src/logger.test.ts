import { describe, expect, it } from 'vitest';
import { createPinoAuditLog } from './audit-log.js';
import { createLogger } from './logger.js';

function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({ level: 'info', destination: { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) } });
  return { lines, logger };
}

describe('createPinoAuditLog', () => {
  it('writes one audit line per event, with the reqId of the request that caused it when known', () => {
    const { lines, logger } = capture();
    const audit = createPinoAuditLog(logger);
    audit.record({ type: 'sign_in.succeeded', at: new Date('2025-01-02T03:04:05Z'), userKey: 'u1', clientId: 'c1', requestId: 'req-1' });
    audit.record({ type: 'key.rotated', at: new Date('2025-01-02T03:04:06Z') });
    expect(lines[0]).toMatchObject({ audit: true, event: 'sign_in.succeeded', at: '2025-01-02T03:04:05.000Z', userKey: 'u1', clientId: 'c1', reqId: 'req-1', level: 'info', msg: 'audit sign_in.succeeded' });
    expect(lines[0]).not.toHaveProperty('requestId');
    expect(lines[1]).toMatchObject({ audit: true, event: 'key.rotated' });
    expect(lines[1]).not.toHaveProperty('reqId');
  });

  it('logs nothing beyond what was logged', () => {
    const { lines, logger } = capture();
    logger.info({ port: 1 }, 'listening');
    expect(lines[0]).not.toHaveProperty('reqId');
    expect(lines[0]).toMatchObject({ level: 'info', msg: 'listening', port: 1, service: 'gatehouse' });
  });
});

describe('createLogger', () => {
  it('redacts secret-looking fields should one be logged by mistake', () => {
    const { lines, logger } = capture();
    logger.info({ password: 'hunter2', nested: { client_secret: 's3cret', refresh_token: 'rt' } }, 'oops');
    expect(lines[0]).toMatchObject({ password: '[redacted]', nested: { client_secret: '[redacted]', refresh_token: '[redacted]' } });
    expect(JSON.stringify(lines)).not.toMatch(/hunter2|s3cret/);
  });

  it('redacts without changing the logged objects, in child bindings and in an error', () => {
    const { lines, logger } = capture();
    const nested = { token: 'tok-1', kept: 1 };
    logger.child({ authorization: 'Bearer abc' }).info({ nested, err: Object.assign(new Error('boom'), { cookie: 'sid=1' }) }, 'oops');
    expect(nested).toEqual({ token: 'tok-1', kept: 1 });
    expect(lines[0]).toMatchObject({ authorization: '[redacted]', nested: { token: '[redacted]', kept: 1 }, err: { message: 'boom', cookie: '[redacted]' } });
    expect(JSON.stringify(lines)).not.toMatch(/tok-1|abc|sid=1/);
  });

  it("keeps an error's code, and redacts a top-level code", () => {
    const { lines, logger } = capture();
    logger.error({ err: Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }) }, 'unexpected error');
    logger.info({ code: 'an-authorization-code' }, 'oops');
    expect(lines[0]).toMatchObject({ err: { message: 'database is locked', code: 'SQLITE_BUSY' } });
    expect(lines[1]).toMatchObject({ code: '[redacted]' });
  });
});

describe('createLogger formats', () => {
  function captureText(options: { isTTY?: boolean; format?: 'json' | 'pretty' }) {
    let text = '';
    const destination = { write: (line: string) => (text += line), ...(options.isTTY === undefined ? {} : { isTTY: options.isTTY }) };
    const logger = createLogger({ level: 'info', destination, format: options.format });
    return { logger, text: () => text };
  }

  it('writes readable lines to a terminal, with the same redaction as the JSON ones', () => {
    const { logger, text } = captureText({ isTTY: true });
    logger.info({ port: 3000, issuer: 'http://localhost:3000', password: 'hunter2', nested: { client_secret: 's3cret', kept: 'two words' } }, 'listening');
    logger.child({ authorization: 'Bearer abc' }).warn({ code: 'an-authorization-code' }, 'careful');
    const lines = text().trimEnd().split('\n');
    expect(lines[0]).toMatch(
      /^\d\d:\d\d:\d\d INFO {2}listening port=3000 issuer=http:\/\/localhost:3000 password=\[redacted\] nested=\{"client_secret":"\[redacted\]","kept":"two words"\}$/,
    );
    expect(lines[1]).toMatch(/^\d\d:\d\d:\d\d WARN {2}careful authorization=\[redacted\] code=\[redacted\]$/);
    expect(text()).not.toMatch(/hunter2|s3cret|abc|an-authorization-code|^\{/m);
  });

  it("shows an error's stack under its line", () => {
    const { logger, text } = captureText({ format: 'pretty' });
    logger.error({ err: Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY', cookie: 'sid=1' }) }, 'unexpected error');
    expect(text()).toMatch(/^\d\d:\d\d:\d\d ERROR unexpected error err=\{"type":"\w+","message":"database is locked","code":"SQLITE_BUSY","cookie":"\[redacted\]"\}\n {4}Error: database is locked\n +at /);
    expect(text()).not.toContain('sid=1');
  });

  it('writes JSON lines when the destination is not a terminal, or when told to on a terminal', () => {
    for (const options of [{}, { isTTY: false }, { isTTY: true, format: 'json' as const }]) {
      const { logger, text } = captureText(options);
      logger.info({ password: 'hunter2', port: 1 }, 'listening');
      expect(JSON.parse(text())).toMatchObject({ level: 'info', msg: 'listening', port: 1, password: '[redacted]' });
    }
  });
});

describe('readable lines say each thing once (issue 33)', () => {
  it('leaves out the audit mark, the event and its time, which the head of an audit line says', () => {
    let text = '';
    const logger = createLogger({ level: 'info', format: 'pretty', destination: { write: (line: string) => (text += line) } });
    createPinoAuditLog(logger).record({ type: 'client.created', at: new Date('2025-01-02T03:04:05Z'), clientId: 'c1', userKey: 'u1', requestId: 'r1' });
    logger.warn({ event: 'rate_limited', limit: 'sign_in', ip: '203.0.113.9' }, 'sign-in rate limited');
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d INFO {2}audit client\.created clientId=c1 userKey=u1 reqId=r1$/);
    // An event the message does not name stays.
    expect(lines[1]).toMatch(/^\d\d:\d\d:\d\d WARN {2}sign-in rate limited event=rate_limited limit=sign_in ip=203\.0\.113\.9$/);
  });
});
