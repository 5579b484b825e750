import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { FailureStore } from '@gatehouse/http-express';
import { openSqliteStorage, type Storage as CoreStorage } from '@gatehouse/storage-sqlite';
import { workerIndex } from './cluster/worker-messages.js';
import type { Config } from './config.js';

/**
 * The database, and the failure counts every instance shares: on PostgreSQL always, on SQLite when
 * several workers serve the file (docs/decisions/0023-rate-limiting-failed-attempts.md,
 * docs/decisions/0171-serve-workers.md); one SQLite process keeps them in memory.
 */
export interface Storage extends CoreStorage {
  failedAttempts?: FailureStore & { purgeExpired(now: number): Promise<number> };
}

/**
 * Opens the database the configuration names (PostgreSQL when GATEHOUSE_DATABASE_URL is set,
 * else the SQLite file, whose directory is created) and applies pending migrations (on
 * PostgreSQL, that creates the shared failure-count table too). Private signing keys are
 * encrypted under `keySecret` (GATEHOUSE_KEY_SECRET) by the storage itself, as for an embedder.
 */
export async function openStorage(database: Config['database'], keySecret?: string, workers: Pick<Config, 'workers'> = { workers: 1 }): Promise<Storage> {
  const keys = { ...(keySecret === undefined ? {} : { signingKeySecret: keySecret }), signingKeySecretName: 'GATEHOUSE_KEY_SECRET' };
  let storage: Storage;
  if (database.kind === 'postgres') {
    // Loaded only when configured: a SQLite deployment never loads the pg driver.
    const { openPostgresStorage } = await import('@gatehouse/storage-postgres');
    storage = await openPostgresStorage({
      connectionString: database.connectionString,
      poolSize: database.poolSize,
      ...(database.schema === undefined ? {} : { schema: database.schema }),
      ...keys,
    });
  } else {
    const filename = database.filename === ':memory:' ? database.filename : resolve(database.filename);
    if (filename !== ':memory:') mkdirSync(dirname(filename), { recursive: true });
    storage = await openSqliteStorage({ filename, busyTimeoutMs: database.busyTimeoutMs, synchronous: database.synchronous, ...keys, ...sharingOfSqliteFile(workers.workers) });
  }
  try {
    await storage.migrate();
  } catch (error) {
    await storage.close().catch(() => undefined);
    throw error;
  }
  return storage;
}

/**
 * How this process shares the SQLite file with the others of `gatehouse serve --workers N`
 * (docs/decisions/0171-serve-workers.md): they count failures in the file, and one of them, the
 * first worker, runs the background checkpoints; the others (and the primary, the CLI) checkpoint
 * only past the WAL's bound. One process: the defaults.
 */
function sharingOfSqliteFile(workers: number): { sharedByInstances?: true; backgroundCheckpoints?: 'in-another-process' } {
  if (workers <= 1) return {};
  return { sharedByInstances: true, ...(workerIndex(process.env) === 0 ? {} : { backgroundCheckpoints: 'in-another-process' as const }) };
}
