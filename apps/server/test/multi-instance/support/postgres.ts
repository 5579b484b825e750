import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** CI sets it (`.ci/run`: postgres://postgres@127.0.0.1:5432/test); without it these tests are skipped, visibly. */
export const POSTGRES_URL = process.env.GATEHOUSE_TEST_POSTGRES_URL;

export function warnIfSkipped(what: string): void {
  if (!POSTGRES_URL) {
    console.warn(`\n⚠ GATEHOUSE_TEST_POSTGRES_URL is not set: SKIPPING ${what}. Set it (CI does) to run them.\n`);
  }
}

/** A schema name no other test run uses. */
export const freshSchemaName = (): string => `gh_multi_${randomBytes(6).toString('hex')}`;

/** One statement on a connection of its own (to `connectionString`, by default GATEHOUSE_TEST_POSTGRES_URL). */
export async function query<Row extends Record<string, unknown>>(text: string, values: unknown[] = [], connectionString = POSTGRES_URL): Promise<Row[]> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return (await client.query<Row>(text, values)).rows;
  } finally {
    await client.end();
  }
}

export async function dropSchema(schema: string, connectionString = POSTGRES_URL): Promise<void> {
  await query(`drop schema if exists "${schema}" cascade`, [], connectionString);
}
