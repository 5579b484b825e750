import type { Compilable, CompiledQuery, Kysely, QueryResult, Transaction } from 'kysely';

const MARK = '\u0000gatehouse-parameter:';

/**
 * Stands for the value `name` while a `reusableQuery` is compiled: put it where the value goes,
 * as a query builder would take the value itself.
 */
export function param<T = string>(name: string): T {
  return `${MARK}${name}\u0000` as T;
}

interface Template<R> {
  compiled: CompiledQuery<R>;
  /** For each compiled parameter, the name of the value it stands for, or undefined for a constant. */
  slots: Array<string | undefined>;
}

/**
 * Runs a reusable query's compiled statement, with one call's values bound, on the database it was
 * registered for (`setQueryRunner`): how a dialect's storage runs its hot statements its own way
 * (SQLite: synchronously, docs/decisions/0067-synchronous-sqlite-transactions.md). It answers as
 * `db.executeQuery` would, and takes kysely's path itself when it cannot run the statement now.
 */
export type QueryRunner = <R>(query: CompiledQuery<R>) => Promise<QueryResult<R>>;

/** A compiled query's SQL with one call's values bound, for a dialect's own executor. */
export interface BoundQuery<R> {
  sql: string;
  parameters: unknown[];
  readonly __rows?: R;
}

/** By the database (the `Kysely` instance itself: not its transactions, nor its `withPlugin` copies). */
const runners = new WeakMap<object, QueryRunner>();

/**
 * Lets `reusableQuery`s on `db` (not on its transactions, nor on a copy with other plugins) run
 * through `runner` instead of `db.executeQuery`. Only for a database whose plugins leave results
 * untouched (they may rewrite the SQL: that is compiled in) and that logs no queries.
 */
export function setQueryRunner<DB>(db: Kysely<DB>, runner: QueryRunner): void {
  runners.set(db, runner);
}

/** A transaction opened by `inTransaction`, by the database it belongs to: it shares that database's compiled queries. */
const transactionsOf = new WeakMap<object, object>();

/**
 * `db.transaction().execute(body)`, whose `reusableQuery`s use the queries `db` compiled (kysely
 * says nothing public of a transaction's database: a transaction opened otherwise compiles its own).
 */
export function inTransaction<DB, T>(db: Kysely<DB>, body: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
  return db.transaction().execute((trx) => {
    transactionsOf.set(trx, transactionsOf.get(db) ?? db);
    return body(trx);
  });
}

/** A reusable query: call it to run it through kysely (or the database's `QueryRunner`). */
export interface ReusableQuery<DB, R, V extends Record<string, unknown>> {
  (db: Kysely<DB>, values: V): Promise<QueryResult<R>>;
  /** The compiled SQL with `values` bound, for a dialect's own executor (a synchronous transaction, a write thread). */
  bind(db: Kysely<DB>, values: V): BoundQuery<R>;
}

/**
 * A query that kysely builds and compiles once per database (per dialect and plugins) and then
 * runs with the values of each call, for the statements every request makes: building and
 * compiling a query costs more than SQLite takes to run a point read. The SQL is still kysely's,
 * every value still a bound parameter. `build` must not depend on the values: it runs once, with
 * `param` markers. The compiled query is kept per `Kysely` instance (a `withPlugin` copy compiles
 * its own) and shared with the transactions `inTransaction` opens on it. On a database with a
 * `QueryRunner` (`setQueryRunner`) a call runs through it.
 *
 * @example
 * const findUser = reusableQuery((db) => db.selectFrom('users').selectAll().where('user_key', '=', param('userKey')));
 * const { rows } = await findUser(db, { userKey });
 */
export function reusableQuery<DB, R, V extends Record<string, unknown> = Record<string, unknown>>(
  build: (db: Kysely<DB>) => Compilable<R>,
): ReusableQuery<DB, R, V> {
  const templates = new WeakMap<object, Template<R>>();
  const templateFor = (db: Kysely<DB>): Template<R> => {
    const key = transactionsOf.get(db) ?? db;
    let template = templates.get(key);
    if (template === undefined) {
      const compiled = build(db).compile();
      const slots = compiled.parameters.map((value) => (typeof value === 'string' && value.startsWith(MARK) ? value.slice(MARK.length, -1) : undefined));
      templates.set(key, (template = { compiled, slots }));
    }
    return template;
  };
  const compile = (db: Kysely<DB>, values: V): CompiledQuery<R> => {
    const { compiled, slots } = templateFor(db);
    const parameters: unknown[] = [];
    for (let index = 0; index < slots.length; index += 1) {
      const slot = slots[index];
      if (slot === undefined) parameters.push(compiled.parameters[index]);
      else if (Object.hasOwn(values, slot)) parameters.push(values[slot]);
      else throw new Error(`reusableQuery: no value for ${slot}`);
    }
    return { ...compiled, parameters };
  };
  const run = (db: Kysely<DB>, values: V): Promise<QueryResult<R>> => {
    try {
      const query = compile(db, values);
      const runner = runners.get(db);
      return runner === undefined ? db.executeQuery(query) : runner(query);
    } catch (error) {
      return Promise.reject(error);
    }
  };
  return Object.assign(run, {
    bind: (db: Kysely<DB>, values: V): BoundQuery<R> => {
      const { sql, parameters } = compile(db, values);
      return { sql, parameters: parameters as unknown[] };
    },
  });
}
