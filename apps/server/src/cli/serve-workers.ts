import { resolve as resolvePath } from 'node:path';
import { AggregatorRegistry } from 'prom-client';
import { hostSharedWriteThread } from '@gatehouse/storage-sqlite';
import { ConfigError, describeDatabase, type Config } from '../config.js';
import { createContainer, resolve, TOKENS } from '../container.js';
import { demoInstructions, findDemoClient, seedDemoIfEmpty } from '../demo.js';
import { startMetricsServer, type RunningMetricsServer } from '../metrics/metrics-server.js';
import { superviseWorkers, type WorkerSupervisor } from '../cluster/supervisor.js';
import { serveWritesOfWorkers } from '../cluster/shared-writes.js';
import { listening } from './listen-errors.js';
import type { Logger } from '../logger.js';
import { waitForStopSignal, type ServeIo } from './stop-signal.js';

/**
 * `gatehouse serve` with `GATEHOUSE_WORKERS` (or `--workers`) above 1: this process is the
 * primary (docs/decisions/0171-serve-workers.md). It migrates and makes sure the signing keys
 * exist once, starts the workers (each a whole server, sharing the port through Node's cluster),
 * then seeds the demo data and prints the first-run instructions once, serves the sum of the
 * workers' metrics, restarts a worker that dies, and on SIGTERM or SIGINT stops them all
 * gracefully. It serves no request itself. Resolves with the exit code.
 */
export async function serveWithWorkers(config: Config, io: ServeIo): Promise<number> {
  if (config.database.kind === 'sqlite' && (config.database.filename === ':memory:' || config.database.filename === '')) {
    throw new ConfigError('GATEHOUSE_WORKERS', 'GATEHOUSE_WORKERS above 1 needs a database file (GATEHOUSE_DB) or PostgreSQL: each worker would have an in-memory database of its own.');
  }
  const container = await createContainer(config, { logDestination: io.logs ?? io.stdout });
  const logger = resolve(container, TOKENS.logger);
  const storage = resolve(container, TOKENS.storage);
  const gatehouse = resolve(container, TOKENS.gatehouse);
  const product = resolve(container, TOKENS.product);
  const graceMs = (config.shutdownTimeoutSeconds + 5) * 1000;
  // Listen for the signals before starting, so one sent during start-up also ends in a clean stop.
  const stopSignal = waitForStopSignal(io.signals ?? process);
  let workers: WorkerSupervisor | undefined;
  let metricsServer: RunningMetricsServer | undefined;
  // On SQLite the workers' code exchanges are written by one thread of this process (decision 0173).
  const sharedWrites = hostSharedWrites(config, logger);
  let port: number;
  try {
    // Once, before the workers: they would otherwise race to create the first signing keys.
    const kid = await gatehouse.currentSigningKeyId();
    // The workers run this same command: `process.argv` names the executable and its arguments.
    workers = superviseWorkers({ count: config.workers, exec: process.argv[1] as string, args: process.argv.slice(2), env: {}, logger });
    ({ port } = await workers.started);
    // After the port is taken, so that the instructions with the demo secrets are always printed.
    const seed = config.demo ? await seedDemoIfEmpty(gatehouse, product, config.issuer) : undefined;
    const demoClient = config.demo ? await findDemoClient(gatehouse, config.issuer) : undefined;
    if (config.metrics) {
      // Each worker answers with its registry (serve.ts); gauges sum, except those that say otherwise.
      const aggregator = new AggregatorRegistry();
      const { host, port: metricsPort } = config.metrics;
      const registry = { metrics: () => aggregator.clusterMetrics(), contentType: aggregator.contentType };
      metricsServer = await listening('GATEHOUSE_METRICS_PORT', host, metricsPort, () => startMetricsServer({ registry, host, port: metricsPort }));
      logger.info({ host, port: metricsServer.port }, 'metrics listening');
    }
    io.stderr.write(`\nGatehouse is serving on port ${port} with ${config.workers} workers (issuer ${config.issuer}; ${describeDatabase(config)}).\n`);
    if (demoClient) io.stderr.write(`\n${demoInstructions({ issuer: config.issuer, client: demoClient, seed })}\n\n`);
    logger.info({ host: config.host ?? '*', port, issuer: config.issuer, database: config.database.kind, kid, workers: workers.pids() }, 'listening');
    io.onListening?.({ port });
  } catch (error) {
    stopSignal.cancel();
    await workers?.stop(graceMs);
    await sharedWrites?.stop();
    await metricsServer?.stop();
    throw error;
  } finally {
    // The primary serves no request: the workers have their own connections.
    await storage.close().catch(() => undefined);
  }

  const signal = await stopSignal.received;
  logger.info({ signal }, 'shutting down: each worker finishes its requests in flight');
  await workers.stop(graceMs);
  await sharedWrites?.stop();
  await metricsServer?.stop();
  logger.info('stopped');
  return 0;
}

/**
 * The one write thread of the SQLite file for every worker (docs/decisions/0173-one-write-thread-for-all-workers.md),
 * served over the cluster's IPC channel; none on PostgreSQL.
 */
function hostSharedWrites(config: Config, logger: Logger): { stop(): Promise<void> } | undefined {
  if (config.database.kind !== 'sqlite') return undefined;
  const host = hostSharedWriteThread({ filename: resolvePath(config.database.filename), busyTimeoutMs: config.database.busyTimeoutMs, synchronous: config.database.synchronous });
  const detach = serveWritesOfWorkers(host, logger);
  return {
    async stop() {
      detach();
      await host.stop();
    },
  };
}
