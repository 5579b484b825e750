import { StorageUnavailableError } from '@gatehouse/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { createMigrationProvider, MIGRATION_TABLE } from '@gatehouse/storage-kysely';
import BetterSqlite3 from 'better-sqlite3';
import { WAL_SIZE_LIMIT_BYTES } from './background-checkpoints.js';
import { openSqlite, openSqliteStorage } from './sqlite-storage.js';
import { sqliteDialect } from './sqlite-dialect.js';
import { tempDatabaseFile } from './test-support/temp-file.js';

const account = { accountKey: 'a1', name: 'Kept across migrations' };

describe('openSqliteStorage', () => {
  let file: ReturnType<typeof tempDatabaseFile>;

  beforeEach(() => {
    file = tempDatabaseFile();
  });

  afterEach(() => {
    file.remove();
  });

  it('sets WAL, foreign keys and synchronous=FULL on the connection, and no busy_timeout: the storage waits for locks itself (decision 0101)', async () => {
    const { storage, database } = await openSqlite({ filename: file.filename, busyTimeoutMs: 1234, synchronous: 'FULL' });
    try {
      expect(database.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(database.pragma('foreign_keys', { simple: true })).toBe(1);
      expect(database.pragma('busy_timeout', { simple: true })).toBe(0);
      expect(database.pragma('synchronous', { simple: true })).toBe(2); // 2 = FULL
    } finally {
      await storage.close();
    }
  });

  it('sets synchronous=NORMAL by default: durable across a killed process (decision 0010)', async () => {
    const { storage, database } = await openSqlite({ filename: file.filename });
    try {
      expect(database.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(database.pragma('synchronous', { simple: true })).toBe(1); // 1 = NORMAL
    } finally {
      await storage.close();
    }
  });

  it('copies the WAL into the database file from a background thread, not in its own commits (decision 0068)', async () => {
    const { storage, database } = await openSqlite({ filename: file.filename });
    const reader = new BetterSqlite3(file.filename);
    try {
      await storage.migrate();
      // Its own checkpoints wait for a WAL of 10,000 pages (40 MiB): this 2 MiB stays in the WAL…
      expect(database.pragma('wal_autocheckpoint', { simple: true })).toBe(10_000);
      // A reader's snapshot from before the commit holds its frames in the WAL, whatever the
      // background thread does meanwhile (a checkpoint never copies frames a reader may not see):
      // the file's size below does not depend on when the thread runs.
      reader.exec('begin');
      reader.prepare('select count(*) from accounts').get();
      const before = statSync(file.filename).size;
      const payload = 'x'.repeat(2000);
      database.transaction(() => {
        for (let i = 0; i < 1000; i += 1) database.prepare('insert into accounts (account_key, name) values (?, ?)').run(`a${i}`, payload);
      })();
      expect(statSync(file.filename).size).toBe(before);
      reader.exec('commit');
      // …until the background thread copies it into the database file. The thread starts with the
      // storage (a worker: seconds on a loaded machine), hence the long poll and the test's timeout.
      await expect.poll(() => statSync(file.filename).size, { timeout: 20_000, interval: 50 }).toBeGreaterThan(before + 2_000_000);
    } finally {
      reader.close();
      await storage.close();
    }
  }, 60_000);

  it('cuts the -wal file back to 48 MiB when the WAL restarts after a burst', async () => {
    const { storage, database } = await openSqlite({ filename: file.filename });
    const reader = new BetterSqlite3(file.filename);
    try {
      expect(database.pragma('journal_size_limit', { simple: true })).toBe(WAL_SIZE_LIMIT_BYTES);
      database.exec('create table burst (payload blob)');
      // A reader's snapshot keeps every frame in the WAL: the burst grows it past the limit.
      reader.exec('begin');
      reader.prepare('select count(*) from burst').get();
      const insert = database.prepare('insert into burst values (randomblob(4000))');
      database.transaction(() => {
        for (let i = 0; i < 14_000; i += 1) insert.run();
      })();
      const walFile = `${file.filename}-wal`;
      expect(statSync(walFile).size).toBeGreaterThan(WAL_SIZE_LIMIT_BYTES);
      reader.exec('commit');
      // Once the background thread has copied it all, the next commit restarts the WAL and cuts the
      // file. The burst and the copy take seconds on a loaded machine: a long poll, a longer test timeout.
      await expect
        .poll(
          () => {
            database.prepare('delete from burst where rowid = (select min(rowid) from burst)').run();
            return statSync(walFile).size;
          },
          { timeout: 20_000, interval: 100 },
        )
        .toBeLessThanOrEqual(WAL_SIZE_LIMIT_BYTES);
    } finally {
      reader.close();
      await storage.close();
    }
  }, 60_000);

  it('leaves the checkpoints to SQLite inside its commits with backgroundCheckpoints: false', async () => {
    const { storage, database } = await openSqlite({ filename: file.filename, backgroundCheckpoints: false });
    try {
      expect(database.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    } finally {
      await storage.close();
    }
  });

  it('refuses a synchronous level other than NORMAL or FULL', async () => {
    await expect(openSqlite({ filename: file.filename, synchronous: 'OFF' as 'FULL' })).rejects.toThrow('synchronous must be NORMAL or FULL (got OFF).');
  });

  it('creates the file and its directory', async () => {
    const filename = join(file.filename, '..', 'nested', 'deeper', 'gatehouse.db');
    const storage = await openSqliteStorage({ filename });
    await storage.migrate();
    await storage.repositories.accounts.create(account);
    await storage.close();
    const again = await openSqliteStorage({ filename });
    expect(await again.repositories.accounts.findByKey('a1')).toEqual(account);
    await again.close();
  });

  it('migrates twice, and from a second connection, without harm to the data', async () => {
    const { storage, database } = await openSqlite({ filename: file.filename });
    await storage.migrate();
    await storage.repositories.accounts.create(account);
    await storage.migrate();
    const second = await openSqliteStorage({ filename: file.filename });
    await Promise.all([second.migrate(), storage.migrate()]);
    expect(await second.repositories.accounts.findByKey('a1')).toEqual(account);
    // Every migration recorded once.
    const migrations = Object.keys(await createMigrationProvider(sqliteDialect).getMigrations()).sort();
    expect(database.prepare(`select name from ${MIGRATION_TABLE} order by name`).all()).toEqual(migrations.map((name) => ({ name })));
    expect(migrations.slice(0, 5)).toEqual(['0001_initial', '0002_one_owner_per_phone_number', '0003_interactions', '0004_client_types_and_grant_types', '0005_remembered_consent']);
    await second.close();
    await storage.close();
  });

  it('answers ping while open and not after close; close twice is harmless', async () => {
    const storage = await openSqliteStorage({ filename: ':memory:' });
    expect(await storage.ping()).toBe(true);
    await storage.close();
    await storage.close();
    expect(await storage.ping()).toBe(false);
  });

  it('checks writes by committing the readiness row, and fails as an outage when the database takes none (decision 0103)', async () => {
    const { storage, database } = await openSqlite({ filename: file.filename });
    try {
      await storage.migrate();
      await storage.checkWrites();
      await storage.checkWrites({ bytes: 100_000 });
      expect(database.prepare('select probe_key, length(padding) as bytes from readiness_probe').all()).toEqual([{ probe_key: 'readiness', bytes: 100_000 }]);
      await storage.checkWrites();
      expect(database.prepare('select length(padding) as bytes from readiness_probe').get()).toEqual({ bytes: 0 });
      // Reads still answer, writes do not.
      database.pragma('query_only = 1');
      expect(await storage.ping()).toBe(true);
      await expect(storage.checkWrites()).rejects.toBeInstanceOf(StorageUnavailableError);
      database.pragma('query_only = 0');
      await storage.checkWrites();
    } finally {
      await storage.close();
    }
  });

  it('keeps each :memory: storage apart', async () => {
    const first = await openSqliteStorage({ filename: ':memory:' });
    const second = await openSqliteStorage({ filename: ':memory:' });
    await first.migrate();
    await second.migrate();
    await first.repositories.accounts.create(account);
    expect(await second.repositories.accounts.findByKey('a1')).toBeUndefined();
    await first.close();
    await second.close();
  });

  it('rolls a failed transaction back: nothing of a refused attribute write remains', async () => {
    const storage = await openSqliteStorage({ filename: file.filename });
    await storage.migrate();
    const repos = storage.repositories;
    await repos.accounts.create(account);
    expect(await repos.attributes.create('a1', { key: 'k1', name: 'department' }, 10)).toBe('created');
    // The same key again violates the primary key inside the create transaction: it fails whole.
    await expect(repos.attributes.create('a1', { key: 'k1', name: 'other' }, 10)).rejects.toThrow(/UNIQUE constraint failed/);
    expect(await repos.attributes.list('a1', { offset: 0, limit: 10 })).toEqual({ results: [{ key: 'k1', name: 'department' }], total: 1 });
    // The connection is usable afterwards (no transaction left open).
    expect(await repos.attributes.create('a1', { key: 'k2', name: 'other' }, 10)).toBe('created');
    await storage.close();
  });
});
