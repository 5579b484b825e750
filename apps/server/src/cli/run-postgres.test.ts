import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { dropSchema, query } from '../../test/multi-instance/support/postgres.js';
import { runCli } from './run.js';

// The same commands on PostgreSQL (GATEHOUSE_DATABASE_URL), in a schema of their own.
const POSTGRES_URL = process.env.GATEHOUSE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `gh_cli_${randomBytes(6).toString('hex')}`;
const env = { GATEHOUSE_DATABASE_URL: POSTGRES_URL, GATEHOUSE_DATABASE_SCHEMA: schema, GATEHOUSE_DATABASE_POOL_SIZE: '2', GATEHOUSE_LOG_LEVEL: 'warn' };

afterAll(() => dropSchema(schema, POSTGRES_URL));

async function json<T = Record<string, unknown>>(...argv: string[]): Promise<T> {
  let stdout = '';
  let stderr = '';
  const code = await runCli([...argv, '--json'], { env, stdout: { write: (text: string) => (stdout += text) }, stderr: { write: (text: string) => (stderr += text) } });
  expect(code, stderr).toBe(0);
  return JSON.parse(stdout) as T;
}

describe('gatehouse CLI on PostgreSQL', () => {
  it('migrates a fresh schema and provisions accounts, users, clients and keys in it', async () => {
    expect(await json('migrate')).toEqual({ migrated: true, database: 'postgres' });
    const { accountKey } = await json<{ accountKey: string }>('accounts', 'create', '--name', 'Acme');
    const user = await json<{ userKey: string; email: string }>('users', 'create', '--email', 'pg@example.com', '--password', 'correct horse', '--account', accountKey, '--role', 'admin');
    expect(user.email).toBe('pg@example.com');
    const client = await json<{ clientId: string }>('clients', 'create', '--name', 'PG app', '--redirect-uri', 'https://app.example/cb', '--scope', 'messaging.v1.send', '--owner', 'pg@example.com');
    const list = await json<{ clients: Array<{ clientId: string; ownerUserKey: string }> }>('clients', 'list');
    expect(list.clients).toEqual([expect.objectContaining({ clientId: client.clientId, ownerUserKey: user.userKey })]);
    const { kid } = await json<{ kid: string }>('keys', 'rotate');
    expect(kid).toMatch(/^[A-Za-z0-9]+$/);

    // The rows are in the configured schema.
    const rows = await query<{ n: string }>(`select count(*) as n from "${schema}".clients`, [], POSTGRES_URL);
    expect(Number(rows[0]?.n)).toBe(1);
  });
});
