import type BetterSqlite3 from 'better-sqlite3';
import {
  CompiledQuery,
  SelectQueryNode,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type QueryResult,
  type SqliteDatabase,
  type TransactionSettings,
} from 'kysely';
import type { AsyncLock } from './async-lock.js';
import type { StorageDialect } from '@gatehouse/storage-kysely';
import { clockMs, pause, retryDelayMs } from './deadline.js';
import { createDirectExecutor, type DirectExecutor } from './direct-executor.js';
import { LockContention } from './lock-contention.js';
import { DEFAULT_STATEMENT_CACHE_SIZE, withStatementCache } from './statement-cache.js';
import { asStorageFailure, busyTimeoutExceeded, isBusy } from './storage-failures.js';
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
  // BEGIN IMMEDIATE already holds the database's only write lock for the whole transaction.
  lock: async () => undefined,
};

/** How the storage's connection is shared and how it waits for SQLite's write lock. */
export interface SqliteConnectionSharing {
  /** It is the host's: destroying the kysely instance leaves it open. */
  leaveOpen?: boolean;
  /** The gate between this process's connections and its write threads (a file). */
  gate?: WriteGate;
  /** This storage's write thread, if it has one. */
  writer?: WriteThread;
  /** Whether another connection is known to hold the file's write lock (shared by the file's storages in this process). */
  contention?: LockContention;
  /**
   * Set when the storage waits for SQLite's write lock itself (a file it opened, whose
   * connection's own `busy_timeout` is 0): a statement that meets the lock outside a transaction
   * steps aside and tries again until this long after its request began, then fails with a
   * `StorageUnavailableError` (docs/decisions/0101-bounded-sqlite-lock-waits.md). Unset (the
   * host's connection): its `busy_timeout` waits, and a busy answer is final.
   */
  busyTimeoutMs?: number;
}

/**
 * kysely's dialect for the storage's better-sqlite3 connection (docs/decisions/0011-sqlite-begin-immediate.md):
 * - transactions begin IMMEDIATE, taking the write lock up front, so a transaction that reads
 *   then writes waits for the lock instead of failing with SQLITE_BUSY when another
 *   connection (the CLI, another process) wrote in between;
 * - the connection is held under `lock`, which every storage of the same file in this process
 *   shares: better-sqlite3 blocks the event loop while it waits for a lock, so two connections of
 *   one process must never wait on each other;
 * - with `busyTimeoutMs`, waits for another process's write lock are asynchronous and bounded:
 *   the statement gives the connection back while it waits (decision 0101);
 * - SQLite's "cannot be used now" answers become `StorageUnavailableError`s (storage-failures.ts).
 * It also lets the migrator run migrations in a transaction (SQLite's DDL is transactional).
 * With a `gate` (a file: docs/decisions/0075-code-exchange-writes-on-a-thread.md) the connection
 * is also held under the gate between this process's connections and its write threads, read or
 * write alike: kysely's path does not say which a query is before it runs, and it carries no hot
 * query (those take the direct executor). `writer` is this storage's write thread, if it has one.
 */
export function createSqliteKyselyDialect(
  database: BetterSqlite3.Database,
  lock: AsyncLock,
  options: SqliteConnectionSharing = {},
): Dialect & { readonly direct: DirectExecutor } {
  // Prepared statements are kept for reuse (statement-cache.ts), by kysely's driver and by the
  // direct executor alike.
  const cached = withStatementCache(database, DEFAULT_STATEMENT_CACHE_SIZE, options);
  const { gate, writer, busyTimeoutMs } = options;
  const contention = options.contention ?? new LockContention();
  const sharing: Sharing = { lock, contention, ...(gate ? { gate } : {}), ...(busyTimeoutMs === undefined ? {} : { busyTimeoutMs }) };
  return {
    direct: createDirectExecutor(cached, lock, { ...(gate ? { gate } : {}), ...(writer ? { writer } : {}), contention, retriesBusy: busyTimeoutMs !== undefined }),
    createAdapter: () => new TransactionalDdlSqliteAdapter(),
    createDriver: () => new SharedConnectionDriver(cached, () => database.inTransaction, sharing),
    createIntrospector: (db) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  };
}

class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

interface Sharing {
  lock: AsyncLock;
  gate?: WriteGate;
  contention: LockContention;
  busyTimeoutMs?: number;
}

/** kysely's driver on the one shared connection: each acquisition is a `Lease` of it. */
class SharedConnectionDriver implements Driver {
  constructor(
    private readonly database: SqliteDatabase,
    private readonly inTransaction: () => boolean,
    private readonly sharing: Sharing,
  ) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const lease = new Lease(this.database, this.inTransaction, this.sharing);
    await lease.take();
    return lease;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings = {}): Promise<void> {
    if (settings.isolationLevel !== undefined || settings.accessMode !== undefined) {
      throw new Error('SQLite transactions are always serializable; no isolation level or access mode can be set.');
    }
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as Lease).give();
  }

  async destroy(): Promise<void> {
    this.database.close();
  }
}

/** `BEGIN`: SQLite calls it read-only (it writes nothing itself), but it opens a write. */
const BEGIN = /^\s*begin\b/i;

