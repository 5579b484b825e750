import { MIGRATION_TABLE } from './migrations.js';

/** The prefix of Gatehouse's tables on a host's connection or pool when the host names none. */
export const DEFAULT_HOST_TABLE_PREFIX = 'gh_';

/** What a storage's tables are called, and whether it has the user tables. */
export interface StorageNames {
  tablePrefix: string;
  userTables: boolean;
}

/**
 * The names and parts of a storage's schema (docs/decisions/0146-only-the-tables-a-host-uses.md):
 *
 * - In a database Gatehouse opens itself (a file, a connection string): no prefix and every
 *   table, as always (the reference server's databases keep their names).
 * - On the host's connection or pool: the tables prefixed `gh_` and only the authorization
 *   server's (no `users`, `sessions`… of Gatehouse's beside the host's), unless the host says
 *   otherwise (`tablePrefix`, `userTables: true`). A database an earlier version already set up
 *   there keeps what it has: unprefixed names when its tables are unprefixed (a `gatehouse_migration`
 *   table and no `gh_gatehouse_migration`), and its user tables when it has them.
 *
 * `hasTable` says whether the database (the storage's schema) has a table of that exact name.
 *
 * @example
 * const names = await storageNames({ hostConnection: true, hasTable: (name) => tableExists(db, name) });
 * // { tablePrefix: 'gh_', userTables: false } on a database new to Gatehouse
 */
export async function storageNames(options: {
  hostConnection: boolean;
  tablePrefix?: string | undefined;
  userTables?: boolean | undefined;
  hasTable: (name: string) => Promise<boolean>;
}): Promise<StorageNames> {
  if (!options.hostConnection) return { tablePrefix: options.tablePrefix ?? '', userTables: options.userTables ?? true };
  const tablePrefix =
    options.tablePrefix ??
    ((await options.hasTable(MIGRATION_TABLE)) && !(await options.hasTable(DEFAULT_HOST_TABLE_PREFIX + MIGRATION_TABLE)) ? '' : DEFAULT_HOST_TABLE_PREFIX);
  const userTables = options.userTables ?? ((await options.hasTable(tablePrefix + MIGRATION_TABLE)) && (await options.hasTable(`${tablePrefix}users`)));
  return { tablePrefix, userTables };
}
