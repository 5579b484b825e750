import { randomBytes } from 'node:crypto';
import type { Repositories } from '@gatehouse/core';
import { sql } from 'kysely';
import pg from 'pg';
import { openPostgres } from '../postgres-storage.js';

/** CI sets it (postgres://postgres@127.0.0.1:5432/test); without it the PostgreSQL tests are skipped, visibly. */
export const POSTGRES_URL = process.env.GATEHOUSE_TEST_POSTGRES_URL;

export function warnIfSkipped(what: string): void {
  if (!POSTGRES_URL) {
    console.warn(`\n⚠ GATEHOUSE_TEST_POSTGRES_URL is not set: SKIPPING the PostgreSQL tests of ${what}. Set it (CI does) to run them.\n`);
  }
}

/** A schema name no other test file uses. */
export const freshSchemaName = (): string => `gh_test_${randomBytes(6).toString('hex')}`;

export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(`drop schema if exists "${schema}" cascade`);
  } finally {
    await client.end();
  }
}

/** A migrated storage in its own schema, and a way to empty its tables between tests. */
export async function openTestStorage(schema: string, poolSize = 10) {
  const opened = await openPostgres({ connectionString: POSTGRES_URL as string, schema, poolSize });
  await opened.storage.migrate();
  const tables = (
    await sql<{ tablename: string }>`select tablename from pg_tables where schemaname = ${schema} and tablename not like 'gatehouse_migration%'`.execute(opened.db)
  ).rows.map((row) => `"${schema}"."${row.tablename}"`);
  return {
    ...opened,
    async empty(): Promise<void> {
      // DELETE is much quicker than TRUNCATE on tables this small; every foreign key cascades.
      await sql.raw(tables.map((table) => `delete from ${table};`).join(' ')).execute(opened.db);
    },
  };
}

/** The user `u1` (u1@example.com) and the confidential client `c1` (code and refresh grants) that the PostgreSQL tests' codes and grants belong to. */
export async function seedUserAndClient(repos: Repositories, at: Date): Promise<void> {
  await repos.users.create({ userKey: 'u1', email: 'u1@example.com', givenName: '', familyName: '', locale: 'en', passwordHash: 'x' });
  await repos.clients.create({
    clientId: 'c1',
    clientSecretHash: 'h',
    name: 'c1',
    redirectUris: ['https://app.example/cb'],
    scopes: ['messaging.v1.send'],
    grantTypes: ['authorization_code', 'refresh_token'],
    pkceRequired: false,
    ownerUserKey: null,
    createdAt: at,
  });
}

/** Saves an unused code of `u1` for `c1` (`seedUserAndClient`), made at `at`, valid a minute, under `sessionId` if given. */
export async function saveUnusedCode(repos: Repositories, codeHash: string, at: Date, sessionId: string | null = null): Promise<void> {
  await repos.codes.save({
    codeHash,
    clientId: 'c1',
    userKey: 'u1',
    redirectUri: 'https://app.example/cb',
    scopes: ['messaging.v1.send'],
    codeChallenge: null,
    sessionId,
    createdAt: at,
    expiresAt: new Date(at.getTime() + 60_000),
    consumedAt: null,
    grantId: null,
  });
}
