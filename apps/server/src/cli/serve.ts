import type { Gatehouse } from '@gatehouse/core';
import { AggregatorRegistry } from 'prom-client';
import { expressServerOptions, purgeExpiredRecords } from '@gatehouse/http-express';
import type { Config } from '../config.js';
import { describeDatabase } from '../config.js';
import { listening } from './listen-errors.js';
import { createContainer, resolve, TOKENS } from '../container.js';
import { demoInstructions, findDemoClient, seedDemoIfEmpty } from '../demo.js';
import { createMetrics } from '../metrics/metrics.js';
import { startMetricsServer } from '../metrics/metrics-server.js';
import { startServer } from '../server.js';
import type { Storage } from '../storage.js';
import { reportListening, workerIndex } from '../cluster/worker-messages.js';
import { serveWithWorkers } from './serve-workers.js';
import { waitForStopSignal, type ServeIo, type SignalSource } from './stop-signal.js';

export type { ServeIo, SignalSource };

/** The housekeeping: the core's expired records and, on PostgreSQL, the shared failure counts past their window. */
export function purgeExpired(gatehouse: Gatehouse, storage: Pick<Storage, 'failedAttempts'>): Promise<Record<string, number>> {
  return purgeExpiredRecords(gatehouse, storage);
}

/**
 * `gatehouse serve`: migrates, makes sure a signing key exists, seeds the demo data into an
 * empty database, serves until SIGTERM or SIGINT, then shuts down gracefully. Resolves with the
 * exit code. With `config.workers` above 1, the primary of that many workers (serve-workers.ts);
 * in a worker, one of them.
 */
export async function serve(config: Config, io: ServeIo): Promise<number> {
  // Several workers: this process is their primary (docs/decisions/0171-serve-workers.md).
  const worker = workerIndex(process.env);
  if (worker === undefined && config.workers > 1) return serveWithWorkers(config, io);
  // Logs go to stdout (JSON lines, or readable ones on a terminal); the human-readable instructions go to stderr.
  const metrics = config.metrics ? createMetrics() : undefined;
  const container = await createContainer(config, { logDestination: io.logs ?? io.stdout, ...(metrics ? { metrics } : {}) });
  const logger = resolve(container, TOKENS.logger);
  const storage = resolve(container, TOKENS.storage);
  const gatehouse = resolve(container, TOKENS.gatehouse);
  const product = resolve(container, TOKENS.product);
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
        // One worker purges for all.
        purge: worker === undefined || worker === 0 ? () => purgeExpired(gatehouse, storage) : undefined,
        purgeIntervalMinutes: config.purgeIntervalMinutes,
        shutdownTimeoutSeconds: config.shutdownTimeoutSeconds,
        shutdown: resolve(container, TOKENS.shutdown),
      }),
    );
    if (worker !== undefined) {
      // The primary serves the sum of the workers' metrics, seeds the demo data and says where it listens.
      if (metrics) {
        // Constructing one is what makes prom-client answer the primary's requests in a worker.
        new AggregatorRegistry();
        AggregatorRegistry.setRegistries([metrics.registry]);
      }
      logger.info({ port: server.port, kid, pid: process.pid }, 'worker listening');
      reportListening(server.port);
    } else {
      if (metrics && config.metrics) {
        const { host, port } = config.metrics;
        metricsServer = await listening('GATEHOUSE_METRICS_PORT', host, port, () => startMetricsServer({ registry: metrics.registry, host, port }));
        logger.info({ host, port: metricsServer.port }, 'metrics listening');
      }
      // The demo data only once both ports are ours: its secrets are shown once, just below, and a
      // start that fails before (a busy port) must not create them unseen (issue 33).
      const seed = config.demo ? await seedDemoIfEmpty(gatehouse, product, config.issuer) : undefined;
      const demoClient = config.demo ? await findDemoClient(gatehouse, config.issuer) : undefined;
      io.stderr.write(`\nGatehouse is serving on port ${server.port} (issuer ${config.issuer}; ${describeDatabase(config)}).\n`);
      if (demoClient) io.stderr.write(`\n${demoInstructions({ issuer: config.issuer, client: demoClient, seed })}\n\n`);
      logger.info({ host: config.host ?? '*', port: server.port, issuer: config.issuer, database: config.database.kind, kid }, 'listening');
      io.onListening?.({ port: server.port });
    }
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
