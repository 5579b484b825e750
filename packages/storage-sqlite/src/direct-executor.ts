import type { DirectExecutor, DirectStep } from '@gatehouse/storage-kysely';
import type { QueryResult, SqliteDatabase, SqliteStatement } from 'kysely';
import type { AsyncLock } from './async-lock.js';
import type { LockContention } from './lock-contention.js';
import { asStorageFailure, isBusy } from './storage-failures.js';
import type { WriteGate } from './write-gate.js';
import type { WriteThread } from './write-thread.js';

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
