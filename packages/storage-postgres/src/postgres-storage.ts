import { assertSigningKeySecret, assertTablePrefix, storageNames, TablePrefixPlugin, createKyselyRepositories, migrateToLatest, migrationStatus, checkWrites, countActive, pingDatabase, type Database, type Storage, type StorageWiringOptions } from '@gatehouse/storage-kysely';
import { Kysely, sql, WithSchemaPlugin, type LogConfig } from 'kysely';
import pg from 'pg';
import { withExchangeInOneStatement } from './code-exchange.js';
import { withRefreshTokenWrites } from './refresh-token-writes.js';
import { createPostgresFailureStore, ensureFailedAttemptsTable, type PostgresFailureStore } from './failed-attempts.js';
import { createPostgresKyselyDialect, postgresDialect, watchConnection } from './postgres-dialect.js';

interface PostgresCommonOptions extends StorageWiringOptions {
  /**
   * Schema holding the tables (created by `migrate()` when missing); default: the connection's
   * search_path. Every query names it, so a host's pool and search_path stay as they are.
   */
  schema?: string;
  /**
   * Put before the name of every Gatehouse table and index and of the migrator's tables (`gh_` →
   * `gh_clients`, `gh_gatehouse_migration`); `''` for none. Default: none on a pool the storage
   * creates or in a `schema` of Gatehouse's own; `gh_` on the host's pool in its schema, unless an
   * earlier version created unprefixed tables there (docs/decisions/0146-only-the-tables-a-host-uses.md).
   */
  tablePrefix?: string;
}

/** A pool the storage creates and ends. */
export interface PostgresConnectionOptions extends PostgresCommonOptions {
  /** `postgres://user:password@host:5432/database` */
  connectionString: string;
  /** Connections in the pool of this instance (default 10). */
  poolSize?: number;
  /**
   * How long a request waits for a connection (a free one of the pool, or a new one) before it fails
   * as an outage, a `StorageUnavailableError` (default 5000 ms; docs/decisions/0102-postgresql-connections-that-break.md).
   */
  connectionTimeoutMs?: number;
  pool?: never;
}

/**
 * The core's storage, plus the failure counts every instance shares (docs/decisions/0023,
 * amended), which Gatehouse's router uses when given the storage (docs/decisions/0145).
 */
export interface PostgresStorage extends Storage {
  readonly failedAttempts: PostgresFailureStore;
  /** True unless opened with `sharedByInstances: false` (one instance on this database). */
  readonly sharedByInstances: boolean;
}

/** The host's pool: the storage borrows its connections and `close()` leaves it open. */
export interface PostgresPoolOptions extends PostgresCommonOptions {
  pool: pg.Pool;
  connectionString?: never;
  poolSize?: never;
  connectionTimeoutMs?: never;
}

export type PostgresStorageOptions = PostgresConnectionOptions | PostgresPoolOptions;