/**
 * One turn of the shared connection, from `take` to `give`, with the deadline of the request it
 * serves (`busyTimeoutMs` after it began): its waits for the connection and the gate, behind this
 * process's other requests, and for another connection's write lock all end then (decision 0101).
 * It takes the gate only for a statement that writes (or `BEGIN`): reads never wait behind the
 * write thread. While another connection is known to hold the lock (`LockContention`), a write
 * that meets it fails at once.
 */
class Lease implements DatabaseConnection {
  readonly #deadline: number | undefined;
  /** What this lease holds now: a lease that timed out waiting holds nothing. */
  #lockHeld = false;
  #gateHeld = false;

  constructor(
    private readonly database: SqliteDatabase,
    private readonly inTransaction: () => boolean,
    private readonly sharing: Sharing,
  ) {
    this.#deadline = sharing.busyTimeoutMs === undefined ? undefined : clockMs() + sharing.busyTimeoutMs;
  }

  /** Takes the connection's lock, waiting in turn until the deadline: then it throws a busy `StorageUnavailableError`. */
  async take(): Promise<void> {
    if (!(await this.sharing.lock.acquire(this.#deadline))) throw this.#timedOut();
    this.#lockHeld = true;
  }

  give(): void {
    if (this.#gateHeld) {
      this.#gateHeld = false;
      this.sharing.gate?.leaveServing();
    }
    if (this.#lockHeld) {
      this.#lockHeld = false;
      this.sharing.lock.release();
    }
  }

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (!this.#lockHeld) return Promise.reject(this.#timedOut());
    let writes: boolean;
    try {
      writes = this.#writes(query.sql);
    } catch (error) {
      // SQLite refused to prepare it (a syntax error, a missing table, a file it cannot read).
      return Promise.reject(asStorageFailure(error));
    }
    // The gate is taken before the lock: without it at once, the lock goes back while this waits.
    if (writes && !this.#gateHeld && !this.#tryGate()) return this.#afterTaking(writes).then(() => this.executeQuery<R>(query));
    try {
      return Promise.resolve(this.#execute<R>(query, writes));
    } catch (error) {
      if (!this.#mayRetry(error)) return Promise.reject(asStorageFailure(error));
      return this.#retry<R>(query, writes, error);
    }
  }

  async *streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    if (!this.#lockHeld) throw this.#timedOut();
    if (!SelectQueryNode.is(query.query)) throw new Error('Sqlite driver only supports streaming of select queries');
    const iterator = this.database.prepare(query.sql).iterate(query.parameters) as IterableIterator<R>;
    while (true) {
      let next: IteratorResult<R>;
      try {
        next = iterator.next();
      } catch (error) {
        throw asStorageFailure(error);
      }
      if (next.done) return;
      yield { rows: [next.value] };
    }
  }

  /** Whether the statement needs the gate: it writes, or it begins a transaction (which will). */
  #writes(sql: string): boolean {
    if (this.sharing.gate === undefined) return false;
    return BEGIN.test(sql) || (this.database.prepare(sql) as { readonly readonly?: boolean }).readonly !== true;
  }

  #tryGate(): boolean {
    if (this.sharing.gate?.tryEnterServing() !== true) return false;
    this.#gateHeld = true;
    return true;
  }

  /** Gives everything back, then takes the gate (if `writes`) and the lock again, in that order, until the deadline. */
  async #afterTaking(writes: boolean): Promise<void> {
    this.give();
    if (writes && this.sharing.gate !== undefined) {
      if (!(await this.sharing.gate.enterServing(this.#deadline))) throw this.#timedOut();
      this.#gateHeld = true;
    }
    try {
      await this.take();
    } catch (error) {
      this.give();
      throw error;
    }
  }

  /** The same result shape as kysely's SqliteConnection. A write that went through frees the lock's contention. */
  #execute<R>(query: CompiledQuery, writes: boolean): QueryResult<R> {
    const statement = this.database.prepare(query.sql);
    if (statement.reader) {
      const rows = statement.all(query.parameters) as R[];
      if (writes) this.sharing.contention.cleared();
      return { rows };
    }
    const { changes, lastInsertRowid } = statement.run(query.parameters);
    if (writes) this.sharing.contention.cleared();
    return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
  }

  /** Only a statement outside a transaction (a `BEGIN IMMEDIATE`, a lone statement) may run again: nothing of it was written. */
  #mayRetry(error: unknown): boolean {
    return this.#deadline !== undefined && isBusy(error) && !this.inTransaction();
  }

  /**
   * Waits for another connection's write lock without holding anything, then tries again, until
   * the deadline; at once when the lock is known to be held elsewhere (`LockContention`).
   */
  async #retry<R>(query: CompiledQuery, writes: boolean, first: unknown): Promise<QueryResult<R>> {
    let failure = first;
    for (let attempt = 0; ; attempt += 1) {
      const delay = this.sharing.contention.latched ? 0 : retryDelayMs(attempt, this.#deadline as number);
      if (delay <= 0) {
        this.sharing.contention.met();
        throw this.#timedOut(failure);
      }
      // Everything goes back while this request waits: reads and other requests go on.
      this.give();
      await pause(delay);
      await this.#afterTaking(writes);
      try {
        return this.#execute<R>(query, writes);
      } catch (error) {
        if (!this.#mayRetry(error)) throw asStorageFailure(error);
        failure = error;
      }
    }
  }

  #timedOut(cause?: unknown) {
    return busyTimeoutExceeded(this.sharing.busyTimeoutMs ?? 0, cause);
  }
}
