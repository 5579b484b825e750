import type { ColumnDataType, Expression, RawBuilder, Transaction } from 'kysely';
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
  /**
   * Where set, the reads every request makes by key (`pointRead`: a grant by id, a code or a
   * refresh token by hash) of the requests served in one turn of the event loop go out as one
   * statement (docs/decisions/0175-one-statement-per-turn-on-postgresql.md): the right side of
   * `key = …` that matches any value of the array parameter `name` (`param(name)`). PostgreSQL's
   * `any($1)`, where every statement is a round trip; SQLite's reads run in process, where a batch
   * would only add a wait.
   */
  anyOfArray?(name: string): RawBuilder<string>;
}
