import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAILED_ATTEMPTS_TABLE } from './failed-attempts.js';
import { dropSchema, freshSchemaName, openTestStorage, POSTGRES_URL, warnIfSkipped } from './test-support/postgres.js';

warnIfSkipped('the shared failure counts');

describe.skipIf(!POSTGRES_URL)('failure counts in PostgreSQL, shared by instances (docs/decisions/0023, amended)', () => {
  const schema = freshSchemaName();
  // Two pools on one schema, as two server instances have.
  let a: Awaited<ReturnType<typeof openTestStorage>>;
  let b: Awaited<ReturnType<typeof openTestStorage>>;
  const T0 = 1_700_000_000_000;
  const WINDOW = 300_000;

  beforeAll(async () => {
    [a, b] = await Promise.all([openTestStorage(schema, 4), openTestStorage(schema, 4)]);
  }, 60_000);

  afterAll(async () => {
    await a?.storage.close();
    await b?.storage.close();
    await dropSchema(schema);
  });

  it('a failure recorded through one pool is seen through the other, per key, oldest first', async () => {
    const victim = { key: 'sign-in:email:ada@example.com', max: 5 };
    const ip = { key: 'sign-in:ip:192.0.2.1', max: 25 };
    await a.storage.failedAttempts.recordFailure([victim, ip], T0, WINDOW);
    await b.storage.failedAttempts.recordFailure([victim], T0 + 1000, WINDOW);
    expect(await b.storage.failedAttempts.recentFailures([victim, ip, { key: 'unknown', max: 5 }], T0 - WINDOW)).toEqual([[T0, T0 + 1000], [T0], []]);
    expect(await a.storage.failedAttempts.recentFailures([victim], T0)).toEqual([[T0 + 1000]]);
  });

  it('concurrent failures on both pools all count (one atomic upsert each)', async () => {
    const key = { key: 'client:ip:198.51.100.9', max: 100 };
    await Promise.all(Array.from({ length: 20 }, (_, index) => (index % 2 === 0 ? a : b).storage.failedAttempts.recordFailure([key], T0 + index, WINDOW)));
    const [times] = await a.storage.failedAttempts.recentFailures([key], T0 - 1);
    expect(times).toEqual(Array.from({ length: 20 }, (_, index) => T0 + index));
  });

  it('attempts admitted through both pools at once: never more than `max` (one conditional upsert each; docs/decisions/0181)', async () => {
    const key = { key: 'sign-in:email:race@example.com', max: 5 };
    const answers = await Promise.all(Array.from({ length: 20 }, (_, index) => (index % 2 === 0 ? a : b).storage.failedAttempts.admitFailure(key, T0 + index, WINDOW)));
    expect(answers.filter((answer) => answer === undefined)).toHaveLength(5);
    const [times] = await a.storage.failedAttempts.recentFailures([key], T0 - 1);
    expect(times).toHaveLength(5);
    expect(answers.find((answer) => answer !== undefined)).toEqual(times);
  });

  it('a withdrawn failure is taken out once (another of the same millisecond stays), then there is room again', async () => {
    const key = { key: 'sign-in:email:withdrawn@example.com', max: 3 };
    for (const at of [T0, T0, T0 + 5]) expect(await a.storage.failedAttempts.admitFailure(key, at, WINDOW)).toBeUndefined();
    expect(await b.storage.failedAttempts.admitFailure(key, T0 + 6, WINDOW)).toEqual([T0, T0, T0 + 5]);
    await b.storage.failedAttempts.withdrawFailure([key, { key: 'unknown', max: 1 }], T0);
    expect(await a.storage.failedAttempts.recentFailures([key], T0 - 1)).toEqual([[T0, T0 + 5]]);
    await b.storage.failedAttempts.withdrawFailure([key], T0 + 99);
    expect(await a.storage.failedAttempts.recentFailures([key], T0 - 1)).toEqual([[T0, T0 + 5]]);
    expect(await b.storage.failedAttempts.admitFailure(key, T0 + 7, WINDOW)).toBeUndefined();
  });

  it('keeps only the newest `max` failures inside the window', async () => {
    const key = { key: 'client:id:192.0.2.2:app', max: 3 };
    for (let index = 0; index < 5; index += 1) await a.storage.failedAttempts.recordFailure([key], T0 + index * 1000, WINDOW);
    const stored = await sql<{ failures: string[] }>`select failures from ${sql.table(`${schema}.${FAILED_ATTEMPTS_TABLE}`)} where key = ${key.key}`.execute(a.db);
    expect(stored.rows[0]?.failures.map(Number)).toEqual([T0 + 2000, T0 + 3000, T0 + 4000]);
    // A failure after the window forgets the old ones.
    await b.storage.failedAttempts.recordFailure([key], T0 + 4000 + WINDOW, WINDOW);
    expect(await a.storage.failedAttempts.recentFailures([key], T0 + 4000)).toEqual([[T0 + 4000 + WINDOW]]);
  });

  it('purges the rows whose failures have all left the window', async () => {
    await a.empty();
    await a.storage.failedAttempts.recordFailure([{ key: 'old', max: 5 }], T0, WINDOW);
    await a.storage.failedAttempts.recordFailure([{ key: 'recent', max: 5 }], T0 + 10_000, WINDOW);
    expect(await b.storage.failedAttempts.purgeExpired(T0 + WINDOW)).toBe(1);
    expect(await b.storage.failedAttempts.recentFailures([{ key: 'old', max: 5 }, { key: 'recent', max: 5 }], 0)).toEqual([[], [T0 + 10_000]]);
  });
});
