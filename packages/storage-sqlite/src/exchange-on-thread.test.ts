import BetterSqlite3 from 'better-sqlite3';
import { StorageUnavailableError } from '@gatehouse/core';
import type { Storage } from '@gatehouse/storage-kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStorage, type SqliteFileOptions } from './sqlite-storage.js';
import { exchangeCode, FIXTURE_NOW, seedClientAndCodes, seedCodes } from './test-support/exchange-fixtures.js';
import { tempDatabaseFile } from './test-support/temp-file.js';

const now = FIXTURE_NOW;
const codeHashes = (count: number) => Array.from({ length: count }, (_, index) => `code${index}`);

const exchange = exchangeCode;

/**
 * Counts the 5 ms timer ticks that fire while `work` is still pending. A wait that blocks the event
 * loop holds every timer until it has ended and settled the work, so it leaves none: the proof is
 * that one fired at all, not how many (a loaded machine may stall the loop for most of the wait).
 */
async function ticksWhilePending<T>(work: () => Promise<T>): Promise<{ ticks: number; outcome: PromiseSettledResult<T> }> {
  let settled = false;
  let ticks = 0;
  const timer = setInterval(() => {
    if (!settled) ticks += 1;
  }, 5);
  const [outcome] = await Promise.allSettled([work().finally(() => (settled = true))]);
  clearInterval(timer);
  return { ticks, outcome: outcome as PromiseSettledResult<T> };
}

describe('the code exchange on a SQLite file, written by the write thread (decision 0075)', () => {
  let file: ReturnType<typeof tempDatabaseFile>;
  let storage: Storage | undefined;
  let other: BetterSqlite3.Database | undefined;

  const open = async (options: Partial<SqliteFileOptions> = {}) => {
    storage = await openSqliteStorage({ filename: file.filename, ...options });
    await storage.migrate();
    return storage;
  };

  beforeEach(() => {
    file = tempDatabaseFile();
  });

  afterEach(async () => {
    other?.close();
    other = undefined;
    await storage?.close();
    storage = undefined;
    file.remove();
  });

  it('waits for a write lock held by another process without blocking the event loop', async () => {
    // A busy timeout no late timer reaches: the exchange can only go through once the release
    // below has fired, which a wait on the event loop would hold until it failed (busy).
    const opened = await open({ busyTimeoutMs: 20_000 });
    await seedClientAndCodes(opened, codeHashes(1));
    other = new BetterSqlite3(file.filename);
    other.exec('begin immediate');
    const release = setTimeout(() => other?.exec('commit'), 150);
    const { ticks, outcome } = await ticksWhilePending(() => exchange(opened, 0));
    clearTimeout(release);
    expect(outcome).toEqual({ status: 'fulfilled', value: true });
    // Timers fired while the exchange was still pending (the release among them).
    expect(ticks).toBeGreaterThan(0);
    expect(await opened.repositories.grants.findById('g0')).toMatchObject({ grantId: 'g0', clientId: 'c1' });
  }, 60_000);

  it('waits without the thread (writeThread: false) off the event loop too, and fails as an outage at its busy timeout (decision 0101)', async () => {
    // Long enough that a stall of the loaded machine's event loop does not outlast the whole wait.
    const busyTimeoutMs = 1000;
    const opened = await open({ busyTimeoutMs, writeThread: false });
    await seedClientAndCodes(opened, codeHashes(1));
    other = new BetterSqlite3(file.filename);
    other.exec('begin immediate');
    const started = performance.now();
    const { ticks, outcome } = await ticksWhilePending(() => exchange(opened, 0));
    const waited = performance.now() - started;
    other.exec('rollback');
    expect(outcome.status).toBe('rejected');
    const failure = (outcome as PromiseRejectedResult).reason as unknown;
    expect(failure).toBeInstanceOf(StorageUnavailableError);
    expect(failure).toMatchObject({ reason: 'busy' });
    // It waited its busy timeout, with timers firing while it was still pending (the event loop was free).
    expect(waited).toBeGreaterThanOrEqual(busyTimeoutMs - 5);
    expect(ticks).toBeGreaterThan(0);
    // Nothing was written: the code can still be exchanged.
    expect(await exchange(opened, 0)).toBe(true);
  }, 60_000);

  it("orders the serving connection's writes with the thread's: none meets SQLITE_BUSY, though the connections' own busy_timeout is 0 (decision 0101)", async () => {
    const opened = await open();
    const count = 40;
    await seedClientAndCodes(opened, codeHashes(count));
    const at = new Date(now.getTime() + 1000);
    const writes: Array<Promise<unknown>> = [];
    for (let index = 0; index < count; index += 1) {
      writes.push(exchange(opened, index));
      // The exchange has gone to the thread, which is writing it now.
      await new Promise((resolve) => setImmediate(resolve));
      // A write of the serving connection by the direct executor (a client-credentials grant)…
      writes.push(opened.repositories.grants.create({ grantId: `cc${index}`, clientId: 'c1', userKey: null, scopes: [], sessionId: null, createdAt: now, revokedAt: null }));
      // …and by kysely's own path.
      writes.push(opened.repositories.grants.revoke(`g${index}`, at));
    }
    const outcomes = await Promise.allSettled(writes);
    expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toEqual([]);
    for (let index = 0; index < count; index += 1) {
      expect(await opened.repositories.grants.findById(`g${index}`)).toBeDefined();
      expect(await opened.repositories.grants.findById(`cc${index}`)).toBeDefined();
    }
  });

  it('refuses a code whose sign-in session ended, in the same statement that consumes it', async () => {
    const opened = await open();
    await seedClientAndCodes(opened, []);
    await opened.repositories.sessions.create({ sessionId: 's1', userKey: 'u1', createdAt: now, authenticatedAt: now, expiresAt: new Date(now.getTime() + 3_600_000), endedAt: null });
    await seedCodes(opened, ['code0', 'code1'], 's1');
    expect(await exchange(opened, 0)).toBe(true);
    await opened.repositories.sessions.endWithGrants('s1', now);
    expect(await exchange(opened, 1)).toBe(false);
    expect(await opened.repositories.codes.findByHash('code1')).toMatchObject({ consumedAt: null });
    expect(await opened.repositories.grants.findById('g1')).toBeUndefined();
  });
});
