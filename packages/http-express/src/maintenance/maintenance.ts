import type { Gatehouse } from '@gatehouse/core';
import { silentLogger, type HttpLogger } from '../logger.js';

/** What the maintenance purges besides the core's records: a storage's shared failure counts (PostgreSQL). */
export interface MaintainedStorage {
  readonly failedAttempts?: { purgeExpired(now: number): Promise<number> } | undefined;
}

/** How often, and where the runner reports. */
export interface MaintenanceSchedule {
  /** Time between two purges (default 15 minutes, `DEFAULT_MAINTENANCE_INTERVAL_MS`); at least 1 ms, at most 24 days. */
  intervalMs?: number;
  /** Where "purged expired records" and "purge failed" go (a pino logger fits); default: silent. */
  logger?: HttpLogger;
}

/** The housekeeping of a Gatehouse and its storage (`purgeExpiredRecords`). */
export interface GatehouseMaintenanceOptions extends MaintenanceSchedule {
  gatehouse: Pick<Gatehouse, 'purgeExpired' | 'clock'>;
  /** The storage (`openPostgresStorage`…): its failure counts past their window are purged too. */
  storage?: MaintainedStorage;
}

/** A housekeeping of the host's own instead (what it returns is logged as `removed`). */
export interface CustomMaintenanceOptions extends MaintenanceSchedule {
  purge: () => Promise<Record<string, number>>;
}

export type MaintenanceOptions = GatehouseMaintenanceOptions | CustomMaintenanceOptions;

/** A running maintenance (`startMaintenance`). */
export interface Maintenance {
  /** Purges now, outside the schedule; resolves with what was removed (and rejects when the purge fails). */
  runNow(): Promise<Record<string, number>>;
  /** Clears the timer and waits for a purge in progress; later calls do nothing more. */
  stop(): Promise<void>;
}

/** `intervalMs` when none is given: 15 minutes (the reference server's GATEHOUSE_PURGE_INTERVAL_MINUTES default). */
export const DEFAULT_MAINTENANCE_INTERVAL_MS = 15 * 60_000;

/** setInterval's largest delay (2^31 - 1 ms, about 24.8 days): a longer one would fire at once, again and again. */
const MAX_INTERVAL_MS = 2 ** 31 - 1;

/**
 * The core's expired records (`gatehouse.purgeExpired()`: codes, ended sessions, long-revoked
 * grants, retired keys, never-used self-registered clients) and, when the storage keeps shared
 * failure counts, those whose window has passed (`failedAttempts` in the result).
 *
 * @example
 * const removed = await purgeExpiredRecords(gatehouse, storage); // { codes: 3, …, failedAttempts: 1 }
 */
export async function purgeExpiredRecords(gatehouse: Pick<Gatehouse, 'purgeExpired' | 'clock'>, storage?: MaintainedStorage): Promise<Record<string, number>> {
  const removed = await gatehouse.purgeExpired();
  if (!storage?.failedAttempts) return removed;
  return { ...removed, failedAttempts: await storage.failedAttempts.purgeExpired(gatehouse.clock.now().getTime()) };
}

/**
 * Starts Gatehouse's housekeeping in one call (docs/decisions/0145-embedders-production-wiring.md):
 * `purgeExpiredRecords` every `intervalMs`, each run logged with what it removed. A failed run is
 * logged (`purge failed`) and the next runs as planned: nothing is thrown at the host. The timer is
 * unref'd, so it never keeps the process alive; `stop()` clears it and waits for a run in progress
 * (call it before closing the storage). Runs never overlap: a run still going when the next is due
 * is not doubled.
 *
 * @example
 * const maintenance = startMaintenance({ gatehouse, storage, logger });
 * process.once('SIGTERM', async () => {
 *   await maintenance.stop();
 *   await storage.close();
 * });
 */
export function startMaintenance(options: MaintenanceOptions): Maintenance {
  const intervalMs = options.intervalMs ?? DEFAULT_MAINTENANCE_INTERVAL_MS;
  if (!Number.isFinite(intervalMs) || intervalMs < 1 || intervalMs > MAX_INTERVAL_MS) {
    throw new RangeError(`intervalMs must be a number of milliseconds from 1 to ${MAX_INTERVAL_MS} (got ${String(intervalMs)}).`);
  }
  const logger = options.logger ?? silentLogger;
  const purge = 'purge' in options ? options.purge : () => purgeExpiredRecords(options.gatehouse, options.storage);

  let running: Promise<Record<string, number>> | undefined;
  const runNow = (): Promise<Record<string, number>> => {
    running ??= purge().finally(() => {
      running = undefined;
    });
    return running;
  };
  const timer = setInterval(() => {
    if (running) return;
    runNow().then(
      (removed) => logger.info({ removed }, 'purged expired records'),
      (error: unknown) => logger.error({ err: error instanceof Error ? error.message : String(error) }, 'purge failed'),
    );
  }, intervalMs);
  timer.unref();

  let stopped: Promise<void> | undefined;
  return {
    runNow,
    stop() {
      stopped ??= (async () => {
        clearInterval(timer);
        await running?.catch(() => undefined);
      })();
      return stopped;
    },
  };
}
