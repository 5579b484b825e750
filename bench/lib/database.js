// Direct access to the benchmark's database, for what must be fast and is not a user's path:
// minting thousands of authorization codes before the code-exchange scenario, and bulk-seeding
// the growth run. SQLite through better-sqlite3 in one transaction; PostgreSQL through pg with
// array parameters (UNNEST), one statement per batch.
import { storedSecretHash } from '@gatehouse/core';
import { writeGrowthRows } from './growth.js';

/** Opens the database the benchmark's server uses. */
export async function openBenchDatabase(target) {
  return target.kind === 'postgres' ? openPostgres(target) : openSqlite(target);
}

/** Rows of `authorization_codes` for `codes` (raw values; the table holds their stored hashes, core's `storedSecretHash`). */
function codeRows(codes, { clientId, userKey, redirectUri, scopes, codeChallenge = null, ttlMs }) {
  const now = Date.now();
  const scopesJson = JSON.stringify(scopes);
  return codes.map((code) => [storedSecretHash(code), clientId, userKey, redirectUri, scopesJson, codeChallenge, null, now, now + ttlMs, null, null]);
}

/** Tables the growth run fills. */
const SEEDED_TABLES = ['clients', 'users', 'grants', 'refresh_tokens', 'authorization_codes', 'accounts', 'attribute_names'];

const CODE_COLUMNS = ['code_hash', 'client_id', 'user_key', 'redirect_uri', 'scopes', 'code_challenge', 'session_id', 'created_at', 'expires_at', 'consumed_at', 'grant_id'];

async function openSqlite({ filename }) {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(filename, { timeout: 10_000 });
  db.pragma('foreign_keys = ON');
  const statements = new Map();
  const insert = (table, columns) => {
    const key = `${table}(${columns.join(',')})`;
    let statement = statements.get(key);
    if (!statement) {
      statement = db.prepare(`insert into ${table} (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')})`);
      statements.set(key, statement);
    }
    return statement;
  };
  return {
    kind: 'sqlite',
    async insertCodes(codes, binding) {
      const statement = insert('authorization_codes', CODE_COLUMNS);
      db.transaction((rows) => {
        for (const row of rows) statement.run(row);
      })(codeRows(codes, binding));
    },
    async deleteUnusedCodes(clientId) {
      return db.prepare('delete from authorization_codes where client_id = ? and consumed_at is null').run(clientId).changes;
    },
    async maxAttributePosition(accountKey) {
      return db.prepare('select coalesce(max(position), 0) as last from attribute_names where account_key = ?').get(accountKey).last;
    },
    /** Bulk seed in one transaction; the server must be stopped (the journal is switched off WAL meanwhile). */
    async seedGrowth(spec, options) {
      // One big transaction: a rollback journal instead of a WAL the size of the data, a large page
      // cache, and one sync at the end. The server's own pragmas come back when it reopens the file.
      db.pragma('journal_mode = DELETE');
      db.pragma('cache_size = -524288');
      db.pragma('synchronous = NORMAL');
      db.exec('begin immediate');
      try {
        // A bulk load's usual trick: the secondary indexes are dropped and then created again from
        // their own SQL (the schema ends identical), which sorts once instead of inserting millions
        // of random keys one by one.
        const indexes = db
          .prepare(`select name, sql from sqlite_master where type = 'index' and sql is not null and tbl_name in (${SEEDED_TABLES.map(() => '?').join(', ')})`)
          .all(SEEDED_TABLES);
        for (const { name } of indexes) db.exec(`drop index "${name}"`);
        await writeGrowthRows((table, columns, rows) => {
          const statement = insert(table, columns);
          for (const row of rows) statement.run(row);
        }, spec, options);
        for (const { sql } of indexes) db.exec(sql);
        db.exec('commit');
      } catch (error) {
        db.exec('rollback');
        throw error;
      } finally {
        db.pragma('journal_mode = WAL');
      }
    },
    async counts() {
      const count = (table) => db.prepare(`select count(*) as n from ${table}`).get().n;
      return { grants: count('grants'), refreshTokens: count('refresh_tokens'), authorizationCodes: count('authorization_codes'), attributeNames: count('attribute_names'), users: count('users') };
    },
    async close() {
      db.close();
    },
  };
}

/** Column types for UNNEST parameters (PostgreSQL needs the array types). */
const PG_TYPES = {
  created_at: 'bigint', expires_at: 'bigint', consumed_at: 'bigint', revoked_at: 'bigint', last_used_at: 'bigint', rotated_at: 'bigint',
  pkce_required: 'integer', position: 'integer',
};

async function openPostgres({ url, schema }) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  if (schema) await client.query(`set search_path to "${schema.replaceAll('"', '""')}"`);
  const write = async (table, columns, rows) => {
    if (rows.length === 0) return;
    const arrays = columns.map((_, c) => rows.map((row) => row[c]));
    const selects = columns.map((column, c) => `$${c + 1}::${PG_TYPES[column] ?? 'text'}[]`);
    await client.query(`insert into ${table} (${columns.join(', ')}) select * from unnest(${selects.join(', ')})`, arrays);
  };
  return {
    kind: 'postgres',
    async insertCodes(codes, binding) {
      const rows = codeRows(codes, binding);
      await client.query('begin');
      try {
        for (let start = 0; start < rows.length; start += 10_000) await write('authorization_codes', CODE_COLUMNS, rows.slice(start, start + 10_000));
        await client.query('commit');
      } catch (error) {
        await client.query('rollback');
        throw error;
      }
    },
    async deleteUnusedCodes(clientId) {
      return (await client.query('delete from authorization_codes where client_id = $1 and consumed_at is null', [clientId])).rowCount;
    },
    async maxAttributePosition(accountKey) {
      return Number((await client.query('select coalesce(max(position), 0) as last from attribute_names where account_key = $1', [accountKey])).rows[0].last);
    },
    async seedGrowth(spec, options) {
      await client.query('begin');
      try {
        await writeGrowthRows(write, spec, options);
        await client.query('commit');
      } catch (error) {
        await client.query('rollback');
        throw error;
      }
      // Fresh statistics, as autovacuum would gather them soon after such a load: of this
      // schema's tables only (a bare ANALYZE takes every table of the database, and waits behind
      // the locks of whatever else runs on it).
      const { rows: tables } = await client.query('select tablename from pg_tables where schemaname = current_schema()');
      if (tables.length > 0) await client.query(`analyze ${tables.map(({ tablename }) => `"${tablename.replaceAll('"', '""')}"`).join(', ')}`);
    },
    async counts() {
      const count = async (table) => Number((await client.query(`select count(*) as n from ${table}`)).rows[0].n);
      return {
        grants: await count('grants'),
        refreshTokens: await count('refresh_tokens'),
        authorizationCodes: await count('authorization_codes'),
        attributeNames: await count('attribute_names'),
        users: await count('users'),
      };
    },
    async close() {
      await client.end();
    },
  };
}
