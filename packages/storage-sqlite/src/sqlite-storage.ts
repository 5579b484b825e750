import { mkdirSync, realpathSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { assertSigningKeySecret, assertTablePrefix, storageNames, createKyselyRepositories, migrateToLatest, migrationStatus, checkWrites, countActive, pingDatabase, TablePrefixPlugin, type Database, type Storage, type StorageWiringOptions } from '@gatehouse/storage-kysely';
import { Kysely, sql, type LogConfig } from 'kysely';
import { AsyncLock } from './async-lock.js';
import { setDirectExecutor } from './direct-executor.js';
import { LockContention } from './lock-contention.js';
import { SERVING_CONNECTION_AUTOCHECKPOINT_PAGES, startBackgroundCheckpoints, WAL_SIZE_LIMIT_BYTES, type BackgroundCheckpoints } from './background-checkpoints.js';
import { WriteGate } from './write-gate.js';
import { driveWriteThread, startWriteThread, writeThreadOptions, type WriteThread } from './write-thread.js';
import { DEFAULT_BUSY_TIMEOUT_MS } from './deadline.js';
import { sharedWriteThreadLink, type SharedWriteThreadChannel } from './shared-write-thread.js';
import { createSqliteKyselyDialect, sqliteDialect } from './sqlite-dialect.js';
import { createSqliteFailureStore, ensureFailedAttemptsTable } from './failed-attempts.js';
import { withSqliteWrites } from './sqlite-writes.js';

interface SqliteCommonOptions extends StorageWiringOptions {
  /**
   * Put before the name of every Gatehouse table and index, and of the migrator's tables, so the
   * storage shares a database with the host application's own tables (`gh_` → `gh_clients`,
   * `gh_gatehouse_migration`, …). Letters, digits and `_`, not starting with a digit; `''` for
   * none. Default: none in a file the storage opens; `gh_` on the host's connection, unless an
   * earlier version created unprefixed tables there (docs/decisions/0146-only-the-tables-a-host-uses.md).
   */
  tablePrefix?: string;
}

/** A database file the storage opens, configures and closes. */
export interface SqliteFileOptions extends SqliteCommonOptions {
  /** Path of the database file (created with its directory when missing), or ':memory:'. */
  filename: string;
  database?: never;
  /**
   * How long a request may wait in all for the database's write lock while another connection
   * (the CLI, another process) holds it, however many requests wait before it (default 5000 ms).
   * The waits do not block the event loop; a request still waiting then fails with a busy
   * `StorageUnavailableError` (docs/decisions/0101-bounded-sqlite-lock-waits.md).
   */
  busyTimeoutMs?: number;
  /**
   * What a commit waits for (docs/decisions/0010-sqlite-durability.md). `NORMAL` (the default): a
   * commit survives the process being killed, not an OS crash or power loss; `FULL`: every commit
   * waits for an fsync of the WAL and survives power loss too.
   */
  synchronous?: SqliteSynchronous;
  /**
   * Copy the WAL into the database file from a background thread instead of inside a commit of
   * this connection (default true; docs/decisions/0068-checkpoints-off-the-event-loop.md).
   * `'in-another-process'`: another process serving the same file runs that thread (one of
   * several workers, docs/decisions/0171-serve-workers.md); this connection keeps only the
   * fallback checkpoints it makes when the WAL grows past `SERVING_CONNECTION_AUTOCHECKPOINT_PAGES`.
   */
  backgroundCheckpoints?: boolean | 'in-another-process';
  /**
   * Run the code exchange's write transaction on a worker thread with its own connection instead
   * of on the event loop, committing the writes that arrive together at once (default true;
   * docs/decisions/0075-code-exchange-writes-on-a-thread.md). `{ shared: channel }`: the one
   * thread that another process runs for every process serving the file (`hostSharedWriteThread`,
   * docs/decisions/0173-one-write-thread-for-all-workers.md), reached over `channel`.
   */
  writeThread?: boolean | { shared: SharedWriteThreadChannel };
}

/**
 * A connection the host opened and configured (journal mode, `busy_timeout`, `synchronous`): the
 * storage uses it as it is and `close()` leaves it open. Foreign keys must be on (better-sqlite3's
 * default) since Gatehouse's tables cascade deletes through them.
 */
export interface SqliteConnectionOptions extends SqliteCommonOptions {
  database: BetterSqlite3.Database;
  filename?: never;
}

export type SqliteStorageOptions = SqliteFileOptions | SqliteConnectionOptions;

export type SqliteSynchronous = 'NORMAL' | 'FULL';


/**
 * Opens (creating when needed) a SQLite database file, or takes the host's open connection, and
 * the core's repositories on it. Call `migrate()` before use. Connection set-up of a file it opens:
 * WAL, foreign keys on, `busy_timeout`, `synchronous=NORMAL` unless `synchronous: 'FULL'`
 * (docs/decisions/0010-sqlite-durability.md). Write transactions are `BEGIN IMMEDIATE`
 * (docs/decisions/0011-sqlite-begin-immediate.md). In the host's database, `tablePrefix` keeps
 * Gatehouse's tables apart from the host's (docs/decisions/0018-storage-in-the-hosts-database.md).
 *
 * @example
 * const storage = await openSqliteStorage({ filename: './data/gatehouse.db' });
 * await storage.migrate();
 * const gatehouse = createGatehouse({ repositories: storage.repositories, ... });
 *
 * @example
 * // In the host's own database, beside its tables; storage.close() leaves `hostDb` open.
 * const storage = await openSqliteStorage({ database: hostDb, tablePrefix: 'gh_' });
 *
 * @example
 * // Private signing keys encrypted at rest (docs/decisions/0145-embedders-production-wiring.md).
 * const storage = await openSqliteStorage({ filename: './data/gatehouse.db', signingKeySecret: process.env.SIGNING_KEY_SECRET });
 */
export async function openSqliteStorage(options: SqliteStorageOptions): Promise<Storage> {
  return (await openSqlite(options)).storage;
}

/** The storage with its kysely instance and raw connection (tests look at query plans). */
export async function openSqlite(
  options: SqliteStorageOptions,
  log?: LogConfig,
): Promise<{ storage: Storage; db: Kysely<Database>; database: BetterSqlite3.Database }> {
  const { tablePrefix, signingKeySecret, signingKeySecretName } = options;
  if (tablePrefix !== undefined && tablePrefix !== '') assertTablePrefix(tablePrefix);
  if (signingKeySecret !== undefined) assertSigningKeySecret(signingKeySecret, signingKeySecretName);
  const { database, ownsDatabase, lockKey, checkpoints, writeThread, busyTimeoutMs } = options.database === undefined ? openFile(options) : borrow(options.database);
  const hasTable = async (name: string) => database.prepare("select 1 from sqlite_master where type = 'table' and name = ?").get(name) !== undefined;
  const names = await storageNames({ hostConnection: !ownsDatabase, tablePrefix, userTables: options.userTables, hasTable });
  const { lock, gate, contention } = lockKey === undefined ? { lock: connectionLock(database), gate: undefined, contention: new LockContention() } : fileLocks.take(lockKey);
  // The code exchange's writes go to the thread only where its statements run directly (not when kysely logs them).
  const writer = writeThread === undefined || gate === undefined || log ? undefined : writeThread(gate, contention);
  const plugins = names.tablePrefix === '' ? [] : [new TablePrefixPlugin(names.tablePrefix)];
  const dialect = createSqliteKyselyDialect(database, lock, {
    leaveOpen: !ownsDatabase,
    ...(gate ? { gate } : {}),
    ...(writer ? { writer } : {}),
    contention,
    ...(busyTimeoutMs === undefined ? {} : { busyTimeoutMs }),
  });
  const db = new Kysely<Database>({ dialect, plugins, ...(log ? { log } : {}) });
  // The hot statements, the code exchange's write and a user's attribute values run on SQLite's
  // own paths (decisions 0067, 0075, 0162); kysely's own when queries are logged (the log is
  // kysely's). The table prefix plugin leaves results untouched.
  if (!log) setDirectExecutor(db, dialect.direct);
  const shared = createKyselyRepositories(db, sqliteDialect, { signingKeySecret, signingKeySecretName, userTables: names.userTables });
  const repositories = log ? shared : withSqliteWrites(shared, db, dialect.direct, { userTables: names.userTables });

  let closed: Promise<void> | undefined;
  // Several processes on one file (a CLI beside the server is not one): the host says so. On a
  // file the storage opens, they then count failures in it too (docs/decisions/0171-serve-workers.md).
  const sharedByInstances = options.sharedByInstances === true;
  const sharedFailureCounts = sharedByInstances && options.database === undefined;
  const storage: Storage = {
    repositories,
    sharedByInstances,
    ...(sharedFailureCounts ? { failedAttempts: createSqliteFailureStore(db) } : {}),
    async migrate() {
      await migrateToLatest(db, sqliteDialect, names);
      if (sharedFailureCounts) await ensureFailedAttemptsTable(db);
    },
    migrationStatus: () => migrationStatus(db, sqliteDialect, names),
    ping: () => pingDatabase(db),
    checkWrites: (options) => checkWrites(db, options),
    countActive: (now) => countActive(db, now),
    connectionStats: () => ({ kind: 'sqlite', waiting: lock.waiting + (gate?.waiting ?? 0), inThread: gate?.inThread ?? 0 }),
    close() {
      closed ??= (async () => {
        try {
          // Writes in flight on the thread are answered before it stops.
          await writer?.stop();
          await checkpoints?.stop();
          // SQLite's advice for long-lived connections: refresh the planner's statistics on close.
          if (ownsDatabase) await sql`pragma optimize`.execute(db);
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

interface Connection {
  database: BetterSqlite3.Database;
  /** True when the storage opened it, so closes it. */
  ownsDatabase: boolean;
  /** The real path of the file, which keys the lock every storage of that file shares in this process. */
  lockKey: string | undefined;
  /** The background checkpoints of a file the storage opened. */
  checkpoints?: BackgroundCheckpoints;
  /** Starts the write thread of a file the storage opened (unless turned off). */
  writeThread?: (gate: WriteGate, contention: LockContention) => WriteThread;
  /**
   * A connection the storage opened waits for another connection's write lock itself, this long
   * at most per request (its own `busy_timeout` is 0 once set up); the host's waits by its own `busy_timeout`.
   */
  busyTimeoutMs?: number;
}

function openFile(options: SqliteFileOptions): Connection {
  const inMemory = options.filename === ':memory:' || options.filename === '';
  const path = inMemory ? ':memory:' : resolve(options.filename);
  if (!inMemory) mkdirSync(dirname(path), { recursive: true });

  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  if (!Number.isInteger(busyTimeoutMs) || busyTimeoutMs < 0) throw new Error(`busyTimeoutMs must be a whole number of milliseconds, 0 or more (got ${String(busyTimeoutMs)}).`);
  const synchronous = options.synchronous ?? 'NORMAL';
  // The set-up below waits for a lock as SQLite does; then the storage waits itself (decision 0101).
  const database = new BetterSqlite3(path, { timeout: busyTimeoutMs });
  try {
    configure(database, synchronous);
    database.pragma('busy_timeout = 0');
    // A burst's WAL is given back once the WAL restarts (background-checkpoints.ts).
    if (!inMemory) database.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
    if (inMemory) return { database, ownsDatabase: true, lockKey: undefined, busyTimeoutMs };
    const lockKey = realpathSync(path);
    const shared = typeof options.writeThread === 'object' ? options.writeThread.shared : undefined;
    const writeThread =
      options.writeThread === false
        ? undefined
        : (gate: WriteGate, contention: LockContention) =>
            shared !== undefined
              ? driveWriteThread((events) => sharedWriteThreadLink(shared, events), gate, busyTimeoutMs, contention)
              : startWriteThread(path, gate, writeThreadOptions(busyTimeoutMs, synchronous, autocheckpointPages(options)), contention);
    if (options.backgroundCheckpoints === false) return { database, ownsDatabase: true, lockKey, busyTimeoutMs, ...(writeThread ? { writeThread } : {}) };
    // The serving connection still checkpoints past this many frames (background-checkpoints.ts).
    database.pragma(`wal_autocheckpoint = ${SERVING_CONNECTION_AUTOCHECKPOINT_PAGES}`);
    // One process of those serving the file runs the thread (docs/decisions/0171-serve-workers.md).
    if (options.backgroundCheckpoints === 'in-another-process') return { database, ownsDatabase: true, lockKey, busyTimeoutMs, ...(writeThread ? { writeThread } : {}) };
    const checkpoints = startBackgroundCheckpoints(path, { busyTimeoutMs, synchronous });
    return { database, ownsDatabase: true, lockKey, checkpoints, busyTimeoutMs, ...(writeThread ? { writeThread } : {}) };
  } catch (error) {
    database.close();
    throw unusableFile(path, error);
  }
}

/** The write thread's connection checkpoints as the serving connection does: SQLite's 1,000 pages without background checkpoints. */
function autocheckpointPages(options: SqliteFileOptions): number {
  return options.backgroundCheckpoints === false ? 1000 : SERVING_CONNECTION_AUTOCHECKPOINT_PAGES;
}

function borrow(database: BetterSqlite3.Database): Connection {
  if (!database.open) throw new Error('The SQLite connection given to Gatehouse is closed.');
  if (database.readonly) throw new Error('The SQLite connection given to Gatehouse is read-only; Gatehouse writes.');
  if (database.pragma('foreign_keys', { simple: true }) !== 1) {
    throw new Error("Gatehouse's tables delete through foreign keys (ON DELETE CASCADE): turn them on for this connection first (`database.pragma('foreign_keys = ON')`).");
  }
  return { database, ownsDatabase: false, lockKey: database.memory ? undefined : realpathSync(database.name) };
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

/** One lock per in-memory connection given to several storages. */
const connectionLocks = new WeakMap<BetterSqlite3.Database, AsyncLock>();
function connectionLock(database: BetterSqlite3.Database): AsyncLock {
  let lock = connectionLocks.get(database);
  if (lock === undefined) connectionLocks.set(database, (lock = new AsyncLock()));
  return lock;
}

/**
 * One lock per database file for every storage of this process (see sqlite-dialect.ts), one
 * gate between its serving connections' writes and its write threads' (write-gate.ts), and what
 * they know of another process holding its write lock (lock-contention.ts).
 */
const fileLocks = (() => {
  const byPath = new Map<string, { lock: AsyncLock; gate: WriteGate; contention: LockContention; users: number }>();
  return {
    take(path: string): { lock: AsyncLock; gate: WriteGate; contention: LockContention } {
      const entry = byPath.get(path) ?? { lock: new AsyncLock(), gate: new WriteGate(), contention: new LockContention(), users: 0 };
      entry.users += 1;
      byPath.set(path, entry);
      return entry;
    },
    give(path: string): void {
      const entry = byPath.get(path);
      if (entry && (entry.users -= 1) <= 0) byPath.delete(path);
    },
  };
})();