/** `connectionTimeoutMs` when none is given. */
export const DEFAULT_CONNECTION_TIMEOUT_MS = 5000;

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * Opens a connection pool to PostgreSQL and the core's repositories on it: the scale-out
 * adapter, for several server instances on one database. Call `migrate()` before use
 * (concurrent migrations from several instances are serialized by the migrator's lock).
 *
 * @example
 * const storage = await openPostgresStorage({ connectionString: process.env.GATEHOUSE_DATABASE_URL!, poolSize: 20 });
 * await storage.migrate();
 *
 * @example
 * // On the host's own pool, in a schema of its own; storage.close() leaves `hostPool` open.
 * const storage = await openPostgresStorage({ pool: hostPool, schema: 'gatehouse' });
 *
 * @example
 * // Private signing keys encrypted at rest; give the router the storage and a shared csrfKey.
 * const storage = await openPostgresStorage({ pool: hostPool, signingKeySecret: process.env.SIGNING_KEY_SECRET });
 * app.use('/auth', createGatehouseRouter({ gatehouse, storage, csrfKey: process.env.CSRF_KEY }));
 */
export async function openPostgresStorage(options: PostgresStorageOptions): Promise<PostgresStorage> {
  return (await openPostgres(options)).storage;
}

/** The storage with its kysely instance and pool (tests look inside). */
export async function openPostgres(options: PostgresStorageOptions, log?: LogConfig): Promise<{ storage: PostgresStorage; db: Kysely<Database>; pool: pg.Pool }> {
  const { schema, signingKeySecret, signingKeySecretName, tablePrefix } = options;
  if (schema !== undefined && !SCHEMA_NAME.test(schema)) throw new Error('The PostgreSQL schema must be a plain identifier ([A-Za-z_][A-Za-z0-9_]*).');
  if (signingKeySecret !== undefined) assertSigningKeySecret(signingKeySecret, signingKeySecretName);
  if (tablePrefix !== undefined && tablePrefix !== '') assertTablePrefix(tablePrefix);
  const ownsPool = options.pool === undefined;
  const pool = options.pool ?? createPool(options as PostgresConnectionOptions, schema);
  // A schema of Gatehouse's own keeps its names apart already: no prefix unless asked for.
  const names = await storageNames({ hostConnection: !ownsPool, tablePrefix: tablePrefix ?? (schema === undefined ? undefined : ''), userTables: options.userTables, hasTable: (name) => tableExists(pool, schema, name) });
  const plugins = [...(names.tablePrefix === '' ? [] : [new TablePrefixPlugin(names.tablePrefix)]), ...(schema === undefined ? [] : [new WithSchemaPlugin(schema)])];
  const db = new Kysely<Database>({ dialect: createPostgresKyselyDialect(pool, { leaveOpen: !ownsPool }), plugins, ...(log ? { log } : {}) });

  const shared = createKyselyRepositories(db, postgresDialect, { signingKeySecret, signingKeySecretName, userTables: names.userTables });
  let closed: Promise<void> | undefined;
  const storage: PostgresStorage = {
    // The code exchange's write in one statement (docs/decisions/0073, 0162); the exchanges and the
    // touches of one turn of the event loop in one statement, a rotation in one (0175).
    repositories: { ...shared, grants: withExchangeInOneStatement(shared.grants, db), refreshTokens: withRefreshTokenWrites(shared.refreshTokens, db) },
    failedAttempts: createPostgresFailureStore(db as Kysely<unknown>),
    // The scale-out adapter: several instances unless the host says otherwise (docs/decisions/0145).
    sharedByInstances: options.sharedByInstances !== false,
    async migrationStatus() {
      return migrationStatus(db, postgresDialect, { ...names, ...(schema === undefined ? {} : { migrationTableSchema: schema }) });
    },
    async migrate() {
      const migrationTableSchema = schema ?? (await sql<{ name: string | null }>`select current_schema() as name`.execute(db)).rows[0]?.name ?? undefined;
      await migrateToLatest(db, postgresDialect, { ...names, ...(migrationTableSchema === undefined ? {} : { migrationTableSchema }) });
      // Not a migration: the limiter's table is PostgreSQL's alone (SQLite serves one process, counted in memory).
      await ensureFailedAttemptsTable(db as Kysely<unknown>);
    },
    ping: () => pingDatabase(db),
    checkWrites: (options) => checkWrites(db, options),
    countActive: (now) => countActive(db, now),
    connectionStats: () => ({ kind: 'postgres', total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: pool.options.max ?? 10 }),
    close() {
      // Waits for queries in flight, then ends every pooled connection of a pool it created.
      closed ??= db.destroy();
      return closed;
    },
  };
  return { storage, db, pool };
}

/** Whether `schema` (default: the connection's current schema) has a table named exactly `name`. */
async function tableExists(pool: pg.Pool, schema: string | undefined, name: string): Promise<boolean> {
  const { rows } = await pool.query('select 1 from information_schema.tables where table_schema = coalesce($1, current_schema()) and table_name = $2', [schema ?? null, name]);
  return rows.length > 0;
}

function createPool(options: PostgresConnectionOptions, schema: string | undefined): pg.Pool {
  const poolSize = options.poolSize ?? 10;
  if (!Number.isInteger(poolSize) || poolSize < 1) throw new Error('The PostgreSQL pool size must be a whole number, 1 or more.');
  const connectionTimeoutMs = options.connectionTimeoutMs ?? DEFAULT_CONNECTION_TIMEOUT_MS;
  if (!Number.isInteger(connectionTimeoutMs) || connectionTimeoutMs < 1) throw new Error('The PostgreSQL connection timeout must be a whole number of milliseconds, 1 or more.');
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: poolSize,
    connectionTimeoutMillis: connectionTimeoutMs,
    // The tables' schema first on the search_path too, for SQL typed by hand (psql, support queries).
    ...(schema === undefined ? {} : { options: `-c search_path=${schema}` }),
  });
  // An idle connection that breaks (server restart) must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  // Nor one that breaks while a request has it: each listens for its own errors from its first moment.
  pool.on('connect', (client) => void watchConnection(client));
  return pool;
}
