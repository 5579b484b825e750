import { createServer, type RequestListener, type ServerResponse } from 'node:http';
import { startMaintenance, type ExpressServerOptions } from '@gatehouse/http-express';
import { Server as NetServer, type AddressInfo } from 'node:net';
import type { Logger } from './logger.js';
import type { ShutdownState } from './shutdown-state.js';

export interface RunningServer {
  /** The port actually bound (useful with port 0 in tests). */
  port: number;
  /**
   * Graceful stop: marks the shutdown as begun (the readiness probe answers 503), stops accepting
   * connections, lets in-flight requests finish (closing idle keep-alive connections at once, a
   * busy one after its answer, and every connection after `shutdownTimeoutSeconds`), stops the
   * purge timer and waits for a purge in progress.
   */
  stop(): Promise<void>;
}

export interface ServerOptions {
  handler: RequestListener;
  /**
   * The classes the HTTP server creates requests and responses with (`expressServerOptions(app)` of
   * `@gatehouse/http-express`: with Express's prototypes from the start, docs/performance.md).
   */
  classes?: ExpressServerOptions;
  host: string | undefined;
  port: number;
  logger: Logger;
  /**
   * Housekeeping run every `purgeIntervalMinutes` (the timer does not keep the process alive);
   * none in the workers of `serve --workers N` but the first (docs/decisions/0171-serve-workers.md).
   */
  purge: (() => Promise<Record<string, number>>) | undefined;
  purgeIntervalMinutes: number;
  shutdownTimeoutSeconds: number;
  /** Told when the stop begins (the readiness probe reads it). */
  shutdown?: ShutdownState;
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const { logger } = options;
  let stopping = false;
  /** The answers not finished yet: the stop waits for them, and tells each to close its connection. */
  const inFlight = new Set<ServerResponse>();
  let onDrained = () => undefined as void;
  const handler: RequestListener = (req, res) => {
    // Keep-alive connections are not reused once the server stops (docs/operations.md, "Stopping").
    if (stopping) res.setHeader('Connection', 'close');
    inFlight.add(res);
    res.once('close', () => {
      inFlight.delete(res);
      if (stopping && inFlight.size === 0) onDrained();
    });
    options.handler(req, res);
  };
  const server = createServer({ ...options.classes, requestTimeout: 30_000, headersTimeout: 20_000 }, handler);

  // The embedders' maintenance runner: unref'd, a failed purge logged, never thrown (docs/decisions/0145);
  // none in a worker that leaves the purge to another (docs/decisions/0171-serve-workers.md).
  const maintenance = options.purge === undefined ? undefined : startMaintenance({ purge: options.purge, intervalMs: options.purgeIntervalMinutes * 60_000, logger });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch(async (error: unknown) => {
    await maintenance?.stop();
    throw error;
  });
  server.on('error', (error) => logger.error({ err: error.message }, 'server error'));
  const port = (server.address() as AddressInfo).port;

  let stopped: Promise<void> | undefined;
  return {
    port,
    stop() {
      stopped ??= (async () => {
        stopping = true;
        // A request already in flight is answered with Connection: close too (its headers are not
        // sent yet), so that its client does not send another request on a connection about to go.
        for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
        options.shutdown?.begin();
        const maintenanceStopped = maintenance?.stop();
        const closed = new Promise<void>((resolve) => server.once('close', () => resolve()));
        // No new connection from here on. The open ones stay while requests are in flight: a
        // request arriving on a keep-alive connection is answered (the readiness probe with 503,
        // every answer with Connection: close) rather than cut. net.Server's close, not
        // http.Server's, which would also close the idle keep-alive connections at once.
        NetServer.prototype.close.call(server);
        // Once nothing is in flight, the idle connections go too (http.Server's close).
        onDrained = () => server.close();
        if (inFlight.size === 0) onDrained();
        const force = setTimeout(() => {
          logger.warn({ afterSeconds: options.shutdownTimeoutSeconds }, 'closing connections still open');
          server.closeAllConnections();
        }, options.shutdownTimeoutSeconds * 1000);
        force.unref();
        await closed;
        clearTimeout(force);
        await maintenanceStopped;
      })();
      return stopped;
    },
  };
}
