import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteFailureStore, ensureFailedAttemptsTable, FAILED_ATTEMPTS_TABLE, type SqliteFailureStore } from './failed-attempts.js';
import { openSqlite } from './sqlite-storage.js';
import { tempDatabaseFile } from './test-support/temp-file.js';

const T0 = 1_700_000_000_000;
const WINDOW = 300_000;

describe('failure counts in the SQLite file, shared by the processes serving it (docs/decisions/0171-serve-workers.md)', () => {
  let file: ReturnType<typeof tempDatabaseFile>;
  // Two storages on one file, as two workers of `gatehouse serve --workers 2` have.
  let opened: Array<Awaited<ReturnType<typeof openSqlite>>>;
  let a: SqliteFailureStore;
  let b: SqliteFailureStore;

  beforeEach(async () => {
    file = tempDatabaseFile();
    opened = await Promise.all([openSqlite({ filename: file.filename }), openSqlite({ filename: file.filename })]);
    await Promise.all(opened.map(({ db }) => ensureFailedAttemptsTable(db)));
    [a, b] = opened.map(({ db }) => createSqliteFailureStore(db)) as [SqliteFailureStore, SqliteFailureStore];
  });

  afterEach(async () => {
    await Promise.all(opened.map(({ storage }) => storage.close()));
    file.remove();
  });

  it('a failure recorded through one connection is seen through the other, per key, oldest first', async () => {
    const victim = { key: 'sign-in:email:ada@example.com', max: 5 };
    const ip = { key: 'sign-in:ip:192.0.2.1', max: 25 };
    await a.recordFailure([victim, ip], T0, WINDOW);
    await b.recordFailure([victim], T0 + 1000, WINDOW);
    expect(await b.recentFailures([victim, ip, { key: 'unknown', max: 5 }], T0 - WINDOW)).toEqual([[T0, T0 + 1000], [T0], []]);
    expect(await a.recentFailures([victim], T0)).toEqual([[T0 + 1000]]);
  });

  it('concurrent failures through both connections all count (one upsert each)', async () => {
    const key = { key: 'client:ip:198.51.100.9', max: 100 };
    await Promise.all(Array.from({ length: 20 }, (_, index) => (index % 2 === 0 ? a : b).recordFailure([key], T0 + index, WINDOW)));
    const [times] = await a.recentFailures([key], T0 - 1);
    expect(times).toEqual(Array.from({ length: 20 }, (_, index) => T0 + index));
  });

  it('attempts admitted through both connections at once: never more than `max` (docs/decisions/0181)', async () => {
    const key = { key: 'sign-in:email:race@example.com', max: 5 };
    const answers = await Promise.all(Array.from({ length: 20 }, (_, index) => (index % 2 === 0 ? a : b).admitFailure(key, T0 + index, WINDOW)));
    expect(answers.filter((answer) => answer === undefined)).toHaveLength(5);
    const [times] = await a.recentFailures([key], T0 - 1);
    expect(times).toHaveLength(5);
    // A refused attempt is told the failures in the window.
    expect(answers.find((answer) => answer !== undefined)).toEqual(times);
  });

  it('a withdrawn failure is taken out once (another of the same millisecond stays), then there is room again', async () => {
    const key = { key: 'sign-in:email:ada@example.com', max: 3 };
    for (const at of [T0, T0, T0 + 5]) expect(await a.admitFailure(key, at, WINDOW)).toBeUndefined();
    expect(await b.admitFailure(key, T0 + 6, WINDOW)).toEqual([T0, T0, T0 + 5]);
    await b.withdrawFailure([key, { key: 'unknown', max: 1 }], T0);
    expect(await a.recentFailures([key], T0 - 1)).toEqual([[T0, T0 + 5]]);
    await b.withdrawFailure([key], T0 + 99);
    expect(await a.recentFailures([key], T0 - 1)).toEqual([[T0, T0 + 5]]);
    expect(await b.admitFailure(key, T0 + 7, WINDOW)).toBeUndefined();
  });

  it('keeps only the newest `max` failures inside the window', async () => {
    const key = { key: 'client:id:192.0.2.2:app', max: 3 };
    for (let index = 0; index < 5; index += 1) await a.recordFailure([key], T0 + index * 1000, WINDOW);
    const raw = new BetterSqlite3(file.filename, { readonly: true });
    try {
      const row = raw.prepare(`select failures from ${FAILED_ATTEMPTS_TABLE} where key = ?`).get(key.key) as { failures: string };
      expect((JSON.parse(row.failures) as number[]).sort()).toEqual([T0 + 2000, T0 + 3000, T0 + 4000]);
    } finally {
      raw.close();
    }
    // A failure after the window forgets the old ones.
    await b.recordFailure([key], T0 + 4000 + WINDOW, WINDOW);
    expect(await a.recentFailures([key], T0 + 4000)).toEqual([[T0 + 4000 + WINDOW]]);
  });

  it('purges the rows whose failures have all left the window', async () => {
    await a.recordFailure([{ key: 'old', max: 5 }], T0, WINDOW);
    await a.recordFailure([{ key: 'recent', max: 5 }], T0 + 10_000, WINDOW);
    expect(await b.purgeExpired(T0 + WINDOW)).toBe(1);
    expect(await b.recentFailures([{ key: 'old', max: 5 }, { key: 'recent', max: 5 }], 0)).toEqual([[], [T0 + 10_000]]);
  });

  it('creating the table again changes nothing', async () => {
    await a.recordFailure([{ key: 'kept', max: 5 }], T0, WINDOW);
    await ensureFailedAttemptsTable(opened[1]!.db);
    expect(await b.recentFailures([{ key: 'kept', max: 5 }], 0)).toEqual([[T0]]);
  });
});

describe('openSqliteStorage({ sharedByInstances })', () => {
  it('gives the storage a failure store whose table migrate() creates; a storage for one process has none', async () => {
    const file = tempDatabaseFile();
    const shared = await openSqlite({ filename: file.filename, sharedByInstances: true });
    const single = await openSqlite({ filename: file.filename });
    try {
      expect(single.storage.failedAttempts).toBeUndefined();
      await shared.storage.migrate();
      const store = shared.storage.failedAttempts as SqliteFailureStore;
      await store.recordFailure([{ key: 'sign-in:email:ada@example.com', max: 5 }], T0, WINDOW);
      const raw = new BetterSqlite3(file.filename, { readonly: true });
      try {
        expect(raw.prepare(`select count(*) as rows from ${FAILED_ATTEMPTS_TABLE}`).get()).toEqual({ rows: 1 });
      } finally {
        raw.close();
      }
    } finally {
      await Promise.all([shared.storage.close(), single.storage.close()]);
      file.remove();
    }
  });
});
