import { Agent, IncomingMessage, request as httpRequest, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.js';
import { startServer, type ServerOptions } from './server.js';
import { createShutdownState } from './shutdown-state.js';

const silent = createLogger({ level: 'silent', destination: { write: () => undefined } });

function get(port: number, path: string, agent: Agent | false = false): Promise<{ status: number; body: string; connection: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, connection: res.headers.connection }));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * A server whose `/slow` request waits for `release()` (answering `finished`), and `inFlight`
 * resolves once that request has arrived; every other path answers `answer()` at once.
 */
async function startServerWithSlowRequest(answer: () => string, options: Partial<ServerOptions> = {}) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let arrived!: () => void;
  const inFlight = new Promise<void>((resolve) => (arrived = resolve));
  const server = await startServer({
    handler: (req, res) => {
      if (req.url === '/slow') {
        arrived();
        void released.then(() => res.end('finished'));
      } else res.end(answer());
    },
    host: '127.0.0.1',
    port: 0,
    logger: silent,
    purge: async () => ({}),
    purgeIntervalMinutes: 60,
    shutdownTimeoutSeconds: 30,
    ...options,
  });
  return { server, release, inFlight };
}

describe('startServer', () => {
  it('creates requests and responses with the classes it is given', async () => {
    class CountedRequest extends IncomingMessage {}
    class CountedResponse extends ServerResponse {}
    const seen: boolean[] = [];
    const server = await startServer({
      handler: (req, res) => {
        seen.push(req instanceof CountedRequest, res instanceof CountedResponse);
        res.end('ok');
      },
      classes: { IncomingMessage: CountedRequest, ServerResponse: CountedResponse as typeof ServerResponse },
      host: '127.0.0.1',
      port: 0,
      logger: silent,
      purge: async () => ({}),
      purgeIntervalMinutes: 60,
      shutdownTimeoutSeconds: 1,
    });
    try {
      expect(await get(server.port, '/')).toMatchObject({ status: 200, body: 'ok' });
      expect(seen).toEqual([true, true]);
    } finally {
      await server.stop();
    }
  });

  it('finishes an in-flight request on stop, then refuses new connections', async () => {
    const { server, release, inFlight } = await startServerWithSlowRequest(() => 'fast');
    const slow = get(server.port, '/slow');
    await inFlight;
    let stopped = false;
    const stopping = server.stop().then(() => (stopped = true));
    await expect(get(server.port, '/fast')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(stopped).toBe(false);
    release();
    const response = await slow;
    expect(response).toMatchObject({ status: 200, body: 'finished' });
    await stopping;
    expect(stopped).toBe(true);
  });

  it('answers a request on a keep-alive connection opened before the stop, with Connection: close, while another is in flight', async () => {
    const shutdown = createShutdownState();
    const { server, release, inFlight } = await startServerWithSlowRequest(() => (shutdown.stopping ? 'stopping' : 'ready'), { shutdown });
    const keepAlive = new Agent({ keepAlive: true, maxSockets: 1 });
    let sockets = 0;
    keepAlive.on('free', () => (sockets = Object.values(keepAlive.freeSockets).flat().length));
    expect(await get(server.port, '/ready', keepAlive)).toMatchObject({ status: 200, body: 'ready', connection: 'keep-alive' });
    expect(sockets).toBe(1);
    const slow = get(server.port, '/slow');
    await inFlight;
    const stopping = server.stop();
    expect(shutdown.stopping).toBe(true);
    // The same connection (maxSockets 1, opened before the stop) carries the next request.
    expect(await get(server.port, '/ready', keepAlive)).toEqual({ status: 200, body: 'stopping', connection: 'close' });
    release();
    expect(await slow).toMatchObject({ status: 200, body: 'finished' });
    await stopping;
    keepAlive.destroy();
  });

  it('runs the purge on its timer and logs what it removed', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = createLogger({ level: 'info', destination: { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) } });
    let purged!: () => void;
    const purgedOnce = new Promise<void>((resolve) => (purged = resolve));
    const server = await startServer({
      handler: (_req, res) => res.end(),
      host: '127.0.0.1',
      port: 0,
      logger,
      purge: async () => {
        purged();
        return { codes: 2 };
      },
      // A fraction of a minute, so the test does not wait: 6 ms.
      purgeIntervalMinutes: 0.0001,
      shutdownTimeoutSeconds: 1,
    });
    await purgedOnce;
    await server.stop();
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'purged expired records', removed: { codes: 2 } }));
  });

  it('rejects when the port is taken', async () => {
    const first = await startServer({ handler: (_req, res) => res.end(), host: '127.0.0.1', port: 0, logger: silent, purge: async () => ({}), purgeIntervalMinutes: 60, shutdownTimeoutSeconds: 1 });
    await expect(
      startServer({ handler: (_req, res) => res.end(), host: '127.0.0.1', port: first.port, logger: silent, purge: async () => ({}), purgeIntervalMinutes: 60, shutdownTimeoutSeconds: 1 }),
    ).rejects.toMatchObject({ code: 'EADDRINUSE' });
    await first.stop();
  });
});
