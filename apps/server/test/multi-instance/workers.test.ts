import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, type ServerProcess } from '../support/processes.js';
import { basic, codeMinter, createWorkspace, REDIRECT_URI, type Provisioned, type TokenResponse } from '../support/fixture.js';

// `gatehouse serve --workers 2` on one SQLite file (docs/decisions/0171-serve-workers.md): the
// workers share the port, every request on a connection of its own, so that Node's cluster hands
// them out in turn. Single use, revocation and failure counts hold whichever worker answers; a
// killed worker is replaced; SIGTERM stops them all.

const WORKERS = 2;
/** GATEHOUSE_RATE_LIMIT_MAX_FAILURES, left at its default. */
const MAX_FAILURES = 5;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request on a new connection (closed after it), so that consecutive requests reach different workers. */
function send(origin: string, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${origin}${path}`, { method, agent: false, headers: { Connection: 'close', ...headers, ...(body === undefined ? {} : { 'Content-Length': String(Buffer.byteLength(body)) }) } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const tokenRequest = (p: Provisioned, form: Record<string, string>, secret = p.clientSecret) =>
  send(p.origin, 'POST', '/oauth/token', { Authorization: basic(p.clientId, secret), Accept: 'application/json', 'Content-Type': 'application/x-www-form-urlencoded' }, new URLSearchParams(form).toString());

const usersMe = (p: Provisioned, accessToken: string) => send(p.origin, 'GET', '/identity/v1/Users/me', { Authorization: `Bearer ${accessToken}`, Accept: 'application/json' });

/** The workers (by their log lines' `worker`) that answered requests to `path` with `status`. */
function workersThatAnswered(server: ServerProcess, path: string, status: number): Set<unknown> {
  return new Set(server.logs.filter((line) => line.msg === 'request' && line.path === path && line.status === status).map((line) => line.worker));
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe(`gatehouse serve with ${WORKERS} workers on one SQLite file`, () => {
  const workspace = createWorkspace('workers');
  let p: Provisioned;
  let server: ServerProcess;
  let minter: Awaited<ReturnType<typeof codeMinter>>;

  beforeAll(async () => {
    await ensureBuilt();
    p = await workspace.provision('workers');
    server = await workspace.serve(p, { GATEHOUSE_WORKERS: String(WORKERS) });
    minter = await codeMinter(p);
  }, 120_000);

  afterAll(() => workspace.cleanup());

  const workerPids = (): number[] => (server.logs.find((line) => line.msg === 'listening')?.workers ?? []) as number[];

  it('starts the workers, each listening on the one port, and hands connections to each in turn', async () => {
    expect(workerPids()).toHaveLength(WORKERS);
    expect(new Set(workerPids()).size).toBe(WORKERS);
    expect(server.logs.filter((line) => line.msg === 'worker listening').map((line) => line.worker).sort()).toEqual([0, 1]);
    // The variable that tells a worker its slot is the server's own, never reported as unknown.
    expect(server.stderr()).not.toContain('warning');
    for (let index = 0; index < 6; index += 1) expect((await send(p.origin, 'GET', '/.well-known/oauth-authorization-server', {})).status).toBe(200);
    await expect.poll(() => workersThatAnswered(server, '/.well-known/oauth-authorization-server', 200), { timeout: 10_000 }).toEqual(new Set([0, 1]));
  });

  it('one code raced on both workers at once yields exactly one token response', async () => {
    const code = await minter.mint();
    const answers = await Promise.all(Array.from({ length: 6 }, () => tokenRequest(p, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI })));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 400)).toHaveLength(5);
    for (const answer of answers.filter((a) => a.status === 400)) expect(JSON.parse(answer.body)).toMatchObject({ error: 'invalid_grant' });
    // The workers' exchanges were written by the primary's one thread (decision 0173): it logged
    // taking them, and it has no worker slot. The line comes through the primary's stdout, apart
    // from the answers: it is waited for.
    const sharedLine = () => server.logs.find((line) => line.msg === "writing the workers' code exchanges on one thread");
    await expect.poll(sharedLine, { timeout: 30_000 }).toBeDefined();
    const shared = sharedLine();
    expect(shared?.worker).toBeUndefined();
    expect(workerPids()).toContain(shared?.fromWorkerPid);
  });

  it('a grant revoked through one worker is refused by every worker on the next request', async () => {
    const issued = await tokenRequest(p, { grant_type: 'authorization_code', code: await minter.mint(), redirect_uri: REDIRECT_URI });
    expect(issued.status).toBe(200);
    const tokens = JSON.parse(issued.body) as TokenResponse;
    for (let index = 0; index < 4; index += 1) expect((await usersMe(p, tokens.access_token)).status).toBe(200);

    const revoked = await send(p.origin, 'POST', '/oauth/revoke', { Authorization: basic(p.clientId, p.clientSecret), 'Content-Type': 'application/x-www-form-urlencoded' }, new URLSearchParams({ token: tokens.refresh_token as string, token_type_hint: 'refresh_token' }).toString());
    expect(revoked.status).toBe(200);
    for (let index = 0; index < 4; index += 1) {
      const refused = await usersMe(p, tokens.access_token);
      expect(refused.status).toBe(401);
      expect(refused.headers['www-authenticate']).toContain('error="invalid_token"');
    }
    for (let index = 0; index < 4; index += 1) {
      const refresh = await tokenRequest(p, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token as string });
      expect(refresh.status).toBe(400);
      expect(JSON.parse(refresh.body)).toMatchObject({ error: 'invalid_grant' });
    }
    await expect.poll(() => workersThatAnswered(server, '/identity/v1/Users/me', 401), { timeout: 10_000 }).toEqual(new Set([0, 1]));
  });

  it(`failed client authentications are counted in the file: ${MAX_FAILURES} in all, whichever worker they reach`, async () => {
    const wrongSecret = 'not-the-secret-of-this-client-at-all-0000000';
    for (let attempt = 1; attempt <= MAX_FAILURES; attempt += 1) {
      const refused = await tokenRequest(p, { grant_type: 'client_credentials' }, wrongSecret);
      expect(refused.status).toBe(401);
    }
    // They reached both workers: without the shared counts, neither would have seen five.
    await expect.poll(() => workersThatAnswered(server, '/oauth/token', 401), { timeout: 10_000 }).toEqual(new Set([0, 1]));
    for (let attempt = 0; attempt < WORKERS * 2; attempt += 1) {
      const limited = await tokenRequest(p, { grant_type: 'client_credentials' }, wrongSecret);
      expect(limited.status).toBe(429);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    }
  });

  it('a worker that dies is replaced in its slot, and the server answers throughout', async () => {
    const [victim] = workerPids() as [number];
    process.kill(victim, 'SIGKILL');
    await expect.poll(() => server.logs.some((line) => line.msg === 'worker exited; starting another in its place' && line.pid === victim), { timeout: 30_000 }).toBe(true);
    await expect.poll(() => server.logs.filter((line) => line.msg === 'worker listening' && line.worker === 0).length, { timeout: 60_000, interval: 200 }).toBe(2);
    for (let index = 0; index < 6; index += 1) expect((await send(p.origin, 'GET', '/.well-known/openid-configuration', {})).status).toBe(200);
    await expect.poll(() => workersThatAnswered(server, '/.well-known/openid-configuration', 200), { timeout: 10_000 }).toEqual(new Set([0, 1]));
  }, 90_000);

  it('SIGTERM to the primary stops every worker gracefully: exit code 0, no process left', async () => {
    const pids = server.logs.filter((line) => line.msg === 'worker listening').map((line) => line.pid as number);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    for (const pid of pids) expect(alive(pid), `worker ${pid} is gone`).toBe(false);
    expect(server.logs.filter((line) => line.msg === 'stopped')).toHaveLength(WORKERS + 1);
    expect(server.stdout()).not.toContain(p.clientSecret);
  }, 60_000);
});
