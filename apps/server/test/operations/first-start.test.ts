import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../support/fixture.js';
import { ensureBuilt, freePort, runGatehouse } from '../support/processes.js';

// Issue 33: a first start that fails on a busy port creates no demo data (whose secrets would be
// lost), and says in one line which variable to change.

const workspace = createWorkspace('first-start');
let blocker: Server;
let busyPort: number;

beforeAll(async () => {
  await ensureBuilt();
  blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  busyPort = (blocker.address() as { port: number }).port;
}, 300_000);

afterAll(async () => {
  await new Promise((resolve) => blocker.close(resolve));
  workspace.cleanup();
});

const stderrLines = (stderr: string) => stderr.split('\n').filter((line) => line.trim() !== '');

describe('gatehouse serve on a busy port', () => {
  it('fails in one line naming PORT, and a later start still shows the demo secrets', async () => {
    const env = { HOST: '127.0.0.1', GATEHOUSE_DB: join(workspace.dir, 'busy.db'), GATEHOUSE_LOG_LEVEL: 'warn' };
    const refused = await runGatehouse(['serve'], { ...env, PORT: String(busyPort) });
    expect(refused.code).toBe(1);
    expect(stderrLines(refused.stderr)).toEqual([`gatehouse serve: PORT: 127.0.0.1:${busyPort} is already in use (another process listens there): stop it or choose another port (EADDRINUSE).`]);
    // No demo data was made: the database has no client yet.
    expect(JSON.parse((await runGatehouse(['clients', 'list', '--json'], env)).stdout)).toEqual({ clients: [] });

    // The next start, on a free port, is the first start: it creates the demo data and shows its secrets.
    const port = await freePort();
    const server = await workspace.start({ ...env, GATEHOUSE_LOG_LEVEL: 'info', GATEHOUSE_ISSUER: `http://localhost:${port}` }, port);
    const banner = await server.waitForStderr('export CLIENT_SECRET=');
    expect(banner).toContain('First run: demo data created.');
    expect(banner).toMatch(/admin {4}e-mail admin@example\.com {2}password \w{16}/);
    // The scripts' health check asks this very server (HOST and PORT of the configuration).
    expect(await runGatehouse(['health'], { HOST: '127.0.0.1', PORT: String(port) })).toMatchObject({ code: 0, stdout: `http://127.0.0.1:${port}/readyz: ready\n` });
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(await runGatehouse(['health'], { HOST: '127.0.0.1', PORT: String(port) })).toMatchObject({ code: 1, stderr: `gatehouse health: http://127.0.0.1:${port}/readyz: ECONNREFUSED\n` });
  }, 120_000);

  it('names GATEHOUSE_METRICS_PORT when that port is the busy one, and creates no demo data', async () => {
    const env = { HOST: '127.0.0.1', GATEHOUSE_DB: join(workspace.dir, 'metrics-busy.db'), GATEHOUSE_LOG_LEVEL: 'warn' };
    const refused = await runGatehouse(['serve'], { ...env, PORT: String(await freePort()), GATEHOUSE_METRICS_PORT: String(busyPort) });
    expect(refused.code).toBe(1);
    expect(stderrLines(refused.stderr)).toEqual([
      `gatehouse serve: GATEHOUSE_METRICS_PORT: 127.0.0.1:${busyPort} is already in use (another process listens there): stop it or choose another port (EADDRINUSE).`,
    ]);
    expect(JSON.parse((await runGatehouse(['clients', 'list', '--json'], env)).stdout)).toEqual({ clients: [] });
  }, 120_000);
});
