import { FAILED_ATTEMPTS_TABLE } from './failed-attempts.js';
import type { OAuthRepositories, Repositories } from '@gatehouse/core';
import { describeOAuthRepositoryContract, describeRepositoryContract } from '@gatehouse/core/testing';
import { GATEHOUSE_TABLES, OAUTH_TABLES } from '@gatehouse/storage-kysely';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openPostgres, openPostgresStorage } from './postgres-storage.js';
import { dropSchema, freshSchemaName, POSTGRES_URL, warnIfSkipped } from './test-support/postgres.js';

warnIfSkipped("storage on the host's pool");

/** The host application: its own schema on its search_path, with a `users` table of its own. */
async function createHost(): Promise<{ pool: pg.Pool; schema: string }> {
  const schema = freshSchemaName();
  const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 4, options: `-c search_path=${schema}` });
  await pool.query(`create schema "${schema}"`);
  await pool.query(`create table users (id bigserial primary key, login text not null unique, balance int8 not null)`);
  await pool.query(`insert into users (login, balance) values ('host-admin', 9007199254740993)`);
  return { pool, schema };
}

/**
 * Gatehouse's storage on a new host's pool, in a schema of its own migrated once for the enclosing
 * `describe`; `emptied` deletes every row of `tables` (every foreign key cascades; the schema is
 * named, the host's search_path is not Gatehouse's) and returns the storage.
 */
function onHostPool(userTables: boolean) {
  let host: { pool: pg.Pool; schema: string };
  const gatehouseSchema = freshSchemaName();
  let opened: ReturnType<typeof openPostgres> | undefined;

  beforeAll(async () => {
    host = await createHost();
  });

  afterAll(async () => {
    if (opened) await (await opened).storage.close();
    await host.pool.end();
    await dropSchema(host.schema);
    await dropSchema(gatehouseSchema);
  });

  return {
    gatehouseSchema,
    async emptied(tables: readonly string[]) {
      opened ??= openPostgres({ pool: host.pool, schema: gatehouseSchema, userTables }).then(async (storage) => {
        await storage.storage.migrate();
        return storage;
      });
      const { storage, db } = await opened;
      await sql.raw(tables.map((table) => `delete from "${gatehouseSchema}"."${table}";`).join(' ')).execute(db);
      return storage;
    },
  };
}

describe.skipIf(!POSTGRES_URL)("PostgreSQL, on the host's pool in a schema of its own (decision 0018)", () => {
  const pool = onHostPool(true);
  describeRepositoryContract(
    `PostgreSQL (host pool, schema ${pool.gatehouseSchema})`,
    async () => ({ repositories: (await pool.emptied(GATEHOUSE_TABLES)).repositories }),
    { describe, it, expect, beforeEach, afterEach },
  );
});

/** The OAuth part of a storage's repositories: what an embedder without Gatehouse's own users relies on (docs/decisions/0161). */
function oauthPartOf({ clients, codes, grants, refreshTokens, sessions, interactions, consents, signingKeys }: Repositories): OAuthRepositories {
  return { clients, codes, grants, refreshTokens, sessions, interactions, consents, signingKeys };
}

describe.skipIf(!POSTGRES_URL)("PostgreSQL, on the host's pool without Gatehouse's user tables (decisions 0146, 0161)", () => {
  const pool = onHostPool(false);
  describeOAuthRepositoryContract(
    `PostgreSQL (host pool, schema ${pool.gatehouseSchema}, userTables false)`,
    async () => ({ repositories: oauthPartOf((await pool.emptied(OAUTH_TABLES)).repositories) }),
    { describe, it, expect, beforeEach, afterEach },
  );
});

describe.skipIf(!POSTGRES_URL)("storage on the host's pool (decision 0018)", () => {
  let host: { pool: pg.Pool; schema: string };
  let gatehouseSchema: string;

  beforeEach(async () => {
    host = await createHost();
    gatehouseSchema = freshSchemaName();
  });

  afterEach(async () => {
    if (!host.pool.ended) await host.pool.end();
    await dropSchema(host.schema);
    await dropSchema(gatehouseSchema);
  });

  it('creates its schema and tables there, leaves the host\'s tables, search_path and type parsers alone, and the pool open on close', async () => {
    const storage = await openPostgresStorage({ pool: host.pool, schema: gatehouseSchema, userTables: true });
    await storage.migrate();
    await storage.migrate();
    await storage.repositories.accounts.create({ accountKey: 'a1', name: 'Acme' });
    await storage.repositories.clients.create({
      clientId: 'c1',
      clientSecretHash: 'h',
      name: 'App',
      redirectUris: ['https://app.example/cb'],
      scopes: ['identity.v1.read'],
      grantTypes: ['authorization_code', 'refresh_token'],
      pkceRequired: false,
      ownerUserKey: null,
      createdAt: new Date(1_700_000_000_123),
    });
    const client = await storage.repositories.clients.findById('c1');
    await storage.close();

    expect(host.pool.ended).toBe(false);
    const gatehouseTables = await host.pool.query(`select tablename from pg_tables where schemaname = $1 order by tablename`, [gatehouseSchema]);
    expect(gatehouseTables.rows.map((row) => row.tablename)).toEqual([...GATEHOUSE_TABLES, FAILED_ATTEMPTS_TABLE, 'gatehouse_migration', 'gatehouse_migration_lock', 'gatehouse_user_tables_migration'].sort());
    const hostTables = await host.pool.query(`select tablename from pg_tables where schemaname = $1`, [host.schema]);
    expect(hostTables.rows).toEqual([{ tablename: 'users' }]);
    // The host's own queries: its search_path, and pg's default int8 parsing (a string), unchanged.
    expect((await host.pool.query('show search_path')).rows).toEqual([{ search_path: host.schema }]);
    expect((await host.pool.query('select login, balance from users')).rows).toEqual([{ login: 'host-admin', balance: '9007199254740993' }]);
    expect((await host.pool.query(`select name from "${gatehouseSchema}".accounts`)).rows).toEqual([{ name: 'Acme' }]);
    expect(client?.createdAt).toEqual(new Date(1_700_000_000_123));
  });

  it('reads its int8 columns as numbers through the host\'s pool', async () => {
    const { storage, db } = await openPostgres({ pool: host.pool, schema: gatehouseSchema });
    try {
      await storage.migrate();
      const big = await sql<{ value: unknown }>`select ${'1700000000123'}::int8 as value`.execute(db);
      expect(big.rows[0]?.value).toBe(1_700_000_000_123);
    } finally {
      await storage.close();
    }
  });
});
