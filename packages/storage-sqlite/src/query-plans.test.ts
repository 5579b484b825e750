import type BetterSqlite3 from 'better-sqlite3';
import type { CompiledQuery } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqlite } from './sqlite-storage.js';
import type { Storage } from '@gatehouse/storage-kysely';
import { directExecutorOf, type DirectExecutor } from './direct-executor.js';
import type { BackgroundStatement } from './write-thread.js';
import { tempDatabaseFile } from './test-support/temp-file.js';

const GRANTS = 100_000;
const USERS = 2_000;
const CLIENTS = 50;
const ACCOUNTS = 40;
const NAMES_PER_ACCOUNT = 100;
const MESSAGES = 20_000;
const T = 1_700_000_000_000;


/**
 * Fills the file the way a busy deployment would: 100,000 grants, half of them with their consumed
 * code and refresh token (the other half made without one), with users, sessions, attributes and messages around them. One transaction
 * of prepared inserts keeps it to a second or two.
 */
function fill(raw: BetterSqlite3.Database): void {
  const insert = (sql: string) => raw.prepare(sql);
  const users = insert('insert into users values (?, ?, ?, ?, ?, ?, ?, null)');
  const clients = insert('insert into clients (client_id, client_secret_hash, name, redirect_uris, scopes, pkce_required, owner_user_key, created_at, grant_types, resource_server_for) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  const sessions = insert('insert into sessions (session_id, user_key, created_at, expires_at, ended_at) values (?, ?, ?, ?, ?)');
  const grants = insert('insert into grants values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  const codes = insert('insert into authorization_codes (code_hash, client_id, user_key, redirect_uri, scopes, code_challenge, session_id, created_at, expires_at, consumed_at, grant_id, resources, openid) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  const tokens = insert('insert into refresh_tokens (token_hash, grant_id, created_at, last_used_at, rotated_at) values (?, ?, ?, ?, ?)');
  const accounts = insert('insert into accounts values (?, ?)');
  const memberships = insert('insert into memberships values (?, ?, ?)');
  const names = insert('insert into attribute_names values (?, ?, ?, ?, ?)');
  const values = insert('insert into user_attribute_values values (?, ?, ?, ?)');
  const messages = insert('insert into messages values (?, ?, ?, ?, ?, ?, ?, ?)');
  raw.transaction(() => {
    for (let u = 0; u < USERS; u += 1) users.run(`u${u}`, `user${u}@example.com`, `user${u}@example.com`, 'G', 'F', 'en', 'hash');
    for (let c = 0; c < CLIENTS; c += 1) clients.run(`c${c}`, 'hash', `client ${c}`, '["https://a.example/cb"]', '["messaging.v1.send"]', 0, `u${c}`, T, '["authorization_code","refresh_token"]', '[]');
    for (let g = 0; g < GRANTS; g += 1) {
      const session = `s${g % 20_000}`;
      if (g < 20_000) sessions.run(session, `u${g % USERS}`, T, T + 3_600_000, g % 3 === 0 ? T + 1000 : null);
      // The odd grants were made without a refresh token (docs/decisions/0193).
      grants.run(`g${g}`, `c${g % CLIENTS}`, `u${g % USERS}`, '["messaging.v1.send"]', session, T + g, g % 4 === 0 ? T + g : null, '[]', null, g % 2 === 0 ? 1 : 0);
      if (g % 2 === 1) continue;
      codes.run(`code${g}`, `c${g % CLIENTS}`, `u${g % USERS}`, 'https://a.example/cb', '["messaging.v1.send"]', null, session, T + g, T + g + 60_000, T + g + 1, `g${g}`, '[]', null);
      tokens.run(`rt${g}`, `g${g}`, T + g, T + g, null);
    }
    for (let a = 0; a < ACCOUNTS; a += 1) {
      accounts.run(`a${a}`, `account ${a}`);
      for (let n = 0; n < NAMES_PER_ACCOUNT; n += 1) names.run(`a${a}`, `k${a}-${n}`, `name ${n}`, `name ${n}`, n + 1);
      for (let u = a * 50; u < a * 50 + 50; u += 1) {
        memberships.run(`a${a}`, `u${u}`, 'member');
        for (let n = 0; n < 10; n += 1) values.run(`a${a}`, `u${u}`, `k${a}-${n}`, `value ${n}`);
      }
    }
    for (let m = 0; m < MESSAGES; m += 1) messages.run(`m${m}`, `+1555000${m % 100}`, '["+15551234567"]', 'hello', 'OUT', 'u1', T + m, 'SENT');
  })();
}

/** Saves a code under a live session (`s779`), then makes its grant and refresh token in one transaction. */
async function exchangeFreshCode(storage: Storage, at: Date): Promise<void> {
  const code = { clientId: 'c7', userKey: 'u778', scopes: ['messaging.v1.send'], sessionId: 's779' };
  await storage.repositories.codes.save({ codeHash: 'code-fresh', ...code, redirectUri: 'https://a.example/cb', codeChallenge: null, createdAt: at, expiresAt: new Date(at.getTime() + 60_000), consumedAt: null, grantId: null });
  const exchanged = await storage.repositories.grants.createFromCode({
    grant: { grantId: 'g-fresh', clientId: code.clientId, userKey: code.userKey, scopes: code.scopes, sessionId: code.sessionId, createdAt: at, revokedAt: null },
    codeHash: 'code-fresh',
    refreshToken: { tokenHash: 'rt-fresh', grantId: 'g-fresh', createdAt: at, lastUsedAt: at, rotatedAt: null, supersededAt: null },
  });
  if (!exchanged) throw new Error('the fresh code was not exchanged');
}

describe(`query plans with ${GRANTS.toLocaleString('en')} grants`, () => {
  let file: ReturnType<typeof tempDatabaseFile>;
  let storage: Storage;
  let raw: BetterSqlite3.Database;
  let captured: CompiledQuery[] = [];

  beforeAll(async () => {
    file = tempDatabaseFile();
    const opened = await openSqlite({ filename: file.filename }, (event) => {
      if (event.level === 'query') captured.push(event.query);
    });
    ({ storage, database: raw } = opened);
    await storage.migrate();
    fill(raw);
  }, 120_000);

  afterAll(async () => {
    await storage.close();
    file.remove();
  });

  /** Runs `operation`, then returns the query plan of every statement it sent. */
  async function plansOf(operation: () => Promise<unknown>): Promise<Array<{ sql: string; plan: string[] }>> {
    captured = [];
    await operation();
    expect(captured.length).toBeGreaterThan(0);
    return captured.map((query) => ({
      sql: query.sql,
      plan: (raw.prepare(`explain query plan ${query.sql}`).all(...(query.parameters as unknown[])) as Array<{ detail: string }>).map((row) => row.detail),
    }));
  }

  const at = new Date(T + 5);
  const hotQueries: Array<[string, (storage: Storage) => Promise<unknown>]> = [
    ['grant by id', (s) => s.repositories.grants.findById('g777')],
    ['revoke a grant', (s) => s.repositories.grants.revoke('g778', at)],
    ['code by hash', (s) => s.repositories.codes.findByHash('code777')],
    ['exchange a code (grant, conditional consume, live session, refresh token)', (s) => exchangeFreshCode(s, at)],
    ['refresh token by hash', (s) => s.repositories.refreshTokens.findByHash('rt777')],
    ['refresh token with its grant (refresh)', (s) => s.repositories.refreshTokens.findWithGrant('rt777')],
    ['rotate a refresh token', (s) => s.repositories.refreshTokens.rotate({ tokenHash: 'rt777', next: { tokenHash: 'rt-next', grantId: 'g777', createdAt: at, lastUsedAt: at, rotatedAt: null, supersededAt: null }, at, graceSince: at })],
    ['touch a refresh token', (s) => s.repositories.refreshTokens.touch('rt777', at)],
    ['session by id', (s) => s.repositories.sessions.findById('s777')],
    ['end a session', (s) => s.repositories.sessions.end('s778', at)],
    ['grants by session (logout)', (s) => s.repositories.grants.revokeBySession('s777', at)],
    ['end a session with its grants (logout)', (s) => s.repositories.sessions.endWithGrants('s776', at)],
    ['hand a session over with its grants (signing in again)', (s) => s.repositories.sessions.handOver?.('s775', 's774', at) ?? Promise.reject(new Error('no handOver'))],
    ['grants by user (password change)', (s) => s.repositories.grants.revokeByUser('u777', at)],
    ['grants by user and client (authorized apps)', (s) => s.repositories.grants.revokeByUserAndClient('u778', 'c28', at)],
    ['live grants of a user, newest first', (s) => s.repositories.grants.listActiveByUser('u779')],
    ['user by e-mail', (s) => s.repositories.users.findByEmail('USER777@example.com')],
    ['user of a phone number', (s) => s.repositories.users.findByPhoneNumber('+155500042')],
    ['client by id', (s) => s.repositories.clients.findById('c7')],
    ['clients of an owner', (s) => s.repositories.clients.listByOwner('u7')],
    ['role of a user in an account', (s) => s.repositories.accounts.findRole('a7', 'u350')],
    ['user with memberships', (s) => s.repositories.users.findWithMemberships('u350')],
    ['attribute by account and key', (s) => s.repositories.attributes.find('a7', 'k7-42')],
    ['attribute list by account', (s) => s.repositories.attributes.list('a7', { offset: 40, limit: 20 })],
    ['create an attribute (uniqueness and limit)', (s) => s.repositories.attributes.create('a8', { key: 'k8-new', name: 'Fresh' }, 500)],
    ['rename an attribute', (s) => s.repositories.attributes.rename('a8', 'k8-1', 'renamed')],
    ['set user values', (s) => s.repositories.attributes.setUserValues('a9', 'u450', [{ key: 'k9-3', value: 'x' }, { key: 'k9-4', value: null }])],
    ['user values', (s) => s.repositories.attributes.listUserValues('a9', 'u451')],
    ['delete an attribute with its values', (s) => s.repositories.attributes.delete('a9', 'k9-5')],
    ['messages by owner', (s) => s.repositories.messages.listByOwner('+155500042', { limit: 20 })],
    ['messages by owner after a cursor', (s) => s.repositories.messages.listByOwner('+155500042', { limit: 20, before: { timestamp: new Date(T + 10_042), id: 'm10042' } })],
    ['live sessions of a user (sessions list)', (s) => s.repositories.sessions.listActiveByUser('u777', at)],
    ["end every session of a user (the host's sign-out)", (s) => s.repositories.sessions.endByUser('u778', at)],
    ['delete the sessions of a user (forgetUser)', (s) => s.repositories.sessions.deleteByUser('u779')],
    ['delete the login and consent requests of a user (forgetUser)', (s) => s.repositories.interactions.deleteByUser('u779')],
    ['delete a user with their records (users delete)', (s) => s.repositories.users.delete('u1999')],
    ['purge revoked grants and those made without a refresh token', (s) => s.repositories.grants.purge(new Date(T + 5))],
    ['purge expired codes', (s) => s.repositories.codes.purge(new Date(T - 1))],
    ['purge sessions', (s) => s.repositories.sessions.purge(new Date(T - 1))],
    ['purge never-used self-registered clients', (s) => s.repositories.clients.purgeUnused(new Date(T - 1))],
  ];

  it.each(hotQueries)('%s searches an index and scans no big table', async (_name, operation) => {
    const plans = await plansOf(() => operation(storage));
    for (const { sql, plan } of plans) {
      if (/^(begin|commit|rollback|select 1)/i.test(sql)) continue;
      // Every table these queries touch grows with use: no step may read a whole table or index.
      const scans = plan.filter((step) => /^SCAN /.test(step) && step !== 'SCAN CONSTANT ROW');
      expect({ sql, scans }).toEqual({ sql, scans: [] });
      if (/^(select|update|delete)/i.test(sql)) {
        expect({ sql, searches: plan.some((step) => /^SEARCH \w+( AS \w+)? USING (COVERING |PRIMARY KEY|INTEGER PRIMARY KEY|INDEX)/.test(step)) }).toEqual({ sql, searches: true });
      }
    }
  });

  it("exchanges a code on the write thread searching indexes only (the consume checks the code's session in the same statement)", async () => {
    // A second storage of the file, without the query log: its exchange goes to its write thread.
    const threaded = await openSqlite({ filename: file.filename });
    try {
      const direct = directExecutorOf(threaded.db) as DirectExecutor;
      const handOver = direct.writeOnThread?.bind(direct);
      expect(handOver).toBeDefined();
      const sent: BackgroundStatement[] = [];
      direct.writeOnThread = (statements) => {
        sent.push(...statements);
        return handOver?.(statements);
      };
      const code = { clientId: 'c7', userKey: 'u778', scopes: ['messaging.v1.send'], sessionId: 's781' };
      await threaded.storage.repositories.codes.save({ codeHash: 'code-thread', ...code, redirectUri: 'https://a.example/cb', codeChallenge: null, createdAt: at, expiresAt: new Date(at.getTime() + 60_000), consumedAt: null, grantId: null });
      const exchanged = await threaded.storage.repositories.grants.createFromCode({
        grant: { grantId: 'g-thread', ...code, createdAt: at, revokedAt: null },
        codeHash: 'code-thread',
        refreshToken: { tokenHash: 'rt-thread', grantId: 'g-thread', createdAt: at, lastUsedAt: at, rotatedAt: null, supersededAt: null },
      });
      expect(exchanged).toBe(true);
      expect(sent.map((statement) => statement.sql.split(' ').slice(0, 3).join(' '))).toEqual(['insert into "grants"', 'update "authorization_codes" set', 'insert into "refresh_tokens"']);
      const consume = sent[1] as BackgroundStatement;
      const plan = (raw.prepare(`explain query plan ${consume.sql}`).all(...consume.parameters) as Array<{ detail: string }>).map((row) => row.detail);
      expect(plan.filter((step) => /^SCAN /.test(step))).toEqual([]);
      expect(plan.some((step) => /^SEARCH authorization_codes USING INDEX sqlite_autoindex_authorization_codes_1/.test(step))).toBe(true);
      expect(plan.some((step) => /SEARCH sessions USING INDEX sqlite_autoindex_sessions_1/.test(step))).toBe(true);
    } finally {
      await threaded.storage.close();
    }
  });

  it('indexes the child columns of every foreign key, so cascades search instead of scanning', () => {
    const tables = (raw.prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%'").all() as Array<{ name: string }>).map((row) => row.name);
    const unindexed: string[] = [];
    for (const table of tables) {
      const keys = raw.prepare(`select * from pragma_foreign_key_list(?)`).all(table) as Array<{ id: number; from: string }>;
      const byConstraint = new Map<number, string[]>();
      for (const key of keys) byConstraint.set(key.id, [...(byConstraint.get(key.id) ?? []), key.from]);
      const indexes = (raw.prepare('select name from pragma_index_list(?)').all(table) as Array<{ name: string }>).map((index) =>
        (raw.prepare('select name from pragma_index_info(?) order by seqno').all(index.name) as Array<{ name: string }>).map((column) => column.name),
      );
      for (const columns of byConstraint.values()) {
        const covered = indexes.some((indexColumns) => columns.every((column, position) => indexColumns[position] === column));
        if (!covered) unindexed.push(`${table}(${columns.join(', ')})`);
      }
    }
    expect(unindexed).toEqual([]);
  });

  it('purges revoked grants and those made without a refresh token, with their refresh tokens and codes, in one pass', async () => {
    const count = (query: string): number => (raw.prepare(query).get() as { n: number }).n;
    const dead = 'select grant_id from grants where revoked_at is not null or refreshable = 0';
    const ofDead = (table: string): string => `select count(*) as n from ${table} where grant_id in (${dead})`;
    const deadGrants = count(`select count(*) as n from (${dead})`);
    const deadTokens = count(ofDead('refresh_tokens'));
    const deadCodes = count(ofDead('authorization_codes'));
    expect(deadGrants).toBeGreaterThan(GRANTS / 2);
    expect(deadTokens).toBeGreaterThan(GRANTS / 5);
    const before = {
      grants: count('select count(*) as n from grants'),
      tokens: count('select count(*) as n from refresh_tokens'),
      codes: count('select count(*) as n from authorization_codes'),
    };

    const purged = await storage.repositories.grants.purge(new Date(T + GRANTS + 10_000));

    expect(purged).toBe(deadGrants);
    expect(count('select count(*) as n from grants')).toBe(before.grants - deadGrants);
    expect(count('select count(*) as n from refresh_tokens')).toBe(before.tokens - deadTokens);
    expect(count('select count(*) as n from authorization_codes')).toBe(before.codes - deadCodes);
    expect(count(ofDead('refresh_tokens'))).toBe(0);
    expect(await storage.repositories.refreshTokens.findByHash('rt4')).toBeUndefined();
    expect((await storage.repositories.refreshTokens.findByHash('rt2'))?.grantId).toBe('g2');
    expect(await storage.repositories.grants.findById('g3')).toBeUndefined();
  }, 60_000);
});
