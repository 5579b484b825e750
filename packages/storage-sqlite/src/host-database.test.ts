import type { OAuthRepositories, Repositories } from '@gatehouse/core';
import { describeOAuthRepositoryContract, describeRepositoryContract } from '@gatehouse/core/testing';
import { createMigrationProvider, GATEHOUSE_TABLES } from '@gatehouse/storage-kysely';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sqliteDialect } from './sqlite-dialect.js';
import { openSqliteStorage } from './sqlite-storage.js';
import { tempDatabaseFile } from './test-support/temp-file.js';

/** The host application's own schema: a `users` table and a `sessions_by_expiry` index Gatehouse also names. */
function createHostSchema(database: BetterSqlite3.Database): void {
  database.exec(`
    create table users (id integer primary key, login text not null unique, display_name text);
    create table sessions (sid text primary key, expires integer not null);
    create index sessions_by_expiry on sessions (expires);
    insert into users (login, display_name) values ('host-admin', 'The host''s own user');
  `);
}

const namesIn = (database: BetterSqlite3.Database, type: 'table' | 'index'): string[] =>
  (database.prepare(`select name from sqlite_master where type = ? and name not like 'sqlite_%' order by name`).all(type) as Array<{ name: string }>).map((row) => row.name);

/** A migrated storage in a new host's open connection (tablePrefix gh_), removed on close. */
async function inHostConnection(userTables: boolean) {
  const file = tempDatabaseFile();
  const host = new BetterSqlite3(file.filename);
  createHostSchema(host);
  const storage = await openSqliteStorage({ database: host, tablePrefix: 'gh_', userTables });
  await storage.migrate();
  return {
    repositories: storage.repositories,
    close: async () => {
      await storage.close();
      host.close();
      file.remove();
    },
  };
}

/** The OAuth part of a storage's repositories: what an embedder without Gatehouse's own users relies on (docs/decisions/0161). */
function oauthPartOf({ clients, codes, grants, refreshTokens, sessions, interactions, consents, signingKeys }: Repositories): OAuthRepositories {
  return { clients, codes, grants, refreshTokens, sessions, interactions, consents, signingKeys };
}

describeRepositoryContract("SQLite, in the host's open connection beside its own users table (tablePrefix gh_)", () => inHostConnection(true), { describe, it, expect, beforeEach, afterEach });

// Without Gatehouse's user tables (decision 0146), the storage keeps the OAuth part of the contract (docs/decisions/0161).
describeOAuthRepositoryContract(
  "SQLite, in the host's open connection without Gatehouse's user tables (userTables false)",
  async () => {
    const subject = await inHostConnection(false);
    return { ...subject, repositories: oauthPartOf(subject.repositories) };
  },
  { describe, it, expect, beforeEach, afterEach },
);

describe("storage in the host's database (decision 0018)", () => {
  let file: ReturnType<typeof tempDatabaseFile>;
  let host: BetterSqlite3.Database;

  beforeEach(() => {
    file = tempDatabaseFile();
    host = new BetterSqlite3(file.filename);
    createHostSchema(host);
  });

  afterEach(() => {
    if (host.open) host.close();
    file.remove();
  });

  it('told to use no prefix, the first migration fails on the host\'s users table and leaves the host\'s schema as it was', async () => {
    const storage = await openSqliteStorage({ database: host, tablePrefix: '', userTables: true });
    try {
      await expect(storage.migrate()).rejects.toThrow(/Database migration 0001_initial failed: table "users" already exists/);
      expect(namesIn(host, 'table')).toEqual(['gatehouse_migration', 'gatehouse_migration_lock', 'sessions', 'users']);
    } finally {
      await storage.close();
    }
  });

  it('with a prefix, every Gatehouse table and index and the migrator\'s tables carry it, and the host\'s tables are untouched', async () => {
    const storage = await openSqliteStorage({ database: host, tablePrefix: 'gh_', userTables: true });
    try {
      await storage.migrate();
      await storage.migrate(); // a second run finds nothing to do
      const tables = namesIn(host, 'table');
      expect(tables.filter((name) => !name.startsWith('gh_'))).toEqual(['sessions', 'users']);
      expect(tables.filter((name) => name.startsWith('gh_')).sort()).toEqual(
        [...GATEHOUSE_TABLES.map((name) => `gh_${name}`), 'gh_gatehouse_migration', 'gh_gatehouse_migration_lock', 'gh_gatehouse_user_tables_migration'].sort(),
      );
      const indexes = namesIn(host, 'index');
      expect(indexes).toContain('sessions_by_expiry');
      expect(indexes).toContain('gh_sessions_by_expiry');
      expect(indexes.filter((name) => !name.startsWith('gh_'))).toEqual(['sessions_by_expiry']);
      const migrations = Object.keys(await createMigrationProvider(sqliteDialect).getMigrations()).map((name) => ({ name }));
      expect(host.prepare('select name from gh_gatehouse_migration order by name').all()).toEqual(migrations);

      await storage.repositories.accounts.create({ accountKey: 'a1', name: 'Acme' });
      expect(host.prepare('select account_key, name from gh_accounts').all()).toEqual([{ account_key: 'a1', name: 'Acme' }]);
      expect(host.prepare('select login, display_name from users').all()).toEqual([{ login: 'host-admin', display_name: "The host's own user" }]);
    } finally {
      await storage.close();
    }
  });

  it('leaves the connection it was given open, with its own settings, after close()', async () => {
    host.pragma('journal_mode = DELETE');
    const storage = await openSqliteStorage({ database: host, tablePrefix: 'gh_', userTables: true });
    await storage.migrate();
    await storage.repositories.accounts.create({ accountKey: 'a1', name: 'Acme' });
    await storage.close();
    expect(host.open).toBe(true);
    expect(host.pragma('journal_mode', { simple: true })).toBe('delete');
    expect(host.prepare('select count(*) as n from gh_accounts').get()).toEqual({ n: 1 });
  });

  it('closes a file it opened itself, whose tables may carry a prefix too', async () => {
    const storage = await openSqliteStorage({ filename: file.filename, tablePrefix: 'auth_' });
    await storage.migrate();
    await storage.repositories.accounts.create({ accountKey: 'a1', name: 'Acme' });
    await storage.close();
    expect(host.prepare('select name from auth_accounts').all()).toEqual([{ name: 'Acme' }]);
  });

  it('refuses a connection without foreign keys, a closed or read-only one, and a prefix that is not a plain identifier', async () => {
    host.pragma('foreign_keys = OFF');
    await expect(openSqliteStorage({ database: host })).rejects.toThrow(/foreign keys/);
    host.pragma('foreign_keys = ON');
    const readOnly = new BetterSqlite3(file.filename, { readonly: true });
    await expect(openSqliteStorage({ database: readOnly })).rejects.toThrow(/read-only/);
    readOnly.close();
    await expect(openSqliteStorage({ database: readOnly })).rejects.toThrow(/closed/);
    for (const tablePrefix of ['gh-', '1gh_', 'gh_"; drop table users; --', 'x'.repeat(31)]) {
      await expect(openSqliteStorage({ database: host, tablePrefix })).rejects.toThrow(/table prefix must be a plain identifier/);
    }
  });
});
