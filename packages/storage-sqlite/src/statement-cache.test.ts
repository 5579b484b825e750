import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqlite } from './sqlite-storage.js';
import { withStatementCache } from './statement-cache.js';

describe('withStatementCache', () => {
  let database: BetterSqlite3.Database;

  beforeEach(() => {
    database = new BetterSqlite3(':memory:');
    database.exec("create table t (id integer primary key, v text); insert into t (v) values ('a'), ('b'), ('c')");
  });

  afterEach(() => {
    if (database.open) database.close();
  });

  it('hands out the same prepared statement for the same SQL, with the parameters of each run', () => {
    const cached = withStatementCache(database);
    const first = cached.prepare('select v from t where id = ?');
    const second = cached.prepare('select v from t where id = ?');
    expect(second).toBe(first);
    expect(first.all([1])).toEqual([{ v: 'a' }]);
    expect(second.all([2])).toEqual([{ v: 'b' }]);
    expect(cached.prepare('select v from t where id > ?')).not.toBe(first);
    expect(cached.cachedStatements).toBe(2);
  });

  it('keeps at most maxStatements, dropping the least recently used', () => {
    const cached = withStatementCache(database, 2);
    const a = cached.prepare('select 1');
    const b = cached.prepare('select 2');
    expect(cached.prepare('select 1')).toBe(a); // a is now the most recently used
    cached.prepare('select 3');
    expect(cached.cachedStatements).toBe(2);
    expect(cached.prepare('select 1')).toBe(a);
    expect(cached.prepare('select 2')).not.toBe(b);
  });

  it('prepares a fresh statement while the kept one is still iterating', () => {
    const cached = withStatementCache(database);
    const sql = 'select v from t order by id';
    const iterating = cached.prepare(sql);
    const rows = iterating.iterate([]);
    expect(rows.next().value).toEqual({ v: 'a' });
    const other = cached.prepare(sql);
    expect(other).not.toBe(iterating);
    expect(other.all([])).toEqual([{ v: 'a' }, { v: 'b' }, { v: 'c' }]);
    expect([...rows]).toEqual([{ v: 'b' }, { v: 'c' }]);
  });

  it('a kept statement sees a schema change', () => {
    const cached = withStatementCache(database);
    const select = cached.prepare('select * from t where id = ?');
    expect(select.all([1])).toEqual([{ id: 1, v: 'a' }]);
    database.exec("alter table t add column w text not null default 'x'");
    expect(cached.prepare('select * from t where id = ?').all([1])).toEqual([{ id: 1, v: 'a', w: 'x' }]);
  });

  it('close() closes the database', () => {
    const cached = withStatementCache(database);
    cached.prepare('select 1');
    cached.close();
    expect(database.open).toBe(false);
    expect(cached.cachedStatements).toBe(0);
  });
});

describe('the storage reuses prepared statements', () => {
  it('prepares a repeated query once', async () => {
    const { storage, database } = await openSqlite({ filename: ':memory:' });
    try {
      await storage.migrate();
      const prepared: string[] = [];
      const prepare = database.prepare.bind(database);
      database.prepare = ((sql: string) => {
        prepared.push(sql);
        return prepare(sql);
      }) as typeof database.prepare;
      for (let i = 0; i < 3; i += 1) expect(await storage.repositories.grants.findById('no-such-grant')).toBeUndefined();
      expect(prepared.filter((sql) => sql.includes('"grants"'))).toHaveLength(1);
    } finally {
      await storage.close();
    }
  });
});
