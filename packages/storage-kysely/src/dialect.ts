import type { ColumnDataType, Expression, Transaction } from 'kysely';
import type { Database } from './schema.js';

/**
 * What differs between the SQL databases under the shared kysely repositories. Everything
 * else (queries, upserts, `RETURNING`, migrations) is written once against kysely's builders
 * and runs unchanged on SQLite ≥ 3.35 and PostgreSQL ≥ 12 (docs/decisions/0013-one-kysely-code-base-for-two-dialects.md).
 * How a transaction begins is the dialect's driver's business: SQLite begins `IMMEDIATE`,
 * PostgreSQL `READ COMMITTED`.
 */
export interface StorageDialect {
  readonly name: 'sqlite' | 'postgres' | (string & {});
  /**
   * Column type of keys, ids and hashes. They must compare and sort byte-wise, as JavaScript
   * compares ASCII strings (message pages break timestamp ties by id).
   */
  readonly keyType: ColumnDataType | Expression<unknown>;
  /** True when `error` is a violated primary-key or unique constraint. */
  isUniqueViolation(error: unknown): boolean;
  /**
   * True when a select can lock the rows it reads until the transaction ends (`FOR SHARE`), as
   * PostgreSQL's can. SQLite has no row locks and needs none: its transactions begin IMMEDIATE,
   * holding the database's only write lock until they end.
   */
  readonly locksRows: boolean;
  /**
   * Serializes the transactions that take the lock `name` until `trx` ends, on every instance:
   * for writes that read before they write, such as one account's attribute names and values (the
   * per-account limit, the all-or-nothing value check; `attributes:<accountKey>`) and the
   * interactions of nobody under their cap (`interactions:anonymous`). SQLite needs none: its
   * transactions begin IMMEDIATE, holding its one write lock.
   */
  lock(trx: Transaction<Database>, name: string): Promise<void>;
}
