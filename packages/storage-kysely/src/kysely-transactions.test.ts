import { describeRepositoryContract } from '@gatehouse/core/testing';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StorageDialect } from './dialect.js';
import { createKyselyRepositories } from './kysely-repositories.js';
import { migrateToLatest } from './migrations.js';
import type { Database } from './schema.js';

/**
 * The repositories on kysely alone: no direct executor and no write thread (storage-sqlite's) and
 * no writing CTEs (PostgreSQL's), so the code exchange takes its last form, the kysely
 * transaction, which the storage adapters reach only when their connection is busy. The contract
 * proves that form keeps every rule and every column (the grant's resources, migration 0007).
 */
const plainSqlite: StorageDialect = {
  name: 'sqlite',
  keyType: 'text',
  isUniqueViolation: (error) => ['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY'].includes((error as { code?: string } | null)?.code ?? ''),
  locksRows: false,
  lock: async () => undefined,
};

describeRepositoryContract(
  'kysely transactions (no direct executor, no writing CTEs)',
  async () => {
    const database = new BetterSqlite3(':memory:');
    database.pragma('foreign_keys = ON');
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
    await migrateToLatest(db, plainSqlite);
    return { repositories: createKyselyRepositories(db, plainSqlite), close: () => db.destroy() };
  },
  { describe, it, expect, beforeEach, afterEach },
);
