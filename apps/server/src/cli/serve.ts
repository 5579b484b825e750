import type { Gatehouse } from '@gatehouse/core';
import { expressServerOptions } from '@gatehouse/http-express';
import type { Config } from '../config.js';
import { ConfigError, describeDatabase } from '../config.js';
import { createContainer, resolve, TOKENS } from '../container.js';
import { demoInstructions, findDemoClient, seedDemoIfEmpty } from '../demo.js';
import { createMetrics } from '../metrics/metrics.js';
import { startMetricsServer } from '../metrics/metrics-server.js';
import { startServer } from '../server.js';
import type { Storage } from '../storage.js';

/** The housekeeping: the core's expired records and, on PostgreSQL, the shared failure counts past their window. */
export async function purgeExpired(gatehouse: Gatehouse, storage: Pick<Storage, 'failedAttempts'>): Promise<Record<string, number>> {
  const removed = await gatehouse.purgeExpired();
  if (!storage.failedAttempts) return removed;
  return { ...removed, failedAttempts: await storage.failedAttempts.purgeExpired(gatehouse.clock.now().getTime()) };
}

/** Where shutdown signals come from: the process, or an emitter in tests. */
export interface SignalSource {
  once(signal: 'SIGTERM' | 'SIGINT', listener: () => void): unknown;
  off(signal: 'SIGTERM' | 'SIGINT', listener: () => void): unknown;
}

/**
 * `gatehouse serve`: migrates, makes sure a signing key exists, seeds the demo data into an
 * empty database, serves until SIGTERM or SIGINT, then shuts down gracefully. Resolves with the
 * exit code.
 */
export async function serve(
  config: Config,
  io: {
    stdout: { write(text: string): unknown };
    stderr: { write(text: string): unknown };
    /** Where the log lines go (default: `stdout`). */
    logs?: { write(text: string): unknown };
    signals?: SignalSource;
    onListening?: (info: { port: number }) => void;
  },
): Promise<number> {
  // Logs go to stdout (JSON lines, or readable ones on a terminal); the human-readable instructions go to stderr.
  const metrics = config.metrics ? createMetrics() : undefined;
  const container = await createContainer(config, { logDestination: io.logs ?? io.stdout, ...(metrics ? { metrics } : {}) });
  const logger = resolve(container, TOKENS.logger);
  const storage = resolve(container, TOKENS.storage);
  const gatehouse = resolve(container, TOKENS.gatehouse);
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  let metricsServer: Awaited<ReturnType<typeof startMetricsServer>> | undefined;
  // Listen for the signals before starting, so one sent during start-up also ends in a clean stop.
  const stopSignal = waitForStopSignal(io.signals ?? process);
  try {
    // The first start generates the signing key (kept in the database, encrypted when GATEHOUSE_KEY_SECRET is set).
    const kid = await gatehouse.currentSigningKeyId();

    const app = resolve(container, TOKENS.httpApp);
    server = await listening('PORT', config.host, config.port, () =>
      startServer({
        handler: metrics ? metrics.instrument(app) : app,
        classes: expressServerOptions(app),
        host: config.host,
        port: config.port,
        logger,
        purge: () => purgeExpired(gatehouse, storage),
        purgeIntervalMinutes: config.purgeIntervalMinutes,
        shutdownTimeoutSeconds: config.shutdownTimeoutSeconds,
        shutdown: resolve(container, TOKENS.shutdown),
      }),
    );
    if (metrics && config.metrics) {
      const { host, port } = config.metrics;
      metricsServer = await listening('GATEHOUSE_METRICS_PORT', host, port, () => startMetricsServer({ registry: metrics.registry, host, port }));
      logger.info({ host, port: metricsServer.port }, 'metrics listening');
    }
    // The demo data only once both ports are ours: its secrets are shown once, just below, and a
    // start that fails before (a busy port) must not create them unseen (issue 33).
    const seed = config.demo ? await seedDemoIfEmpty(gatehouse, config.issuer) : undefined;
    const demoClient = config.demo ? await findDemoClient(gatehouse, config.issuer) : undefined;
    io.stderr.write(`\nGatehouse is serving on port ${server.port} (issuer ${config.issuer}; ${describeDatabase(config)}).\n`);
    if (demoClient) io.stderr.write(`\n${demoInstructions({ issuer: config.issuer, client: demoClient, seed })}\n\n`);
    logger.info({ host: config.host ?? '*', port: server.port, issuer: config.issuer, database: config.database.kind, kid }, 'listening');
    io.onListening?.({ port: server.port });
  } catch (error) {
    stopSignal.cancel();
    await metricsServer?.stop();
    await server?.stop();
    await storage.close().catch(() => undefined);
    throw error;
  }

  const signal = await stopSignal.received;
  // The readiness probe answers 503 from here on (server.stop marks the shutdown as begun).
  logger.info({ signal }, 'shutting down: finishing in-flight requests');
  await server.stop();
  // Metrics last, so a scrape during the drain still answers.
  await metricsServer?.stop();
  await storage.close();
  logger.info('stopped');
  return 0;
}

/** Node's listen errors an operator fixes by changing the variable (or stopping what holds the port). */
const LISTEN_PROBLEMS: Record<string, string> = {
  EADDRINUSE: 'is already in use (another process listens there): stop it or choose another port',
  EACCES: 'may not be bound by this user (ports below 1024 need privileges): choose a port from 1024',
  EADDRNOTAVAIL: 'cannot be bound: the host is no address of this machine',
};

/**
 * `start()`, with a listen error that the configuration causes turned into a one-line `ConfigError`
 * naming `variable` (the README promises one for every configuration error).
 */
async function listening<T>(variable: 'PORT' | 'GATEHOUSE_METRICS_PORT', host: string | undefined, port: number, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const problem = code === undefined ? undefined : LISTEN_PROBLEMS[code];
    if (problem === undefined) throw error;
    const hostVariable = variable === 'PORT' ? 'HOST' : 'GATEHOUSE_METRICS_HOST';
    const named = code === 'EADDRNOTAVAIL' ? hostVariable : variable;
    throw new ConfigError(named, `${named}: ${host ?? '*'}:${port} ${problem} (${code}).`);
  }
}

function waitForStopSignal(signals: SignalSource): { received: Promise<string>; cancel(): void } {
  let cancel = () => undefined as void;
  const received = new Promise<string>((resolveSignal) => {
    const onTerm = () => done('SIGTERM');
    const onInt = () => done('SIGINT');
    cancel = () => {
      signals.off('SIGTERM', onTerm);
      signals.off('SIGINT', onInt);
    };
    function done(name: string) {
      cancel();
      resolveSignal(name);
    }
    signals.once('SIGTERM', onTerm);
    signals.once('SIGINT', onInt);
  });
  return { received, cancel };
}
