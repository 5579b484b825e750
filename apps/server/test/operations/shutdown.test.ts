import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, codeMinter, createWorkspace } from '../support/fixture.js';
import { ensureBuilt } from '../support/processes.js';
import { RawConnection } from '../support/raw-http.js';

// A real SIGTERM to a real `gatehouse serve` process: the readiness probe says 503 at once, a
// request in flight still gets its answer, then the process exits 0 (docs/operations.md "Shutdown").

const workspace = createWorkspace('shutdown');

beforeAll(async () => {
  await ensureBuilt();
}, 300_000);

afterAll(() => workspace.cleanup());

/** Resolves once `condition` holds (checked every 10 ms); the test's own timeout bounds the wait. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('graceful shutdown on SIGTERM', () => {
  it('answers /readyz 503 on a keep-alive connection opened before, while a slow token request in flight finishes with its tokens', async () => {
    const p = await workspace.provision('drain');
    // A long forced-close delay, so only the drain itself can end the connections here.
    const server = await workspace.serve(p, { GATEHOUSE_SHUTDOWN_TIMEOUT_SECONDS: '60' });
    const code = await (await codeMinter(p)).mint();
    const host = `Host: 127.0.0.1:${p.port}`;

    // Connection 1: a keep-alive connection, ready before the signal.
    const probe = await RawConnection.open(p.port);
    probe.write(`GET /readyz HTTP/1.1\r\n${host}\r\n\r\n`);
    const ready = await probe.response();
    expect(ready).toMatchObject({ status: 200, body: '{"status":"ready"}' });
    expect(ready.headers.connection).toBe('keep-alive');

    // Connection 2: a token request whose body comes in two halves. `100 Continue` says the server
    // has taken the request in (it is in flight) before the signal is sent.
    const body = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: p.redirectUri }).toString();
    const slow = await RawConnection.open(p.port);
    slow.write(
      `POST /oauth/token HTTP/1.1\r\n${host}\r\nAuthorization: ${basic(p.clientId, p.clientSecret)}\r\nContent-Type: application/x-www-form-urlencoded\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\nAccept: application/json\r\n\r\n`,
    );
    expect((await slow.response()).status).toBe(100);
    slow.write(body.slice(0, 20));

    server.child.kill('SIGTERM');
    await until(() => server.logs.some((line) => line.msg === 'shutting down: finishing in-flight requests'));

    // The readiness probe, asked after the signal on the connection opened before: 503, and the connection closes.
    probe.write(`GET /readyz HTTP/1.1\r\n${host}\r\n\r\n`);
    const stopping = await probe.response();
    expect(stopping).toMatchObject({ status: 503, body: '{"status":"stopping"}' });
    expect(stopping.headers.connection).toBe('close');
    await probe.closed;
    // No new connection is taken.
    await expect(RawConnection.open(p.port)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(server.child.exitCode).toBeNull();

    // The request in flight gets the rest of its body, and its answer.
    slow.write(body.slice(20));
    const tokens = await slow.response();
    expect(tokens.status).toBe(200);
    // Taken in before the signal, answered after it: its client is told not to reuse the connection.
    expect(tokens.headers.connection).toBe('close');
    expect(JSON.parse(tokens.body)).toMatchObject({ token_type: 'Bearer', access_token: expect.any(String) });

    expect(await server.exited).toBe(0);
    await slow.closed;
    expect(server.logs.map((line) => line.msg)).toContain('stopped');
  }, 60_000);
});
