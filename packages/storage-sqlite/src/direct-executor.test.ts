import BetterSqlite3 from 'better-sqlite3';
import { CamelCasePlugin } from 'kysely';
import type { Database, Storage } from '@gatehouse/storage-kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AsyncLock } from './async-lock.js';
import { createDirectExecutor, directExecutorOf } from './direct-executor.js';
import { openSqlite } from './sqlite-storage.js';
import { withStatementCache } from './statement-cache.js';

describe('the direct (synchronous) executor', () => {
  let database: BetterSqlite3.Database;
  let lock: AsyncLock;

  beforeEach(() => {
    database = new BetterSqlite3(':memory:');
    database.exec('create table items (id text primary key, size integer)');
    lock = new AsyncLock();
  });

  afterEach(() => {
    database.close();
  });

  it("answers in the shape of kysely's SQLite driver: rows of a read, changes of a write", () => {
    const direct = createDirectExecutor(withStatementCache(database), lock);
    expect(direct.run('insert into items (id, size) values (?, ?)', ['a', 1])).toEqual({ numAffectedRows: 1n, insertId: 1n, rows: [] });
    expect(direct.run('select id, size from items where id = ?', ['a'])).toEqual({ rows: [{ id: 'a', size: 1 }] });
    expect(direct.run('update items set size = ? returning id', [2])).toEqual({ rows: [{ id: 'a' }] });
  });

  it('commits a transaction, or rolls it back when its body throws, and frees the lock either way', () => {
    const direct = createDirectExecutor(withStatementCache(database), lock);
    expect(direct.transaction((step) => step('insert into items (id, size) values (?, ?)', ['a', 1]).numAffectedRows)).toEqual({ value: 1n });
    const failure = new Error('stop');
    expect(() =>
      direct.transaction((step) => {
        step('insert into items (id, size) values (?, ?)', ['b', 1]);
        throw failure;
      }),
    ).toThrow(failure);
    expect(() => direct.transaction((step) => step('insert into items (id, size) values (?, ?)', ['a', 2]))).toThrow(/UNIQUE/);
    expect(database.inTransaction).toBe(false);
    expect(database.prepare('select id, size from items').all()).toEqual([{ id: 'a', size: 1 }]);
    expect(lock.tryAcquire()).toBe(true);
  });

  it('declines (undefined) while someone else holds the connection, and runs nothing', async () => {
    const direct = createDirectExecutor(withStatementCache(database), lock);
    await lock.acquire();
    expect(direct.run('insert into items (id, size) values (?, ?)', ['a', 1])).toBeUndefined();
    expect(direct.transaction((step) => step('insert into items (id, size) values (?, ?)', ['b', 1]))).toBeUndefined();
    lock.release();
    expect(database.prepare('select count(*) as n from items').get()).toEqual({ n: 0 });
  });
});

describe('a SQLite storage with the direct executor', () => {
  let storage: Storage;
  let opened: Awaited<ReturnType<typeof openSqlite>>;
  const T = new Date('2026-01-01T00:00:00Z');

  beforeEach(async () => {
    opened = await openSqlite({ filename: ':memory:' });
    storage = opened.storage;
    await storage.migrate();
    await storage.repositories.clients.create({ clientId: 'c1', clientSecretHash: 'h', name: 'App', redirectUris: ['https://app.example/cb'], scopes: ['s'], grantTypes: ['authorization_code', 'refresh_token'], pkceRequired: false, ownerUserKey: null, createdAt: T });
    await storage.repositories.codes.save({
      codeHash: 'code1', clientId: 'c1', userKey: 'u1', redirectUri: 'https://app.example/cb', scopes: ['s'], codeChallenge: null, sessionId: null,
      createdAt: T, expiresAt: new Date(T.getTime() + 60_000), consumedAt: null, grantId: null,
    });
  });

  afterEach(async () => {
    await storage.close();
  });

  it('has it on the database, not on its transactions or with other plugins, and not when queries are logged', async () => {
    expect(directExecutorOf(opened.db)).toBeDefined();
    await opened.db.transaction().execute(async (trx) => {
      expect(directExecutorOf<Database>(trx)).toBeUndefined();
    });
    // Another plugin may transform results: kysely's path.
    expect(directExecutorOf(opened.db.withPlugin(new CamelCasePlugin()))).toBeUndefined();
    const logged = await openSqlite({ filename: ':memory:' }, () => undefined);
    expect(directExecutorOf(logged.db)).toBeUndefined();
    await logged.storage.close();
  });

  it('lets a code exchange wait for a kysely transaction that holds the connection across an await, then commit after it', async () => {
    const order: string[] = [];
    let inside!: () => void;
    const entered = new Promise<void>((resolve) => (inside = resolve));
    const held = opened.db.transaction().execute(async (trx) => {
      await trx.updateTable('clients').set({ name: 'Renamed' }).where('client_id', '=', 'c1').execute();
      inside();
      await new Promise((resolve) => setTimeout(resolve, 20));
      order.push('held transaction');
    });
    await entered;
    const at = new Date(T.getTime() + 1000);
    const exchanged = storage.repositories.grants
      .createFromCode({
        grant: { grantId: 'g1', clientId: 'c1', userKey: 'u1', scopes: ['s'], sessionId: null, createdAt: at, revokedAt: null },
        codeHash: 'code1',
        refreshToken: { tokenHash: 'r1', grantId: 'g1', createdAt: at, lastUsedAt: at, rotatedAt: null, supersededAt: null },
      })
      .then((won) => {
        order.push('exchange');
        return won;
      });
    // A read outside the transaction waits too (it would otherwise see the uncommitted rename).
    const read = storage.repositories.clients.findById('c1').then((client) => {
      order.push('read');
      return client?.name;
    });
    await held;
    expect(await exchanged).toBe(true);
    expect(await read).toBe('Renamed');
    expect(order).toEqual(['held transaction', 'exchange', 'read']);
    expect((await storage.repositories.codes.findByHash('code1'))?.grantId).toBe('g1');
    expect((await storage.repositories.refreshTokens.findByHash('r1'))?.grantId).toBe('g1');
  });
});
