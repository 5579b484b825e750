import type { Compilable, CompiledQuery, Kysely, KyselyPlugin, QueryResult } from 'kysely';

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
 * Runs compiled queries synchronously on a database whose driver can (better-sqlite3), without
 * kysely's connection provider and promise chain (docs/decisions/0067-synchronous-sqlite-transactions.md).
 * The SQL is still the one kysely compiled. Each method returns `undefined` when it cannot run now
 * (another caller holds the connection, e.g. a kysely transaction waiting on an `await`): the
 * caller then takes kysely's asynchronous path, which waits for the connection.
 */
export interface DirectExecutor {
  /** Runs one statement outside any transaction. */
  run<R>(sql: string, parameters: readonly unknown[]): QueryResult<R> | undefined;
  /**
   * Runs `body` in one write transaction (SQLite: `BEGIN IMMEDIATE` … `COMMIT`, rolled back when it
   * throws), in which `step` runs statements. `body` must not await.
   */
  transaction<T>(body: (step: DirectStep) => T): { value: T } | undefined;
  /**
   * Where the dialect has one (SQLite files, docs/decisions/0075-code-exchange-writes-on-a-thread.md):
   * runs `statements` as one write transaction on another thread's connection, off the event loop.
   * Resolves true once committed, false (nothing written) when a statement marked `mustChange`
   * changed no row; undefined when it cannot (the caller writes on this connection).
   */
  writeOnThread?(statements: readonly BackgroundStatement[]): Promise<boolean> | undefined;
}

/** A statement of a `writeOnThread` write. */
export interface BackgroundStatement {
  sql: string;
  /** Strings, finite numbers and null: they cross to the thread as JSON. */
  parameters: readonly unknown[];
  /** The write is refused (rolled back, answered false) when this statement changes no row. */
  mustChange: boolean;
}

/** Runs one statement inside a `DirectExecutor` transaction. */
export type DirectStep = <R>(sql: string, parameters: readonly unknown[]) => QueryResult<R>;

/** A compiled query's SQL with one call's values bound, for a `DirectExecutor`. */
export interface BoundQuery<R> {
  sql: string;
  parameters: unknown[];
  readonly __rows?: R;
}

/** Runs a bound query as one statement of a `DirectExecutor` transaction. */
export function runBound<R>(step: DirectStep, query: BoundQuery<R>): QueryResult<R> {
  return step<R>(query.sql, query.parameters);
}

/** By the dialect's adapter, with the plugin list of the database that registered it. */
const directExecutors = new WeakMap<object, { executor: DirectExecutor; plugins: readonly KyselyPlugin[] }>();

/**
 * Lets `reusableQuery`s on `db` (not on its transactions) run through `executor` instead of
 * kysely's executor. Only for a database whose plugins leave results untouched (they may rewrite
 * the SQL: that is compiled in) and that logs no queries.
 */
export function setDirectExecutor<DB>(db: Kysely<DB>, executor: DirectExecutor): void {
  const { adapter, plugins } = db.getExecutor();
  directExecutors.set(adapter, { executor, plugins });
}

/** The direct executor of `db`, if it has one, `db` is not a transaction and has the same plugins. */
export function directExecutorOf<DB>(db: Kysely<DB>): DirectExecutor | undefined {
  if (db.isTransaction) return undefined;
  const { adapter, plugins } = db.getExecutor();
  const registered = directExecutors.get(adapter);
  // `withPlugin` gives another list, whose results may need transforming: kysely's path then.
  return registered !== undefined && samePlugins(registered.plugins, plugins) ? registered.executor : undefined;
}

/** A reusable query: call it to run it through kysely (or the database's direct executor). */
export interface ReusableQuery<DB, R, V extends Record<string, unknown>> {
  (db: Kysely<DB>, values: V): Promise<QueryResult<R>>;
  /** The compiled SQL with `values` bound, to run in a `DirectExecutor` transaction. */
  bind(db: Kysely<DB>, values: V): BoundQuery<R>;
}

/**
 * A query that kysely builds and compiles once per database (per dialect) and then runs with the
 * values of each call, for the statements every request makes: building and compiling a query
 * costs more than SQLite takes to run a point read. The SQL is still kysely's, every value still
 * a bound parameter. `build` must not depend on the values: it runs once, with `param` markers.
 * On a database with a direct executor (SQLite, `setDirectExecutor`) a call outside a
 * transaction runs synchronously when the connection is free.
 *
 * @example
 * const findUser = reusableQuery((db) => db.selectFrom('users').selectAll().where('user_key', '=', param('userKey')));
 * const { rows } = await findUser(db, { userKey });
 */
export function reusableQuery<DB, R, V extends Record<string, unknown> = Record<string, unknown>>(
  build: (db: Kysely<DB>) => Compilable<R>,
): ReusableQuery<DB, R, V> {
  // Keyed by the dialect's adapter, which a database shares with its transactions, and by the
  // plugins that rewrite the SQL as it compiles (a table prefix, a schema): a database and its
  // transactions share them, `withPlugin` gives another list.
  const templates = new WeakMap<object, Array<{ plugins: readonly KyselyPlugin[]; template: Template<R> }>>();
  const templateFor = (db: Kysely<DB>): Template<R> => {
    const executor = db.getExecutor();
    let compiledFor = templates.get(executor.adapter);
    if (compiledFor === undefined) templates.set(executor.adapter, (compiledFor = []));
    let template = compiledFor.find((entry) => samePlugins(entry.plugins, executor.plugins))?.template;
    if (template === undefined) {
      const compiled = build(db).compile();
      const slots = compiled.parameters.map((value) => (typeof value === 'string' && value.startsWith(MARK) ? value.slice(MARK.length, -1) : undefined));
      template = { compiled, slots };
      compiledFor.push({ plugins: executor.plugins, template });
    }
    return template;
  };
  const bind = (db: Kysely<DB>, values: V): BoundQuery<R> & { compiled: CompiledQuery<R> } => {
    const { compiled, slots } = templateFor(db);
    const parameters: unknown[] = [];
    for (let index = 0; index < slots.length; index += 1) {
      const slot = slots[index];
      if (slot === undefined) parameters.push(compiled.parameters[index]);
      else if (Object.hasOwn(values, slot)) parameters.push(values[slot]);
      else throw new Error(`reusableQuery: no value for ${slot}`);
    }
    return { sql: compiled.sql, parameters, compiled };
  };
  const run = (db: Kysely<DB>, values: V): Promise<QueryResult<R>> => {
    try {
      const bound = bind(db, values);
      const direct = directExecutorOf(db)?.run<R>(bound.sql, bound.parameters);
      if (direct !== undefined) return Promise.resolve(direct);
      return db.executeQuery({ ...bound.compiled, parameters: bound.parameters });
    } catch (error) {
      return Promise.reject(error);
    }
  };
  return Object.assign(run, { bind: (db: Kysely<DB>, values: V): BoundQuery<R> => bind(db, values) });
}

function samePlugins(a: readonly KyselyPlugin[], b: readonly KyselyPlugin[]): boolean {
  return a.length === b.length && a.every((plugin, index) => plugin === b[index]);
}
