import { createMigrationProvider, MIGRATION_LOCK_TABLE, MIGRATION_TABLE } from '@gatehouse/storage-kysely';
import { Migrator, sql } from 'kysely';
import { StorageUnavailableError } from '@gatehouse/core';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresDialect } from './postgres-dialect.js';
import { openPostgres, openPostgresStorage } from './postgres-storage.js';
import { dropSchema, freshSchemaName, POSTGRES_URL, warnIfSkipped } from './test-support/postgres.js';

warnIfSkipped('openPostgresStorage');

describe.skipIf(!POSTGRES_URL)('openPostgresStorage', () => {
  const url = POSTGRES_URL as string;
  const schemas: string[] = [];
  const newSchema = (): string => {
    const schema = freshSchemaName();
    schemas.push(schema);
    return schema;
  };

  afterAll(async () => {
    for (const schema of schemas) await dropSchema(schema);
  });

  it('creates its schema, and migrates twice and from two instances at once without harm', async () => {
    const schema = newSchema();
    const one = await openPostgres({ connectionString: url, schema });
    const two = await openPostgresStorage({ connectionString: url, schema });
    try {
      await Promise.all([one.storage.migrate(), two.migrate()]);
      await one.storage.repositories.accounts.create({ accountKey: 'a1', name: 'kept' });
      await one.storage.migrate();
      await two.migrate();
      expect(await two.repositories.accounts.findByKey('a1')).toEqual({ accountKey: 'a1', name: 'kept' });
      const ran = await sql<{ name: string }>`select name from ${sql.table(`${schema}.gatehouse_migration`)} order by name`.execute(one.db);
      // Every migration recorded once.
      const migrations = Object.keys(await createMigrationProvider(postgresDialect).getMigrations()).sort();
      expect(ran.rows).toEqual(migrations.map((name) => ({ name })));
      expect(migrations.slice(0, 5)).toEqual(['0001_initial', '0002_one_owner_per_phone_number', '0003_interactions', '0004_client_types_and_grant_types', '0005_remembered_consent']);
      const tables = await sql<{ n: number }>`select count(*) as n from pg_tables where schemaname = ${schema}`.execute(one.db);
      expect(tables.rows[0]?.n).toBe(20); // 13 tables, the interactions, the consents, the readiness probe, the limiter's failed attempts, the migrator's two and the user tables' track (decision 0146)
    } finally {
      await one.storage.close();
      await two.close();
    }
  }, 60_000);

  it('refuses migration 0002 while a phone number has several owners, naming them (docs/decisions/0006-one-owner-per-phone-number.md)', async () => {
    const schema = newSchema();
    const { storage, db } = await openPostgres({ connectionString: url, schema });
    try {
      await sql`create schema ${sql.id(schema)}`.execute(db);
      const migrator = new Migrator({
        db,
        provider: createMigrationProvider(postgresDialect),
        migrationTableName: MIGRATION_TABLE,
        migrationLockTableName: MIGRATION_LOCK_TABLE,
        migrationTableSchema: schema,
      });
      expect((await migrator.migrateTo('0001_initial')).error).toBeUndefined();
      for (const userKey of ['u1', 'u2']) {
        await db
          .insertInto('users')
          .values({ user_key: userKey, email: `${userKey}@example.com`, email_folded: `${userKey}@example.com`, given_name: '', family_name: '', locale: 'en', password_hash: 'x' })
          .execute();
      }
      await db.insertInto('user_phone_numbers').values([{ user_key: 'u2', phone_number: '+15551234567' }, { user_key: 'u1', phone_number: '+15551234567' }]).execute();

      await expect(storage.migrate()).rejects.toThrow(
        'Database migration 0002_one_owner_per_phone_number failed: 1 phone number belongs to several users: +15551234567 (users u1, u2).',
      );

      await db.deleteFrom('user_phone_numbers').where('user_key', '=', 'u2').execute();
      await storage.migrate();
      await expect(storage.repositories.users.addPhoneNumber('u2', '+15551234567')).rejects.toMatchObject({ kind: 'conflict', field: 'phone' });
    } finally {
      await storage.close();
    }
  }, 60_000);

  it('runs transactions READ COMMITTED, sizes the pool as told and parses int8 to numbers', async () => {
    const { storage, db, pool } = await openPostgres({ connectionString: url, schema: newSchema(), poolSize: 3 });
    try {
      await storage.migrate();
      const level = await db.transaction().execute(async (trx) => (await sql<{ transaction_isolation: string }>`show transaction_isolation`.execute(trx)).rows[0]);
      expect(level).toEqual({ transaction_isolation: 'read committed' });
      expect(pool.options.max).toBe(3);
      const big = await sql<{ value: unknown }>`select ${'1700000000123'}::int8 as value`.execute(db);
      expect(big.rows[0]?.value).toBe(1_700_000_000_123);
    } finally {
      await storage.close();
    }
  });

  it('answers ping while open and not after close; close twice is harmless', async () => {
    const storage = await openPostgresStorage({ connectionString: url, schema: newSchema() });
    expect(await storage.ping()).toBe(true);
    await storage.close();
    await storage.close();
    expect(await storage.ping()).toBe(false);
  });

  it('checks writes by committing the readiness row (decision 0103)', async () => {
    const storage = await openPostgresStorage({ connectionString: url, schema: newSchema() });
    try {
      await storage.migrate();
      await storage.checkWrites();
      await storage.checkWrites({ bytes: 100_000 });
      await storage.checkWrites();
    } finally {
      await storage.close();
    }
  });

  it('answers ping false when the server cannot be reached, and a write fails as an outage', async () => {
    const storage = await openPostgresStorage({ connectionString: 'postgres://postgres@127.0.0.1:1/none' });
    try {
      expect(await storage.ping()).toBe(false);
      await expect(storage.checkWrites()).rejects.toMatchObject({ name: 'StorageUnavailableError', reason: 'unreachable' });
      await expect(storage.repositories.grants.findById('g1')).rejects.toBeInstanceOf(StorageUnavailableError);
    } finally {
      await storage.close();
    }
  });

  it('refuses a schema name that is not a plain identifier, and a pool size below 1', async () => {
    await expect(openPostgresStorage({ connectionString: url, schema: 'x; drop table users' })).rejects.toThrow(/plain identifier/);
    await expect(openPostgresStorage({ connectionString: url, poolSize: 0 })).rejects.toThrow(/pool size/);
  });
});
