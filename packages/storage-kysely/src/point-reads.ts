import type { Expression, Kysely, SelectQueryBuilder } from 'kysely';
import { batchPerTurn } from './batch-per-turn.js';
import type { StorageDialect } from './dialect.js';
import { param, reusableQuery } from './reusable-query.js';
import type { Database } from './schema.js';

/** What `pointRead` reads: a query of rows, the column that keys them, and a row's key. */
export interface PointReadQuery<Row> {
  /** The query without its key condition (joins and columns): built once, with `param` markers only. */
  query: (db: Kysely<Database>) => SelectQueryBuilder<Database, keyof Database, Row>;
  /** The key column, qualified where the query joins (`refresh_tokens.token_hash`): at most one row per key. */
  keyColumn: string;
  /** The key of a row the query returns. */
  keyOf: (row: Row) => string;
}

/**
 * A read of at most one row by its key, for the reads every request makes (a grant by id, a code
 * or a refresh token by hash). One statement per call; where the dialect batches reads
 * (`StorageDialect.anyOfArray`, PostgreSQL) the calls made in one turn of the event loop go out
 * as one statement, `key = any($1)`, each call answered with its own row
 * (docs/decisions/0175-one-statement-per-turn-on-postgresql.md). Both forms come from the one
 * `query`, so they read the same columns and joins.
 *
 * @example
 * const findGrant = pointRead(db, dialect, { query: (db) => db.selectFrom('grants').selectAll(), keyColumn: 'grant_id', keyOf: (row) => row.grant_id });
 * const row = await findGrant('g1'); // undefined when there is none
 */
export function pointRead<Row>(db: Kysely<Database>, dialect: StorageDialect, read: PointReadQuery<Row>): (key: string) => Promise<Row | undefined> {
  const { anyOfArray } = dialect;
  if (anyOfArray === undefined) {
    const one = reusableQuery((db: Kysely<Database>) => read.query(db).where(read.keyColumn as never, '=', param<never>('key')));
    return async (key) => (await one(db, { key })).rows[0];
  }
  const many = reusableQuery((db: Kysely<Database>) => read.query(db).where(read.keyColumn as never, '=', anyOfArray('keys') as Expression<never>));
  return batchPerTurn(async (keys: readonly string[]) => {
    const { rows } = await many(db, { keys: [...new Set(keys)] });
    const byKey = new Map(rows.map((row) => [read.keyOf(row), row]));
    return keys.map((key) => byKey.get(key));
  });
}
