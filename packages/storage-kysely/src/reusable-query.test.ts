import { Kysely, SqliteDialect } from 'kysely';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inTransaction, param, reusableQuery } from './reusable-query.js';

interface Db {
  items: { id: string; kind: string; size: number; note: string | null };
}

describe('reusableQuery', () => {
  let db: Kysely<Db>;
  let other: Kysely<Db>;

  beforeEach(async () => {
    db = new Kysely<Db>({ dialect: new SqliteDialect({ database: new BetterSqlite3(':memory:') }) });
    other = new Kysely<Db>({ dialect: new SqliteDialect({ database: new BetterSqlite3(':memory:') }) });
    for (const k of [db, other]) {
      await k.schema.createTable('items').addColumn('id', 'text', (c) => c.primaryKey()).addColumn('kind', 'text').addColumn('size', 'integer').addColumn('note', 'text').execute();
    }
  });

  afterEach(async () => {
    await db.destroy();
    await other.destroy();
  });

  it('builds once and runs with each call\'s values, constants of the query kept', async () => {
    let builds = 0;
    const insert = reusableQuery((k: Kysely<Db>) => {
      builds += 1;
      return k.insertInto('items').values({ id: param('id'), kind: 'fixed kind', size: param<number>('size'), note: param<string | null>('note') });
    });
    const find = reusableQuery((k: Kysely<Db>) => k.selectFrom('items').selectAll().where('id', '=', param('id')).where('size', '>', 1));
    await insert(db, { id: 'a', size: 5, note: null });
    await insert(db, { id: 'b', size: 1, note: "it's; drop table items --" });
    expect(builds).toBe(1);
    expect((await find(db, { id: 'a' })).rows).toEqual([{ id: 'a', kind: 'fixed kind', size: 5, note: null }]);
    // The constant 1 of `size > 1` stayed a constant: b (size 1) is not found.
    expect((await find(db, { id: 'b' })).rows).toEqual([]);
    // A value is a bound parameter, never SQL text.
    expect(await db.selectFrom('items').select('note').where('id', '=', 'b').executeTakeFirst()).toEqual({ note: "it's; drop table items --" });
  });

  it('compiles per database and is shared with that database\'s transactions', async () => {
    let builds = 0;
    const insert = reusableQuery((k: Kysely<Db>) => {
      builds += 1;
      return k.insertInto('items').values({ id: param('id'), kind: 'k', size: 1, note: null });
    });
    // A transaction `inTransaction` opens (kysely says nothing public of a transaction's database).
    await inTransaction(db, async (trx) => {
      await insert(trx, { id: 'in-trx' });
    });
    await insert(db, { id: 'outside' });
    expect(builds).toBe(1);
    await insert(other, { id: 'elsewhere' });
    expect(builds).toBe(2);
    expect((await db.selectFrom('items').select('id').orderBy('id').execute()).map((r) => r.id)).toEqual(['in-trx', 'outside']);
    expect((await other.selectFrom('items').select('id').execute()).map((r) => r.id)).toEqual(['elsewhere']);
  });

  it('refuses a call without one of the values, rather than binding the marker', async () => {
    const find = reusableQuery((k: Kysely<Db>) => k.selectFrom('items').selectAll().where('id', '=', param('id')));
    await expect(find(db, {})).rejects.toThrow('reusableQuery: no value for id');
  });
});
