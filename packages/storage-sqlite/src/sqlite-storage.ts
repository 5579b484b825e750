import { mkdirSync, realpathSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { createKyselyRepositories, migrateToLatest, pingDatabase, type Database, type Storage } from '@gatehouse/storage-kysely';
import { Kysely, sql, type LogConfig } from 'kysely';
import { AsyncLock } from './async-lock.js';
import { createSqliteKyselyDialect, sqliteDialect } from './sqlite-dialect.js';

export interface SqliteStorageOptions {
  /** Path of the database file (created with its directory when missing), or ':memory:'. */
  filename: string;
  /** How long a write waits for another connection's write lock before failing (default 5000 ms). */
  busyTimeoutMs?: number;
  /**
   * What a commit waits for (docs/decisions/0010-sqlite-durability.md). `NORMAL` (the default): a
   * commit survives the process being killed, not an OS crash or power loss; `FULL`: every commit
   * waits for an fsync of the WAL and survives power loss too.
   */
  synchronous?: SqliteSynchronous;
}

export type SqliteSynchronous = 'NORMAL' | 'FULL';

/**
 * Opens (creating when needed) a SQLite database file and the core's repositories on it.
 * Call `migrate()` before use. Connection set-up: WAL, foreign keys on, `busy_timeout`,
 * `synchronous=NORMAL` unless `synchronous: 'FULL'` (docs/decisions/0010-sqlite-durability.md), write transactions
 * `BEGIN IMMEDIATE` (docs/decisions/0011-sqlite-begin-immediate.md).
 *
 * @example
 * const storage = await openSqliteStorage({ filename: './data/gatehouse.db' });
 * await storage.migrate();
 * const gatehouse = createGatehouse({ repositories: storage.repositories, ... });
 */
export async function openSqliteStorage(options: SqliteStorageOptions): Promise<Storage> {
  return (await openSqlite(options)).storage;
}

/** The storage with its kysely instance and raw connection (tests look at query plans). */
export async function openSqlite(
  options: SqliteStorageOptions,
  log?: LogConfig,
): Promise<{ storage: Storage; db: Kysely<Database>; database: BetterSqlite3.Database }> {
  const inMemory = options.filename === ':memory:' || options.filename === '';
  const path = inMemory ? ':memory:' : resolve(options.filename);
  if (!inMemory) mkdirSync(dirname(path), { recursive: true });

  const database = new BetterSqlite3(path, { timeout: options.busyTimeoutMs ?? 5000 });
  let lockKey: string | undefined;
  try {
    configure(database, options.synchronous ?? 'NORMAL');
    lockKey = inMemory ? undefined : realpathSync(path);
  } catch (error) {
    database.close();
    throw unusableFile(path, error);
  }
  const lock = lockKey === undefined ? new AsyncLock() : fileLocks.take(lockKey);
  const db = new Kysely<Database>({ dialect: createSqliteKyselyDialect(database, lock), ...(log ? { log } : {}) });

  let closed: Promise<void> | undefined;
  const storage: Storage = {
    repositories: createKyselyRepositories(db, sqliteDialect),
    migrate: () => migrateToLatest(db, sqliteDialect),
    ping: () => pingDatabase(db),
    close() {
      closed ??= (async () => {
        try {
          // SQLite's advice for long-lived connections: refresh the planner's statistics on close.
          await sql`pragma optimize`.execute(db);
        } finally {
          await db.destroy();
          if (lockKey !== undefined) fileLocks.give(lockKey);
        }
      })();
      return closed;
    },
  };
  return { storage, db, database };
}

/** SQLite's answer to a file that is not a database (or a damaged one), as an error naming the file. */
function unusableFile(path: string, error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== 'SQLITE_NOTADB' && code !== 'SQLITE_CORRUPT') return error;
  return new Error(`${path} is not a SQLite database, or it is damaged (${(error as Error).message}).`, { cause: error });
}

function configure(database: BetterSqlite3.Database, synchronous: SqliteSynchronous): void {
  if (synchronous !== 'NORMAL' && synchronous !== 'FULL') throw new Error(`synchronous must be NORMAL or FULL (got ${String(synchronous)}).`);
  // busy_timeout is set by the constructor's `timeout`, before anything below needs a lock.
  database.pragma('journal_mode = WAL'); // a ':memory:' database keeps its 'memory' journal
  database.pragma(`synchronous = ${synchronous}`);
  database.pragma('foreign_keys = ON');
}

/** One lock per database file for every storage of this process (see sqlite-dialect.ts). */
const fileLocks = (() => {
  const byPath = new Map<string, { lock: AsyncLock; users: number }>();
  return {
    take(path: string): AsyncLock {
      const entry = byPath.get(path) ?? { lock: new AsyncLock(), users: 0 };
      entry.users += 1;
      byPath.set(path, entry);
      return entry.lock;
    },
    give(path: string): void {
      const entry = byPath.get(path);
      if (entry && (entry.users -= 1) <= 0) byPath.delete(path);
    },
  };
})();
