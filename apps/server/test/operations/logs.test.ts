import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DependencyContainer } from 'tsyringe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createContainer, resolve, TOKENS } from '../../src/container.js';
import { Browser, formWithAction } from '../support/browser.js';

// Issue 33: one log line per event, with what an operator needs to act (docs/operations.md "Logs").

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-logs-'));
const lines: Array<Record<string, unknown>> = [];
let container: DependencyContainer;
let server: Server;
let origin: string;
const PASSWORD = 'correct horse battery';
let clientId: string;

beforeAll(async () => {
  const config = loadConfig({ GATEHOUSE_DB: join(dir, 'logs.db'), GATEHOUSE_LOG_LEVEL: 'debug', GATEHOUSE_DEMO: 'false', GATEHOUSE_RATE_LIMIT_MAX_FAILURES: '2' });
  container = await createContainer(config, { logDestination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) } });
  const gatehouse = resolve(container, TOKENS.gatehouse);
  await resolve(container, TOKENS.product).createUser({ email: 'ada@example.com', password: PASSWORD });
  clientId = (await gatehouse.registerClient({ name: 'Logged app', redirectUris: ['https://app.example/callback'], scopes: ['messaging.v1.read'] })).client.clientId;
  server = createServer(resolve(container, TOKENS.httpApp));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
  await resolve(container, TOKENS.storage).close();
  rmSync(dir, { recursive: true, force: true });
});

/** The lines of one request (its reqId, from the response's X-Request-Id). */
const linesOf = (response: Response) => lines.filter((line) => line.reqId === response.headers.get('x-request-id'));

async function signIn(email: string, password: string): Promise<Response> {
  const browser = new Browser(origin);
  const login = formWithAction(await (await browser.navigate('GET', '/oauth/login')).text(), '/oauth/login');
  return browser.request('POST', login.action, { ...login.hidden, email, password });
}

describe('operator logs', () => {
  it('a refused authorization names the client and the redirect_uri; the request line carries the address and user agent', async () => {
    const url = `${origin}/oauth/authorize?response_type=code&client_id=${clientId}&redirect_uri=${encodeURIComponent('https://evil.example/cb')}&scope=messaging.v1.read`;
    const response = await fetch(url, { headers: { 'User-Agent': 'ExampleApp/1.0 (support test)' } });
    expect(response.status).toBe(400);
    const [refused, request] = [linesOf(response).find((line) => line.msg === 'authorization request refused'), linesOf(response).find((line) => line.msg === 'request')];
    expect(refused).toMatchObject({ level: 'info', oauthError: 'invalid_request', clientId, redirectUri: 'https://evil.example/cb' });
    expect(request).toMatchObject({ level: 'info', method: 'GET', path: '/oauth/authorize', status: 400, ip: expect.stringMatching(/127\.0\.0\.1$/), userAgent: 'ExampleApp/1.0 (support test)' });
    expect(linesOf(response)).toHaveLength(2);
  });

  it('a sign-in writes one line (its audit event) beside its request line, succeeded or failed', async () => {
    const succeeded = await signIn('ada@example.com', PASSWORD);
    expect(succeeded.status).toBe(303);
    expect(linesOf(succeeded).map((line) => line.msg).sort()).toEqual(['audit sign_in.succeeded', 'request']);
    const failed = await signIn('ada@example.com', 'not the password');
    expect(failed.status).toBe(401);
    expect(linesOf(failed).map((line) => line.msg).sort()).toEqual(['audit sign_in.failed', 'request']);
  });

  it('"sign-in rate limited" names the account (by the hash of its e-mail, never the e-mail) and the address', async () => {
    const email = 'Mel@Example.com';
    for (let attempt = 0; attempt < 2; attempt += 1) expect((await signIn(email, `guess-${attempt}`)).status).toBe(401);
    const limited = await signIn(email, 'guess-3');
    expect(limited.status).toBe(429);
    const line = linesOf(limited).find((candidate) => candidate.msg === 'sign-in rate limited');
    const hash = createHash('sha256').update('mel@example.com').digest('hex').slice(0, 16);
    expect(line).toMatchObject({ level: 'warn', event: 'rate_limited', limit: 'sign_in', emailHash: hash, ip: expect.stringMatching(/127\.0\.0\.1$/), retryAfterSeconds: expect.any(Number) });
    expect(JSON.stringify(lines)).not.toMatch(/mel@example\.com/i);
  });

  it('health probes are logged at debug while they succeed', async () => {
    for (const path of ['/healthz', '/readyz']) {
      const response = await fetch(`${origin}${path}`);
      expect(response.status).toBe(200);
      expect(linesOf(response)).toEqual([expect.objectContaining({ msg: 'request', level: 'debug', path, status: 200 })]);
    }
  });
});
