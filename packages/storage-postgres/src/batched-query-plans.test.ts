import type { Repositories } from '@gatehouse/core';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres } from './postgres-storage.js';
import { dropSchema, freshSchemaName, POSTGRES_URL, warnIfSkipped } from './test-support/postgres.js';

warnIfSkipped('the plans of the batched statements');

const ROWS = 50_000;
const UNUSED = 20_000;
const T = 1_700_000_000_000;

/** Every statement its connections send, as PostgreSQL is given it: a real `pg.Client` that keeps a note. */
const sent: Array<{ text: string; values: unknown[] }> = [];
class NotingClient extends pg.Client {
  override query(...args: unknown[]): never {
    const [config] = args as [{ text?: string; values?: unknown[] } | string];
    if (typeof config === 'object' && config !== null && typeof config.text === 'string') sent.push({ text: config.text, values: config.values ?? [] });
    return (super.query as (...rest: unknown[]) => never)(...args);
  }
}

/**
 * The batched statements (docs/decisions/0175) against tables of 50,000 grants, codes and refresh
 * tokens after ANALYZE, and 20,000 unused codes since: each finds its rows through an index, never
 * by reading every row (nor every unused code), so a turn's batch costs a few index probes however
 * large the tables grow.
 */
describe.skipIf(!POSTGRES_URL)('the plans of the batched statements on PostgreSQL', () => {
  const schema = freshSchemaName();
  let pool: pg.Pool;
  let repos: Repositories;
  let close: () => Promise<void>;

  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 4, Client: NotingClient });
    const { storage } = await openPostgres({ pool, schema, tablePrefix: '', userTables: true });
    await storage.migrate();
    repos = storage.repositories;
    close = () => storage.close();
    await pool.query(`
      insert into "${schema}".users (user_key, email, email_folded, given_name, family_name, locale, password_hash)
        select 'u' || i, 'u' || i || '@example.com', 'u' || i || '@example.com', 'G', 'F', 'en', 'x' from generate_series(0, 999) as i;
      insert into "${schema}".clients (client_id, client_secret_hash, name, redirect_uris, scopes, pkce_required, owner_user_key, created_at, grant_types, resource_server_for)
        values ('c1', 'h', 'c1', '["https://a.example/cb"]', '["messaging.v1.send"]', 0, null, ${T}, '["authorization_code","refresh_token"]', '[]');
      insert into "${schema}".sessions (session_id, user_key, created_at, expires_at, ended_at)
        select 's' || i, 'u' || (i % 1000), ${T}, ${T + 3_600_000}, null from generate_series(0, 9999) as i;
      insert into "${schema}".grants (grant_id, client_id, user_key, scopes, session_id, created_at, revoked_at, resources, openid)
        select 'g' || i, 'c1', 'u' || (i % 1000), '["messaging.v1.send"]', 's' || (i % 10000), ${T} + i, null, '[]', null from generate_series(0, ${ROWS - 1}) as i;
      insert into "${schema}".authorization_codes (code_hash, client_id, user_key, redirect_uri, scopes, code_challenge, session_id, created_at, expires_at, consumed_at, grant_id, resources, openid)
        select 'code' || i, 'c1', 'u' || (i % 1000), 'https://a.example/cb', '["messaging.v1.send"]', null, 's' || (i % 10000), ${T}, ${T + 60_000}, ${T}, 'g' || i, '[]', null from generate_series(0, ${ROWS - 1}) as i;
      insert into "${schema}".refresh_tokens (token_hash, grant_id, created_at, last_used_at, rotated_at)
        select 'rt' || i, 'g' || i, ${T}, ${T}, null from generate_series(0, ${ROWS - 1}) as i;
      analyze "${schema}".users; analyze "${schema}".sessions; analyze "${schema}".grants; analyze "${schema}".authorization_codes; analyze "${schema}".refresh_tokens;
    `);
    // Then many unused codes the statistics do not know of yet (abandoned sign-ins, or a benchmark's
    // codes minted ahead): the planner believes the partial indexes of unused codes nearly empty.
    await pool.query(`
      insert into "${schema}".authorization_codes (code_hash, client_id, user_key, redirect_uri, scopes, code_challenge, session_id, created_at, expires_at, consumed_at, grant_id, resources, openid)
        select 'unused' || i, 'c1', 'u' || (i % 1000), 'https://a.example/cb', '["messaging.v1.send"]', null, 's' || (i % 10000), ${T}, ${T + 60_000}, null, null, '[]', null from generate_series(0, ${UNUSED - 1}) as i;
    `);
  }, 120_000);

  afterAll(async () => {
    await close?.();
    await pool?.end();
    await dropSchema(schema);
  });

  /** Runs `calls` in one turn and answers the plans of the statements they sent (EXPLAIN: nothing runs). */
  async function plansOf(calls: () => Array<Promise<unknown>>): Promise<string[]> {
    const from = sent.length;
    await Promise.all(calls());
    const statements = sent.slice(from);
    expect(statements.length).toBeGreaterThan(0);
    const plans: string[] = [];
    for (const { text, values } of statements) {
      const { rows } = await pool.query<{ 'QUERY PLAN': string }>(`explain ${text}`, values);
      plans.push(rows.map((row) => row['QUERY PLAN']).join('\n'));
    }
    return plans;
  }

  const exchange = (codeHash: string, grantId: string) => ({
    grant: { grantId, clientId: 'c1', userKey: 'u1', scopes: ['messaging.v1.send'], sessionId: 's1', createdAt: new Date(T), revokedAt: null },
    codeHash,
    refreshToken: { tokenHash: `new-${grantId}`, grantId, createdAt: new Date(T), lastUsedAt: new Date(T), rotatedAt: null, supersededAt: null },
  });

  it.each([
    ['grants by id', () => [repos.grants.findById('g1'), repos.grants.findById('g2')]],
    ['codes with their owner', () => [repos.codes.findByHashWithOwnerEmail!('code1'), repos.codes.findByHashWithOwnerEmail!('code2')]],
    ['refresh tokens with their grant and owner', () => [repos.refreshTokens.findWithGrantAndOwnerEmail!('rt1'), repos.refreshTokens.findWithGrantAndOwnerEmail!('rt2')]],
    ['touches', () => [repos.refreshTokens.touch('rt1', new Date(T + 1)), repos.refreshTokens.touch('rt2', new Date(T + 2))]],
    ['code exchanges', () => [repos.grants.createFromCode(exchange('unused11', 'new1')), repos.grants.createFromCode(exchange('unused12', 'new2'))]],
    ['one code exchange', () => [repos.grants.createFromCode(exchange('unused13', 'new3'))]],
  ] as const)('%s: through an index', async (_what, calls) => {
    for (const plan of await plansOf(calls)) {
      expect(plan).toMatch(/Index/);
      expect(plan).not.toMatch(/Seq Scan on (users|sessions|grants|authorization_codes|refresh_tokens)\b/);
      // A code is found by its key, never by reading the unused codes (code-exchange.ts, `codeIsUnused`).
      expect(plan).not.toMatch(/authorization_codes_unused_by/);
    }
  });
});
