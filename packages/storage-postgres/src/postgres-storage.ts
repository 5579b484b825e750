import { createKyselyRepositories, migrateToLatest, pingDatabase, type Database, type Storage } from '@gatehouse/storage-kysely';
import { Kysely, sql, type LogConfig } from 'kysely';
import pg from 'pg';
import { createPostgresKyselyDialect, postgresDialect } from './postgres-dialect.js';

export interface PostgresStorageOptions {
  /** `postgres://user:password@host:5432/database` */
  connectionString: string;
  /** Connections in the pool of this instance (default 10). */
  poolSize?: number;
  /** Schema holding the tables (created by `migrate()` when missing); default: the connection's search_path. */
  schema?: string;
}

const INT8_OID = 20;
const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * Opens a connection pool to PostgreSQL and the core's repositories on it: the scale-out
 * adapter, for several server instances on one database. Call `migrate()` before use
 * (concurrent migrations from several instances are serialized by the migrator's lock).
 *
 * @example
 * const storage = await openPostgresStorage({ connectionString: process.env.GATEHOUSE_DATABASE_URL!, poolSize: 20 });
 * await storage.migrate();
 */
export async function openPostgresStorage(options: PostgresStorageOptions): Promise<Storage> {
  return (await openPostgres(options)).storage;
}

/** The storage with its kysely instance and pool (tests look inside). */
export async function openPostgres(options: PostgresStorageOptions, log?: LogConfig): Promise<{ storage: Storage; db: Kysely<Database>; pool: pg.Pool }> {
  const { schema } = options;
  if (schema !== undefined && !SCHEMA_NAME.test(schema)) throw new Error('The PostgreSQL schema must be a plain identifier ([A-Za-z_][A-Za-z0-9_]*).');
  const poolSize = options.poolSize ?? 10;
  if (!Number.isInteger(poolSize) || poolSize < 1) throw new Error('The PostgreSQL pool size must be a whole number, 1 or more.');

  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: poolSize,
    // Epoch-millisecond columns and counts are int8: parse them to numbers (exact below 2^53).
    types: { getTypeParser: ((oid: number, format?: 'text' | 'binary') => (oid === INT8_OID ? parseInt8 : pg.types.getTypeParser(oid, format))) as typeof pg.types.getTypeParser },
    ...(schema === undefined ? {} : { options: `-c search_path=${schema}` }),
  });
  // An idle connection that breaks (server restart) must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  const db = new Kysely<Database>({ dialect: createPostgresKyselyDialect(pool), ...(log ? { log } : {}) });

  let closed: Promise<void> | undefined;
  const storage: Storage = {
    repositories: createKyselyRepositories(db, postgresDialect),
    async migrate() {
      const migrationTableSchema = schema ?? (await sql<{ name: string | null }>`select current_schema() as name`.execute(db)).rows[0]?.name ?? undefined;
      await migrateToLatest(db, postgresDialect, migrationTableSchema === undefined ? {} : { migrationTableSchema });
    },
    ping: () => pingDatabase(db),
    close() {
      // Waits for queries in flight, then ends every pooled connection.
      closed ??= db.destroy();
      return closed;
    },
  };
  return { storage, db, pool };
}

function parseInt8(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new Error(`An int8 value is beyond 2^53: ${text}`);
  return value;
}
