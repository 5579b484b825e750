import type BetterSqlite3 from 'better-sqlite3';
import {
  CompiledQuery,
  SqliteAdapter,
  SqliteDriver,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type TransactionSettings,
} from 'kysely';
import type { AsyncLock } from './async-lock.js';
import type { DirectExecutor, StorageDialect } from '@gatehouse/storage-kysely';
import { createDirectExecutor } from './direct-executor.js';
import { DEFAULT_STATEMENT_CACHE_SIZE, withStatementCache } from './statement-cache.js';
import type { WriteGate } from './write-gate.js';
import type { WriteThread } from './write-thread.js';

/** The SQLite side of the shared repositories. */
export const sqliteDialect: StorageDialect = {
  name: 'sqlite',
  // SQLite compares text byte-wise (BINARY collation) by default.
  keyType: 'text',
  isUniqueViolation(error) {
    const code = (error as { code?: unknown } | null)?.code;
    return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
  },
  locksRows: false,
  writesInCtes: false,
  // BEGIN IMMEDIATE already holds the database's only write lock for the whole transaction.
  lock: async () => undefined,
};

/**
 * kysely's better-sqlite3 dialect with two changes (docs/decisions/0011-sqlite-begin-immediate.md):
 * - transactions begin IMMEDIATE, taking the write lock up front, so a transaction that reads
 *   then writes waits on `busy_timeout` instead of failing with SQLITE_BUSY when another
 *   connection (the CLI, another process) wrote in between;
 * - the connection is held under `lock`, which every storage of the same file in this process
 *   shares: better-sqlite3 blocks the event loop while it waits for a lock, so two connections of
 *   one process must never wait on each other.
 * It also lets the migrator run migrations in a transaction (SQLite's DDL is transactional).
 * With `leaveOpen`, destroying the kysely instance leaves `database` open (it is the host's).
 * With a `gate` (a file: docs/decisions/0075-code-exchange-writes-on-a-thread.md) the connection
 * is also held under the gate between this process's connections and its write threads, read or
 * write alike: kysely's path does not say which a query is before it runs, and it carries no hot
 * query (those take the direct executor). `writer` is this storage's write thread, if it has one.
 */
export function createSqliteKyselyDialect(
  database: BetterSqlite3.Database,
  lock: AsyncLock,
  options: { leaveOpen?: boolean; gate?: WriteGate; writer?: WriteThread } = {},
): Dialect & { readonly direct: DirectExecutor } {
  // Prepared statements are kept for reuse (statement-cache.ts), by kysely's driver and by the
  // direct executor alike.
  const cached = withStatementCache(database, DEFAULT_STATEMENT_CACHE_SIZE, options);
  return {
    direct: createDirectExecutor(cached, lock, options),
    createAdapter: () => new TransactionalDdlSqliteAdapter(),
    createDriver: () => new ImmediateSqliteDriver({ database: cached }, lock, options.gate),
    createIntrospector: (db) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  };
}

class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

class ImmediateSqliteDriver extends SqliteDriver {
  readonly #lock: AsyncLock;
  readonly #gate: WriteGate | undefined;

  constructor(config: ConstructorParameters<typeof SqliteDriver>[0], lock: AsyncLock, gate: WriteGate | undefined) {
    super(config);
    this.#lock = lock;
    this.#gate = gate;
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    await this.#lock.acquire();
    try {
      await this.#gate?.enterServing();
    } catch (error) {
      this.#lock.release();
      throw error;
    }
    try {
      return await super.acquireConnection();
    } catch (error) {
      this.#gate?.leaveServing();
      this.#lock.release();
      throw error;
    }
  }

  override async releaseConnection(): Promise<void> {
    try {
      await super.releaseConnection();
    } finally {
      this.#gate?.leaveServing();
      this.#lock.release();
    }
  }

  override async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings = {}): Promise<void> {
    if (settings.isolationLevel !== undefined || settings.accessMode !== undefined) {
      throw new Error('SQLite transactions are always serializable; no isolation level or access mode can be set.');
    }
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}
