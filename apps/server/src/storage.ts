import { mkdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { FailureStore } from '@gatehouse/http-express';
import { openSqliteStorage, type SharedWriteThreadChannel, type Storage as CoreStorage } from '@gatehouse/storage-sqlite';
import { writeChannelToPrimary } from './cluster/shared-writes.js';
import { workerIndex } from './cluster/worker-messages.js';
import { ConfigError, type Config } from './config.js';

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
    if (filename !== ':memory:') prepareSqliteFile(filename);
    try {
      storage = await openSqliteStorage({ filename, busyTimeoutMs: database.busyTimeoutMs, synchronous: database.synchronous, ...keys, ...sharingOfSqliteFile(workers.workers) });
    } catch (error) {
      throw sqliteFileError(filename, error);
    }
  }
  try {
    await storage.migrate();
  } catch (error) {
    await storage.close().catch(() => undefined);
    throw database.kind === 'sqlite' ? sqliteFileError(database.filename, error) : error;
  }
  return storage;
}

/**
 * How this process shares the SQLite file with the others of `gatehouse serve --workers N`
 * (docs/decisions/0171-serve-workers.md): they count failures in the file, and one of them, the
 * first worker, runs the background checkpoints; the others (and the primary, the CLI) checkpoint
 * only past the WAL's bound; the workers' code exchanges are written by the primary's one write
 * thread (docs/decisions/0173-one-write-thread-for-all-workers.md). One process: the defaults.
 */
function sharingOfSqliteFile(workers: number): { sharedByInstances?: true; backgroundCheckpoints?: 'in-another-process'; writeThread?: { shared: SharedWriteThreadChannel } } {
  if (workers <= 1) return {};
  const index = workerIndex(process.env);
  return {
    sharedByInstances: true,
    ...(index === 0 ? {} : { backgroundCheckpoints: 'in-another-process' as const }),
    // A worker's code exchanges go to the primary's one write thread (decision 0173).
    ...(index === undefined ? {} : { writeThread: { shared: writeChannelToPrimary() } }),
  };
}

/** The errors of a file or directory SQLite or Node may not write (a read-only file or file system, missing rights). */
const UNWRITABLE = /^(EACCES|EPERM|EROFS|ENOTDIR|EISDIR|ENOENT|SQLITE_READONLY\w*|SQLITE_CANTOPEN\w*|SQLITE_PERM|SQLITE_AUTH)$/;

/**
 * The SQLite file's directory, created when missing; a path that is a directory, or a directory
 * that cannot be created, is a one-line `ConfigError` naming GATEHOUSE_DB (issue 33).
 */
function prepareSqliteFile(filename: string): void {
  let isDirectory = false;
  try {
    isDirectory = statSync(filename, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    // A path through a file, or a directory this user may not enter: creating the directory says why.
  }
  if (isDirectory) {
    throw new ConfigError('GATEHOUSE_DB', `GATEHOUSE_DB names a directory (${filename}); give the path of a file, such as ${join(filename, 'gatehouse.db')}.`);
  }
  try {
    mkdirSync(dirname(filename), { recursive: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    const why = code === 'EEXIST' || code === 'ENOTDIR' ? 'a part of the path is a file' : code === 'EACCES' || code === 'EPERM' ? 'no permission' : code === 'EROFS' ? 'a read-only file system' : 'refused';
    throw new ConfigError('GATEHOUSE_DB', `GATEHOUSE_DB: the directory ${dirname(filename)} cannot be created (${why}, ${code}); create it, or choose a path the server may write.`);
  }
}

/**
 * An error opening or migrating the SQLite file that the file's place causes (read-only, no
 * rights), as a one-line `ConfigError` naming GATEHOUSE_DB; any other error as it was.
 */
function sqliteFileError(filename: string, error: unknown): unknown {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string' || !UNWRITABLE.test(code)) return error;
  return new ConfigError(
    'GATEHOUSE_DB',
    `GATEHOUSE_DB: the SQLite file ${resolve(filename)} cannot be opened for writing (${code}); the server needs to write the file and the files beside it (-wal, -shm) in ${dirname(resolve(filename))}.`,
  );
}
