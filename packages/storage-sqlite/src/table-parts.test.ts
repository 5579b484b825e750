import { createMigrationProvider, MIGRATION_LOCK_TABLE, MIGRATION_TABLE, OAUTH_TABLES, USER_TABLES, UserTablesOffError, type Database } from '@gatehouse/storage-kysely';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGatehouse, defineSettings } from '@gatehouse/core';
import { createMemoryUserDirectory } from '@gatehouse/core/testing';
import { sqliteDialect } from './sqlite-dialect.js';
import { openSqliteStorage } from './sqlite-storage.js';
import { tempDatabaseFile } from './test-support/temp-file.js';

const tablesOf = (database: BetterSqlite3.Database): string[] =>
  (database.prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name").all() as Array<{ name: string }>).map((row) => row.name);

const user = { userKey: 'u1', email: 'ada@example.com', givenName: 'Ada', familyName: 'Lovelace', locale: 'en', passwordHash: 'hash' };

/** A database as an earlier version (migrations 0001–0010, every table, names as given) left it. */
async function migrateAsEarlierVersion(database: BetterSqlite3.Database): Promise<void> {
  const prefix = '';
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
  const all = await createMigrationProvider(sqliteDialect).getMigrations();
  const earlier = Object.fromEntries(Object.entries(all).filter(([name]) => name <= '0010'));
  const migrator = new Migrator({ db, provider: { getMigrations: async () => earlier }, migrationTableName: prefix + MIGRATION_TABLE, migrationLockTableName: prefix + MIGRATION_LOCK_TABLE });
  const { error } = await migrator.migrateToLatest();
  if (error) throw error;
}

// Issue #30 point 6 (docs/decisions/0146-only-the-tables-a-host-uses.md).
describe('only the tables a host uses, under names that cannot clash', () => {
  let file: ReturnType<typeof tempDatabaseFile>;
  let host: BetterSqlite3.Database;
  beforeEach(() => {
    file = tempDatabaseFile();
    host = new BetterSqlite3(file.filename);
    host.exec('create table users (id integer primary key, email text); create table sessions (sid text primary key); create table accounts (id integer primary key);');
  });
  afterEach(() => {
    if (host.open) host.close();
    file.remove();
  });

  it("on the host's connection: gh_ before every name and only the authorization server's tables, by default", async () => {
    const storage = await openSqliteStorage({ database: host });
    try {
      await storage.migrate();
      const tables = tablesOf(host);
      expect(tables.filter((name) => !name.startsWith('gh_'))).toEqual(['accounts', 'sessions', 'users']);
      expect(tables.filter((name) => name.startsWith('gh_')).sort()).toEqual([...OAUTH_TABLES.map((name) => `gh_${name}`), 'gh_gatehouse_migration', 'gh_gatehouse_migration_lock'].sort());
      for (const name of USER_TABLES) expect(tables).not.toContain(`gh_${name}`);
      // The authorization server works; a call that needs Gatehouse-owned users says what to change.
      await storage.repositories.clients.create({ clientId: 'c1', clientSecretHash: 'h', name: 'App', redirectUris: ['https://app.example/cb'], scopes: ['openid'], grantTypes: ['authorization_code'], pkceRequired: true, ownerUserKey: null, createdAt: new Date(1000) });
      expect((await storage.repositories.clients.findById('c1'))?.name).toBe('App');
      await expect(storage.repositories.users.findByEmail('ada@example.com')).rejects.toThrow(UserTablesOffError);
      await expect(storage.repositories.accounts.findByKey('a1')).rejects.toThrow(/accounts\.findByKey: this storage has no tables of Gatehouse-owned users .* userTables: true/);
      // No join of a users table it does not have: a code exchange reads the code alone, then the host's directory (decision 0172).
      expect(storage.repositories.codes.findByHashWithOwnerEmail).toBeUndefined();
      expect(storage.repositories.refreshTokens.findWithGrantAndOwnerEmail).toBeUndefined();
      // A gatehouse on it without a userDirectory would have nobody to sign in: refused at start-up;
      // with the host's directory it starts (docs/decisions/0201).
      const settings = defineSettings({ issuer: 'http://localhost:3000' });
      const clock = { now: () => new Date() };
      const noUsers = /createGatehouse: no users to sign in/;
      expect(() => createGatehouse({ repositories: storage.repositories, settings, clock })).toThrow(noUsers);
      expect(() => createGatehouse({ repositories: storage.repositories, settings, clock, userDirectory: createMemoryUserDirectory([]) })).not.toThrow();
    } finally {
      await storage.close();
    }
  });

  it('creates the user tables when the host turns them on later, and keeps using them', async () => {
    const oauthOnly = await openSqliteStorage({ database: host });
    await oauthOnly.migrate();
    await oauthOnly.close();
    const withUsers = await openSqliteStorage({ database: host, userTables: true });
    try {
      await withUsers.migrate();
      await withUsers.repositories.users.create(user);
      expect(tablesOf(host)).toEqual(expect.arrayContaining([...USER_TABLES.map((name) => `gh_${name}`), 'gh_gatehouse_user_tables_migration']));
      // 0002's rule holds on tables created by the user tables' track too: one owner per phone number.
      await withUsers.repositories.users.create({ ...user, userKey: 'u2', email: 'bob@example.com' });
      await withUsers.repositories.users.addPhoneNumber('u1', '+15550100');
      await expect(withUsers.repositories.users.addPhoneNumber('u2', '+15550100')).rejects.toThrow();
    } finally {
      await withUsers.close();
    }
    // Opened again without saying: the database has them, so they stay on.
    const again = await openSqliteStorage({ database: host });
    try {
      await again.migrate();
      expect((await again.repositories.users.findByEmail('ada@example.com'))?.userKey).toBe('u1');
    } finally {
      await again.close();
    }
  });

  it("keeps an earlier version's unprefixed tables on the host's connection: same names, its users still there", async () => {
    const bare = new BetterSqlite3(':memory:');
    try {
      await migrateAsEarlierVersion(bare);
      bare.prepare("insert into users (user_key, email, email_folded, given_name, family_name, locale, password_hash) values ('u1', 'ada@example.com', 'ada@example.com', 'Ada', 'L', 'en', 'h')").run();
      const storage = await openSqliteStorage({ database: bare });
      try {
        await storage.migrate();
        expect(tablesOf(bare).filter((name) => name.startsWith('gh_'))).toEqual([]);
        expect((await storage.repositories.users.findByKey('u1'))?.email).toBe('ada@example.com');
      } finally {
        await storage.close();
      }
    } finally {
      bare.close();
    }
  });

  it('in a file Gatehouse opens itself (the reference server): every table, no prefix; an earlier version\'s file opens as it was', async () => {
    const own = tempDatabaseFile();
    const earlier = new BetterSqlite3(own.filename);
    await migrateAsEarlierVersion(earlier);
    earlier.prepare("insert into accounts (account_key, name) values ('a1', 'Acme')").run();
    earlier.close();
    const storage = await openSqliteStorage({ filename: own.filename });
    try {
      await storage.migrate();
      expect((await storage.repositories.accounts.findByKey('a1'))?.name).toBe('Acme');
      const database = new BetterSqlite3(own.filename, { readonly: true });
      expect(tablesOf(database)).toEqual([...OAUTH_TABLES, ...USER_TABLES, 'gatehouse_migration', 'gatehouse_migration_lock', 'gatehouse_user_tables_migration'].sort());
      expect(database.prepare('select name from gatehouse_user_tables_migration').all()).toEqual([{ name: '0011_user_tables' }, { name: '0012_disabled_users' }, { name: '0015_user_records_by_user' }, { name: '0017_attribute_names_unique_as_read' }]);
      database.close();
    } finally {
      await storage.close();
      own.remove();
    }
    const fresh = await openSqliteStorage({ filename: ':memory:' });
    try {
      await fresh.migrate();
      await fresh.repositories.users.create(user);
    } finally {
      await fresh.close();
    }
  });
});

describe('migrationStatus', () => {
  it('says every migration is pending on a new database, creating nothing, and when each ran after migrate()', async () => {
    const database = new BetterSqlite3(':memory:');
    const storage = await openSqliteStorage({ database, userTables: true });
    try {
      const before = await storage.migrationStatus?.();
      expect(before?.map((migration) => migration.executedAt)).toEqual(before?.map(() => null));
      expect(before?.at(-1)).toEqual({ name: '0017_attribute_names_unique_as_read', track: 'user-tables', executedAt: null });
      expect(tablesOf(database)).toEqual([]);
      await storage.migrate();
      const after = (await storage.migrationStatus?.()) ?? [];
      expect(after.map((migration) => migration.name)).toEqual(before?.map((migration) => migration.name));
      for (const migration of after) expect(migration.executedAt).toBeInstanceOf(Date);
    } finally {
      await storage.close();
      database.close();
    }
  });
});
