import { setQueryRunner, type BoundQuery } from '@gatehouse/storage-kysely';
import type { CompiledQuery, Kysely, QueryResult, SqliteDatabase, SqliteStatement } from 'kysely';
import type { AsyncLock } from './async-lock.js';
import type { LockContention } from './lock-contention.js';
import { asStorageFailure, isBusy } from './storage-failures.js';
import type { WriteGate } from './write-gate.js';
import type { BackgroundStatement, WriteThread } from './write-thread.js';

/**
 * Runs compiled queries synchronously on the better-sqlite3 connection, without kysely's
 * connection provider and promise chain (docs/decisions/0067-synchronous-sqlite-transactions.md).
 * The SQL is still the one kysely compiled. Each method returns `undefined` when it cannot run now
 * (another caller holds the connection, e.g. a kysely transaction waiting on an `await`): the
 * caller then takes kysely's asynchronous path, which waits for the connection.
 */
export interface DirectExecutor {
  /** Runs one statement outside any transaction. */
  run<R>(sql: string, parameters: readonly unknown[]): QueryResult<R> | undefined;
  /**
   * Runs `body` in one write transaction (`BEGIN IMMEDIATE` … `COMMIT`, rolled back when it
   * throws), in which `step` runs statements. `body` must not await.
   */
  transaction<T>(body: (step: DirectStep) => T): { value: T } | undefined;
  /**
   * Where the storage has one (a file it opened, docs/decisions/0075-code-exchange-writes-on-a-thread.md):
   * runs `statements` as one write transaction on the write thread's connection, off the event loop.
   * Resolves true once committed, false (nothing written) when a statement marked `mustChange`
   * changed no row; undefined when the thread has stopped or failed (the caller writes on this connection).
   */
  writeOnThread?(statements: readonly BackgroundStatement[]): Promise<boolean> | undefined;
}

/** Runs one statement inside a `DirectExecutor` transaction. */
export type DirectStep = <R>(sql: string, parameters: readonly unknown[]) => QueryResult<R>;

/** Runs a bound query (`ReusableQuery.bind`) as one statement of a `DirectExecutor` transaction. */
export function runBound<R>(step: DirectStep, query: BoundQuery<R>): QueryResult<R> {
  return step<R>(query.sql, query.parameters);
}

/** By the `Kysely` instance: not its transactions, nor its `withPlugin` copies. */
const directExecutors = new WeakMap<object, DirectExecutor>();

/**
 * Lets `reusableQuery`s on `db` (not on its transactions) run through `executor`, and through
 * kysely's path when the connection is busy. Only for a database whose plugins leave results
 * untouched (they may rewrite the SQL: that is compiled in) and that logs no queries.
 */
export function setDirectExecutor<DB>(db: Kysely<DB>, executor: DirectExecutor): void {
  directExecutors.set(db, executor);
  setQueryRunner(db, <R>(query: CompiledQuery<R>) => {
    const direct = executor.run<R>(query.sql, query.parameters);
    return direct === undefined ? db.executeQuery(query) : Promise.resolve(direct);
  });
}

/** The direct executor of `db`, if one was set for this very instance. */
export function directExecutorOf<DB>(db: Kysely<DB>): DirectExecutor | undefined {
  return directExecutors.get(db);
}

/**
 * Runs kysely's compiled statements on the better-sqlite3 connection synchronously
 * (docs/decisions/0067-synchronous-sqlite-transactions.md): no connection provider, no promise
 * per statement, and a write transaction (`BEGIN IMMEDIATE` … `COMMIT`) with no `await` inside,
 * so nothing else runs in this process while it holds SQLite's write lock. It takes the same
 * `lock` as kysely's driver (sqlite-dialect.ts), only when it is free at once: when a kysely
 * transaction holds the connection across an `await`, it answers undefined and the caller takes
 * kysely's path, which waits its turn. Statements come from the same cache as kysely's (`database`).
 * A write of this connection also takes `gate` (a file's, decision 0075), only when no write is in
 * flight on a write thread of the file; `writeOnThread` hands writes to `writer`, this storage's thread.
 * With `retriesBusy` (the storage waits for SQLite's write lock itself, decision 0101), a statement
 * or `BEGIN IMMEDIATE` that meets another process's write lock declines too (nothing was written):
 * kysely's path waits for the lock without blocking the event loop. SQLite's "cannot be used now"
 * answers are thrown as `StorageUnavailableError`s (storage-failures.ts). A write that goes through
 * tells `contention` that the lock is free.
 */
export function createDirectExecutor(
  database: SqliteDatabase,
  lock: AsyncLock,
  { gate, writer, contention, retriesBusy = false }: { gate?: WriteGate; writer?: WriteThread; contention?: LockContention; retriesBusy?: boolean } = {},
): DirectExecutor {
  const executeStatement = <R>(statement: SqliteStatement, parameters: readonly unknown[]): QueryResult<R> => {
    // The same result shape as kysely's SqliteConnection.executeQuery.
    if (statement.reader) return { rows: statement.all(parameters) as R[] };
    const { changes, lastInsertRowid } = statement.run(parameters);
    return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
  };
  const execute = <R>(sql: string, parameters: readonly unknown[]): QueryResult<R> => executeStatement<R>(database.prepare(sql), parameters);
  const statement = (sql: string) => () => database.prepare(sql).run([]);
  const begin = statement('begin immediate');
  const commit = statement('commit');
  const rollback = statement('rollback');

  /** After a failed statement or commit; SQLite may have rolled back already (the original error is the one to throw). */
  const rollBackQuietly = () => {
    try {
      rollback();
    } catch {
      // no transaction left to roll back
    }
  };

  return {
    run<R>(sql: string, parameters: readonly unknown[]) {
      if (!lock.tryAcquire()) return undefined;
      const statement = database.prepare(sql);
      // A read needs no gate: in WAL it never waits for a writer.
      const writes = gate !== undefined && !isReadOnly(statement);
      if (writes && !gate.tryEnterServing()) {
        lock.release();
        return undefined;
      }
      try {
        const result = executeStatement<R>(statement, parameters);
        if (writes) contention?.cleared();
        return result;
      } catch (error) {
        // A lone statement that met the write lock wrote nothing: kysely's path waits and runs it.
        if (retriesBusy && isBusy(error)) return undefined;
        throw asStorageFailure(error);
      } finally {
        if (writes) gate.leaveServing();
        lock.release();
      }
    },

    transaction(body) {
      if (!lock.tryAcquire()) return undefined;
      if (gate !== undefined && !gate.tryEnterServing()) {
        lock.release();
        return undefined;
      }
      try {
        try {
          begin();
        } catch (error) {
          // Another process holds the write lock: kysely's path waits for it and runs the body.
          if (retriesBusy && isBusy(error)) return undefined;
          throw asStorageFailure(error);
        }
        let value;
        try {
          value = body(execute as DirectStep);
          commit();
          contention?.cleared();
        } catch (error) {
          rollBackQuietly();
          throw asStorageFailure(error);
        }
        return { value };
      } finally {
        gate?.leaveServing();
        lock.release();
      }
    },

    ...(writer === undefined ? {} : { writeOnThread: (statements: Parameters<WriteThread['write']>[0]) => writer.write(statements) }),
  };
}

/** better-sqlite3's statements say whether they leave the database unchanged (kysely's type omits it). */
function isReadOnly(statement: object): boolean {
  return (statement as { readonly readonly?: boolean }).readonly === true;
}
