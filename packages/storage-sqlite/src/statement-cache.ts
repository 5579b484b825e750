import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

export const DEFAULT_STATEMENT_CACHE_SIZE = 200;

/**
 * The database as kysely's SQLite driver sees it (`prepare` and `close`), with prepared statements
 * kept for reuse: kysely prepares every query it runs, and preparing costs more than running
 * most of ours. Statements are keyed by their SQL text (parameters are bound at each run), at most
 * `maxStatements` of them, the least recently used leaving first. A statement still iterating
 * (a streamed query) is never handed out twice: a fresh one is prepared instead. SQLite itself
 * re-prepares a kept statement after a schema change. `leaveOpen`: `close` forgets the statements
 * but leaves `database` open.
 */
export function withStatementCache(
  database: BetterSqlite3.Database,
  maxStatements = DEFAULT_STATEMENT_CACHE_SIZE,
  options: { leaveOpen?: boolean } = {},
): SqliteDatabase & { readonly cachedStatements: number } {
  const statements = new Map<string, BetterSqlite3.Statement>();
  return {
    prepare(sql: string): SqliteStatement {
      const kept = statements.get(sql);
      if (kept !== undefined) {
        if (kept.busy) return database.prepare(sql);
        // Re-inserted: the Map's order is the order of last use.
        statements.delete(sql);
        statements.set(sql, kept);
        return kept;
      }
      const statement = database.prepare(sql);
      statements.set(sql, statement);
      if (statements.size > maxStatements) statements.delete(statements.keys().next().value as string);
      return statement;
    },
    close() {
      statements.clear();
      // A connection the storage was given stays open: its owner closes it.
      if (!options.leaveOpen) database.close();
    },
    get cachedStatements() {
      return statements.size;
    },
  };
}
