import type { DirectExecutor, DirectStep } from '@gatehouse/storage-kysely';
import type { QueryResult, SqliteDatabase } from 'kysely';
import type { AsyncLock } from './async-lock.js';

/**
 * Runs kysely's compiled statements on the better-sqlite3 connection synchronously
 * (docs/decisions/0067-synchronous-sqlite-transactions.md): no connection provider, no promise
 * per statement, and a write transaction (`BEGIN IMMEDIATE` … `COMMIT`) with no `await` inside,
 * so nothing else runs in this process while it holds SQLite's write lock. It takes the same
 * `lock` as kysely's driver (sqlite-dialect.ts), only when it is free at once: when a kysely
 * transaction holds the connection across an `await`, it answers undefined and the caller takes
 * kysely's path, which waits its turn. Statements come from the same cache as kysely's (`database`).
 */
export function createDirectExecutor(database: SqliteDatabase, lock: AsyncLock): DirectExecutor {
  const execute = <R>(sql: string, parameters: readonly unknown[]): QueryResult<R> => {
    const statement = database.prepare(sql);
    // The same result shape as kysely's SqliteConnection.executeQuery.
    if (statement.reader) return { rows: statement.all(parameters) as R[] };
    const { changes, lastInsertRowid } = statement.run(parameters);
    return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
  };
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
    run(sql, parameters) {
      if (!lock.tryAcquire()) return undefined;
      try {
        return execute(sql, parameters);
      } finally {
        lock.release();
      }
    },

    transaction(body) {
      if (!lock.tryAcquire()) return undefined;
      try {
        begin();
        let value;
        try {
          value = body(execute as DirectStep);
          commit();
        } catch (error) {
          rollBackQuietly();
          throw error;
        }
        return { value };
      } finally {
        lock.release();
      }
    },
  };
}
