import { createKyselyRepositories, migrateToLatest, checkWrites, countActive, pingDatabase, type Database, type Storage } from '@gatehouse/storage-kysely';
import { Kysely, sql, WithSchemaPlugin, type LogConfig } from 'kysely';
import pg from 'pg';
import { createPostgresFailureStore, ensureFailedAttemptsTable, type PostgresFailureStore } from './failed-attempts.js';
import { createPostgresKyselyDialect, postgresDialect, watchConnection } from './postgres-dialect.js';

interface PostgresCommonOptions {
  /**
   * Schema holding the tables (created by `migrate()` when missing); default: the connection's
   * search_path. Every query names it, so a host's pool and search_path stay as they are.
   */
  schema?: string;
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

/** The core's storage, plus the failure counts every instance shares (docs/decisions/0023, amended). */
export interface PostgresStorage extends Storage {
  failedAttempts: PostgresFailureStore;
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
 */
export async function openPostgresStorage(options: PostgresStorageOptions): Promise<PostgresStorage> {
  return (await openPostgres(options)).storage;
}

/** The storage with its kysely instance and pool (tests look inside). */
export async function openPostgres(options: PostgresStorageOptions, log?: LogConfig): Promise<{ storage: PostgresStorage; db: Kysely<Database>; pool: pg.Pool }> {
  const { schema } = options;
  if (schema !== undefined && !SCHEMA_NAME.test(schema)) throw new Error('The PostgreSQL schema must be a plain identifier ([A-Za-z_][A-Za-z0-9_]*).');
  const ownsPool = options.pool === undefined;
  const pool = options.pool ?? createPool(options as PostgresConnectionOptions, schema);
  const plugins = schema === undefined ? [] : [new WithSchemaPlugin(schema)];
  const db = new Kysely<Database>({ dialect: createPostgresKyselyDialect(pool, { leaveOpen: !ownsPool }), plugins, ...(log ? { log } : {}) });

  let closed: Promise<void> | undefined;
  const storage: PostgresStorage = {
    repositories: createKyselyRepositories(db, postgresDialect),
    failedAttempts: createPostgresFailureStore(db as Kysely<unknown>),
    async migrate() {
      const migrationTableSchema = schema ?? (await sql<{ name: string | null }>`select current_schema() as name`.execute(db)).rows[0]?.name ?? undefined;
      await migrateToLatest(db, postgresDialect, migrationTableSchema === undefined ? {} : { migrationTableSchema });
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
