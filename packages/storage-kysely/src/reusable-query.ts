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
 * A query that kysely builds and compiles once per database (per dialect) and then runs with the
 * values of each call, for the statements every request makes: building and compiling a query
 * costs more than SQLite takes to run a point read. The SQL is still kysely's, every value still
 * a bound parameter. `build` must not depend on the values: it runs once, with `param` markers.
 *
 * @example
 * const findUser = reusableQuery((db) => db.selectFrom('users').selectAll().where('user_key', '=', param('userKey')));
 * const { rows } = await findUser(db, { userKey });
 */
export function reusableQuery<DB, R, V extends Record<string, unknown> = Record<string, unknown>>(
  build: (db: Kysely<DB>) => Compilable<R>,
): (db: Kysely<DB>, values: V) => Promise<QueryResult<R>> {
  // Keyed by the dialect's adapter, which a database shares with its transactions, and by the
  // plugins that rewrite the SQL as it compiles (a table prefix, a schema): a database and its
  // transactions share them, `withPlugin` gives another list.
  const templates = new WeakMap<object, Array<{ plugins: readonly KyselyPlugin[]; template: Template<R> }>>();
  return (db, values) => {
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
    const { compiled, slots } = template;
    const parameters: unknown[] = [];
    for (const [index, slot] of slots.entries()) {
      if (slot === undefined) parameters.push(compiled.parameters[index]);
      else if (Object.hasOwn(values, slot)) parameters.push(values[slot]);
      else return Promise.reject(new Error(`reusableQuery: no value for ${slot}`));
    }
    return db.executeQuery({ ...compiled, parameters });
  };
}

function samePlugins(a: readonly KyselyPlugin[], b: readonly KyselyPlugin[]): boolean {
  return a.length === b.length && a.every((plugin, index) => plugin === b[index]);
}
