import {
  IdentifierNode,
  OperationNodeTransformer,
  type CreateIndexNode,
  type DropIndexNode,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryId,
  type QueryResult,
  type RootOperationNode,
  type TableNode,
  type UnknownRow,
} from 'kysely';
import type { Database } from './schema.js';

/**
 * The tables of Gatehouse-owned users and the product APIs (users, their phone numbers, accounts,
 * memberships, attributes, messages): created only with the storages' `userTables`
 * (docs/decisions/0146-only-the-tables-a-host-uses.md).
 */
export const USER_TABLES = ['users', 'user_phone_numbers', 'accounts', 'memberships', 'attribute_names', 'user_attribute_values', 'messages'] as const satisfies ReadonlyArray<keyof Database>;

/** The tables of the authorization server itself, always created. */
export const OAUTH_TABLES = ['clients', 'authorization_codes', 'grants', 'refresh_tokens', 'sessions', 'signing_keys', 'interactions', 'consents', 'readiness_probe'] as const satisfies ReadonlyArray<keyof Database>;

/** Every table of the schema (the type below fails to compile when a table of `Database` is missing). */
export const GATEHOUSE_TABLES = [...OAUTH_TABLES, ...USER_TABLES] as const satisfies ReadonlyArray<keyof Database>;

type Unlisted = Exclude<keyof Database, (typeof GATEHOUSE_TABLES)[number]>;
// A table added to `Database` but not to the list would keep its bare name in a shared database.
const everyTableListed: [Unlisted] extends [never] ? true : Unlisted = true;
void everyTableListed;

/** A prefix is a plain SQL identifier start, short enough that every prefixed name stays one. */
const TABLE_PREFIX = /^[A-Za-z_][A-Za-z0-9_]{0,29}$/;

/** Throws unless `prefix` can start a table name unquoted ([A-Za-z_][A-Za-z0-9_]*, at most 30 characters). */
export function assertTablePrefix(prefix: string): void {
  if (!TABLE_PREFIX.test(prefix)) throw new Error(`The table prefix must be a plain identifier ([A-Za-z_][A-Za-z0-9_]*, at most 30 characters); got ${JSON.stringify(prefix)}.`);
}

/**
 * Puts `prefix` before the name of every Gatehouse table and of every index a query creates or
 * drops, so Gatehouse's tables can live beside a host application's own (its `users` table, its
 * `sessions` index) in one database (docs/decisions/0018-storage-in-the-hosts-database.md). Only
 * the tables of `GATEHOUSE_TABLES` are renamed: the database's own catalog (`sqlite_master`), the
 * migrator's tables (named with the prefix already, see `migrateToLatest`) and anything else keep
 * their names. The rewrite happens when a query is compiled, so reusable queries compiled once
 * carry it too.
 *
 * @example
 * const db = new Kysely<Database>({ dialect, plugins: [new TablePrefixPlugin('gh_')] });
 * // db.selectFrom('users') → select … from "gh_users"
 */
export class TablePrefixPlugin implements KyselyPlugin {
  readonly #transformer: TablePrefixTransformer;

  constructor(readonly prefix: string) {
    assertTablePrefix(prefix);
    this.#transformer = new TablePrefixTransformer(prefix);
  }

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return this.#transformer.transformNode(args.node, args.queryId);
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

const TABLES: ReadonlySet<string> = new Set(GATEHOUSE_TABLES);

class TablePrefixTransformer extends OperationNodeTransformer {
  readonly #prefix: string;

  constructor(prefix: string) {
    super();
    this.#prefix = prefix;
  }

  protected override transformTable(node: TableNode, queryId?: QueryId): TableNode {
    const transformed = super.transformTable(node, queryId);
    const name = transformed.table.identifier.name;
    if (!TABLES.has(name)) return transformed;
    return { ...transformed, table: { ...transformed.table, identifier: IdentifierNode.create(this.#prefix + name) } };
  }

  // Index names share one namespace with table names in SQLite (and per schema in PostgreSQL).
  protected override transformCreateIndex(node: CreateIndexNode, queryId?: QueryId): CreateIndexNode {
    const transformed = super.transformCreateIndex(node, queryId);
    return { ...transformed, name: IdentifierNode.create(this.#prefix + transformed.name.name) };
  }

  protected override transformDropIndex(node: DropIndexNode, queryId?: QueryId): DropIndexNode {
    const transformed = super.transformDropIndex(node, queryId);
    return { ...transformed, name: { ...transformed.name, identifier: IdentifierNode.create(this.#prefix + transformed.name.identifier.name) } };
  }
}
