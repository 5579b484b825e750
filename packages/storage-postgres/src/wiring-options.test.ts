import { KeyDecryptionError, OAUTH_TABLES, USER_TABLES, UserTablesOffError } from '@gatehouse/storage-kysely';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAILED_ATTEMPTS_TABLE } from './failed-attempts.js';
import { openPostgres, openPostgresStorage } from './postgres-storage.js';
import { dropSchema, freshSchemaName, POSTGRES_URL, warnIfSkipped } from './test-support/postgres.js';

warnIfSkipped('the production wiring options');

const SECRET = 'a signing key secret of at least 32 characters';
const key = (kid: string) => ({ kid, alg: 'ES256' as const, publicJwk: { kty: 'EC', kid }, privateJwk: { kty: 'EC', kid, d: 'private-part' }, createdAt: new Date(1_000), retiredAt: null });

// The production wiring an embedder gets from the storage (docs/decisions/0145-embedders-production-wiring.md).
describe.skipIf(!POSTGRES_URL)('openPostgresStorage: production wiring options', () => {
  const url = POSTGRES_URL as string;
  const schema = freshSchemaName();
  afterAll(() => dropSchema(schema));

  it('stores private signing keys encrypted under signingKeySecret, and reads them back only with it', async () => {
    const { storage, db } = await openPostgres({ connectionString: url, schema, signingKeySecret: SECRET });
    try {
      await storage.migrate();
      await storage.repositories.signingKeys.save(key('k1'));
      const { rows } = await sql<{ private_jwk: string }>`select private_jwk from ${sql.table(`${schema}.signing_keys`)}`.execute(db);
      expect(rows[0]?.private_jwk).toContain('gatehouse-aes-256-gcm-v1');
      expect(rows[0]?.private_jwk).not.toContain('private-part');
      expect((await storage.repositories.signingKeys.list())[0]?.privateJwk).toEqual({ kty: 'EC', kid: 'k1', d: 'private-part' });
    } finally {
      await storage.close();
    }
    const withoutSecret = await openPostgresStorage({ connectionString: url, schema });
    try {
      await expect(withoutSecret.repositories.signingKeys.list()).rejects.toThrow(KeyDecryptionError);
      await expect(withoutSecret.repositories.signingKeys.list()).rejects.toThrow('Signing key k1 is encrypted: set signingKeySecret');
    } finally {
      await withoutSecret.close();
    }
    await expect(openPostgresStorage({ connectionString: url, schema, signingKeySecret: 'short' })).rejects.toThrow('signingKeySecret must be a string of at least 32 characters');
  });

  it('is shared by instances unless the host says otherwise, and hands over its shared failure counts', async () => {
    const shared = await openPostgresStorage({ connectionString: url, schema });
    const single = await openPostgresStorage({ connectionString: url, schema, sharedByInstances: false });
    try {
      expect(shared.sharedByInstances).toBe(true);
      expect(single.sharedByInstances).toBe(false);
      await shared.migrate();
      await shared.failedAttempts.recordFailure([{ key: 'sign-in:email:ada@example.com', max: 5 }], 10_000, 60_000);
      expect(await single.failedAttempts.recentFailures([{ key: 'sign-in:email:ada@example.com', max: 5 }], 0)).toEqual([[10_000]]);
    } finally {
      await Promise.all([shared.close(), single.close()]);
    }
  });
});

// Issue #30 point 6 (docs/decisions/0146-only-the-tables-a-host-uses.md).
describe.skipIf(!POSTGRES_URL)("openPostgresStorage on the host's pool: only the tables it uses, names that cannot clash", () => {
  const schema = freshSchemaName();
  let pool: pg.Pool;
  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 4, options: `-c search_path=${schema}` });
    await pool.query(`create schema "${schema}"`);
    await pool.query('create table users (id bigserial primary key, login text not null); create table sessions (sid text primary key)');
  });
  afterAll(async () => {
    await pool.end();
    await dropSchema(schema);
  });
  const tables = async () => (await pool.query<{ tablename: string }>('select tablename from pg_tables where schemaname = $1 order by tablename', [schema])).rows.map((row) => row.tablename);

  it('in the host\'s schema: gh_ tables of the authorization server only, then the user tables when turned on', async () => {
    const storage = await openPostgresStorage({ pool, sharedByInstances: false });
    try {
      await storage.migrate();
      expect((await tables()).filter((name) => !name.startsWith('gh_'))).toEqual([FAILED_ATTEMPTS_TABLE, 'sessions', 'users']);
      expect((await tables()).filter((name) => name.startsWith('gh_'))).toEqual([...OAUTH_TABLES.map((name) => `gh_${name}`), 'gh_gatehouse_migration', 'gh_gatehouse_migration_lock'].sort());
      await expect(storage.repositories.users.findByKey('u1')).rejects.toThrow(UserTablesOffError);
    } finally {
      await storage.close();
    }
    const withUsers = await openPostgresStorage({ pool, userTables: true });
    try {
      await withUsers.migrate();
      await withUsers.repositories.accounts.create({ accountKey: 'a1', name: 'Acme' });
      expect(await tables()).toEqual(expect.arrayContaining(USER_TABLES.map((name) => `gh_${name}`)));
      expect((await pool.query('select name from gh_accounts')).rows).toEqual([{ name: 'Acme' }]);
    } finally {
      await withUsers.close();
    }
  });
});

describe.skipIf(!POSTGRES_URL)('openPostgresStorage: migrationStatus', () => {
  const schema = freshSchemaName();
  afterAll(() => dropSchema(schema));

  it('says every migration is pending before migrate() and applied after, in a schema of its own', async () => {
    const storage = await openPostgresStorage({ connectionString: POSTGRES_URL as string, schema });
    try {
      const before = await storage.migrationStatus?.();
      expect(before?.every((migration) => migration.executedAt === null)).toBe(true);
      await storage.migrate();
      const after = (await storage.migrationStatus?.()) ?? [];
      expect(after.length).toBe(before?.length);
      expect(after.every((migration) => migration.executedAt instanceof Date)).toBe(true);
    } finally {
      await storage.close();
    }
  });
});
