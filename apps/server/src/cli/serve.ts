import type { Config } from '../config.js';
import { describeDatabase } from '../config.js';
import { createContainer, resolve, TOKENS } from '../container.js';
import { demoInstructions, findDemoClient, seedDemoIfEmpty } from '../demo.js';
import { startServer } from '../server.js';

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
  // Logs go to stdout as JSON lines; the human-readable instructions go to stderr.
  const container = await createContainer(config, { logDestination: io.logs ?? io.stdout });
  const logger = resolve(container, TOKENS.logger);
  const storage = resolve(container, TOKENS.storage);
  const gatehouse = resolve(container, TOKENS.gatehouse);
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  // Listen for the signals before starting, so one sent during start-up also ends in a clean stop.
  const stopSignal = waitForStopSignal(io.signals ?? process);
  try {
    // The first start generates the signing key (kept in the database, encrypted when GATEHOUSE_KEY_SECRET is set).
    const kid = await gatehouse.currentSigningKeyId();
    const seed = config.demo ? await seedDemoIfEmpty(gatehouse, config.issuer) : undefined;
    const demoClient = config.demo ? await findDemoClient(gatehouse, config.issuer) : undefined;

    server = await startServer({
      handler: resolve(container, TOKENS.httpApp),
      host: config.host,
      port: config.port,
      logger,
      purge: () => gatehouse.purgeExpired(),
      purgeIntervalMinutes: config.purgeIntervalMinutes,
      shutdownTimeoutSeconds: config.shutdownTimeoutSeconds,
    });
    io.stderr.write(`\nGatehouse is serving on port ${server.port} (issuer ${config.issuer}; ${describeDatabase(config)}).\n`);
    if (demoClient) io.stderr.write(`\n${demoInstructions({ issuer: config.issuer, client: demoClient, seed })}\n\n`);
    logger.info({ host: config.host ?? '*', port: server.port, issuer: config.issuer, database: config.database.kind, kid }, 'listening');
    io.onListening?.({ port: server.port });
  } catch (error) {
    stopSignal.cancel();
    await server?.stop();
    await storage.close().catch(() => undefined);
    throw error;
  }

  const signal = await stopSignal.received;
  logger.info({ signal }, 'shutting down: finishing in-flight requests');
  await server.stop();
  await storage.close();
  logger.info('stopped');
  return 0;
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
