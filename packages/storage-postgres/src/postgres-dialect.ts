import type { StorageDialect } from '@gatehouse/storage-kysely';
import {
  PostgresAdapter,
  PostgresDriver,
  PostgresIntrospector,
  PostgresQueryCompiler,
  sql,
  type DatabaseConnection,
  type Dialect,
  type TransactionSettings,
} from 'kysely';
import type pg from 'pg';

/** The PostgreSQL side of the shared repositories (@gatehouse/storage-kysely). */
export const postgresDialect: StorageDialect = {
  name: 'postgres',
  // Byte-wise order whatever the database's locale, as JavaScript compares the ids.
  keyType: sql`text collate "C"`,
  isUniqueViolation(error) {
    return (error as { code?: unknown } | null)?.code === '23505'; // unique_violation
  },
  async lockAccountAttributes(trx, accountKey) {
    // Held until the transaction ends; serializes attribute writers of one account across
    // every instance, so the per-account limit and all-or-nothing checks cannot race.
    await sql`select pg_advisory_xact_lock(hashtextextended(${`gatehouse.attributes:${accountKey}`}, 0))`.execute(trx);
  },
};

/**
 * kysely's PostgreSQL dialect whose transactions begin READ COMMITTED whatever the server's
 * default: single use rests on conditional UPDATEs (row locks) and attribute writes on an
 * advisory lock, so no statement needs a stronger level, and none can fail with a
 * serialization error that would need a retry (docs/decisions/0014-postgresql-concurrency.md).
 */
export function createPostgresKyselyDialect(pool: pg.Pool): Dialect {
  return {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new ReadCommittedPostgresDriver({ pool }),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  };
}

class ReadCommittedPostgresDriver extends PostgresDriver {
  override async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    await super.beginTransaction(connection, { ...settings, isolationLevel: settings.isolationLevel ?? 'read committed' });
  }
}
