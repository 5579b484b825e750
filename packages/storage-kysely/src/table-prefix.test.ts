import BetterSqlite3 from 'better-sqlite3';
import { DummyDriver, Kysely, SqliteAdapter, SqliteDialect, SqliteIntrospector, SqliteQueryCompiler, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { param, reusableQuery } from './reusable-query.js';
import type { Database } from './schema.js';
import { TablePrefixPlugin } from './table-prefix.js';

/** A kysely that only compiles (SQLite syntax), with the prefix plugin. */
const compiler = new Kysely<Database>({
  dialect: {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  },
  plugins: [new TablePrefixPlugin('gh_')],
});

describe('TablePrefixPlugin', () => {
  it('prefixes Gatehouse tables wherever a query names them: from, joins, column references, inserts, updates, deletes', () => {
    const select = compiler
      .selectFrom('grants')
      .innerJoin('clients as c', 'c.client_id', 'grants.client_id')
      .select(['grants.grant_id', 'c.name'])
      .where('grants.user_key', 'in', compiler.selectFrom('users').select('users.user_key'))
      .compile();
    expect(select.sql).toBe(
      'select "gh_grants"."grant_id", "c"."name" from "gh_grants" inner join "gh_clients" as "c" on "c"."client_id" = "gh_grants"."client_id" where "gh_grants"."user_key" in (select "gh_users"."user_key" from "gh_users")',
    );
    expect(compiler.insertInto('accounts').values({ account_key: 'a', name: 'n' }).compile().sql).toBe('insert into "gh_accounts" ("account_key", "name") values (?, ?)');
    expect(compiler.updateTable('sessions').set({ ended_at: 1 }).where('session_id', '=', 's').compile().sql).toBe('update "gh_sessions" set "ended_at" = ? where "session_id" = ?');
    expect(compiler.deleteFrom('messages').compile().sql).toBe('delete from "gh_messages"');
  });

  it('prefixes the tables and indexes a migration creates, and the tables its foreign keys reference', () => {
    const create = compiler.schema
      .createTable('memberships')
      .addColumn('account_key', 'text')
      .addColumn('user_key', 'text', (c) => c.notNull().references('users.user_key').onDelete('cascade'))
      .addForeignKeyConstraint('memberships_account_fk', ['account_key'], 'accounts', ['account_key'])
      .compile();
    expect(create.sql).toBe(
      'create table "gh_memberships" ("account_key" text, "user_key" text not null references "gh_users" ("user_key") on delete cascade, constraint "memberships_account_fk" foreign key ("account_key") references "gh_accounts" ("account_key"))',
    );
    expect(compiler.schema.createIndex('sessions_by_expiry').on('sessions').column('expires_at').compile().sql).toBe('create index "gh_sessions_by_expiry" on "gh_sessions" ("expires_at")');
    expect(compiler.schema.dropIndex('sessions_by_expiry').compile().sql).toBe('drop index "gh_sessions_by_expiry"');
  });

  it('leaves every other table as named: the catalog, the migrator\'s tables, the host\'s own', () => {
    const other = compiler as unknown as Kysely<Record<string, Record<string, string>>>;
    expect(other.selectFrom('sqlite_master').select('name').compile().sql).toBe('select "name" from "sqlite_master"');
    expect(other.selectFrom('gh_gatehouse_migration').select('name').compile().sql).toBe('select "name" from "gh_gatehouse_migration"');
    expect(other.selectFrom('orders').select('orders.id').compile().sql).toBe('select "orders"."id" from "orders"');
    expect(sql`select 1 from ${sql.table('users')}`.compile(compiler).sql).toBe('select 1 from "gh_users"');
  });

  it('refuses a prefix that is not a plain identifier', () => {
    expect(() => new TablePrefixPlugin('gh"; drop')).toThrow(/table prefix must be a plain identifier/);
  });

  it('carries into reusable queries: compiled once per plugin list, not shared with the unprefixed database', async () => {
    const database = new BetterSqlite3(':memory:');
    database.exec('create table accounts (account_key text primary key, name text not null); create table gh_accounts (account_key text primary key, name text not null);');
    const plain = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
    const prefixed = plain.withPlugin(new TablePrefixPlugin('gh_'));
    try {
      const insert = reusableQuery((db: Kysely<Database>) => db.insertInto('accounts').values({ account_key: param('key'), name: 'n' }));
      await insert(plain, { key: 'plain' });
      await insert(prefixed, { key: 'prefixed' });
      await prefixed.transaction().execute((trx) => insert(trx, { key: 'in-transaction' }));
      expect(database.prepare('select account_key from accounts').all()).toEqual([{ account_key: 'plain' }]);
      expect(database.prepare('select account_key from gh_accounts order by account_key').all()).toEqual([{ account_key: 'in-transaction' }, { account_key: 'prefixed' }]);
    } finally {
      await plain.destroy();
    }
  });
});
