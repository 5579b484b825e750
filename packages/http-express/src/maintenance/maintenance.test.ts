import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createTestGatehouse } from '@gatehouse/core/testing';
import { describe, expect, it } from 'vitest';
import type { HttpLogger } from '../logger.js';
import { purgeExpiredRecords, startMaintenance } from './maintenance.js';

/** A logger that resolves `next(msg)` when a line with that message is logged. */
function waitingLogger() {
  const lines: Array<{ level: string; obj: object; msg: string | undefined }> = [];
  const waiters: Array<{ msg: string; resolve: (obj: object) => void }> = [];
  const record = (level: string) => (obj: object, msg?: string) => {
    lines.push({ level, obj, msg });
    for (const waiter of waiters.splice(0)) {
      if (waiter.msg === msg) waiter.resolve(obj);
      else waiters.push(waiter);
    }
  };
  const logger: HttpLogger = { info: record('info'), warn: record('warn'), error: record('error') };
  return { logger, lines, next: (msg: string) => new Promise<object>((resolve) => waiters.push({ msg, resolve })) };
}

/** A storage's shared failure counts (the shape of PostgreSQL's), recording when it was asked to purge. */
function fakeFailureCounts(removed = 2) {
  const purgedAt: number[] = [];
  return { purgedAt, failedAttempts: { purgeExpired: async (now: number) => (purgedAt.push(now), removed) } };
}

describe('purgeExpiredRecords', () => {
  it("purges the core's records and the storage's failure counts as of the Gatehouse clock", async () => {
    const t = await createTestGatehouse();
    const storage = fakeFailureCounts(3);
    const removed = await purgeExpiredRecords(t.gatehouse, storage);
    expect(removed).toMatchObject({ failedAttempts: 3 });
    expect(Object.keys(removed)).toEqual(expect.arrayContaining(Object.keys(await t.gatehouse.purgeExpired())));
    expect(storage.purgedAt).toEqual([t.clock.now().getTime()]);
    expect(await purgeExpiredRecords(t.gatehouse)).not.toHaveProperty('failedAttempts');
  });
});

describe('startMaintenance', () => {
  it('purges on its interval and logs what it removed, until stopped', async () => {
    const t = await createTestGatehouse();
    const storage = fakeFailureCounts();
    const { logger, next } = waitingLogger();
    const maintenance = startMaintenance({ gatehouse: t.gatehouse, storage, logger, intervalMs: 5 });
    try {
      const first = await next('purged expired records');
      expect(first).toMatchObject({ removed: { failedAttempts: 2 } });
      await next('purged expired records');
      expect(storage.purgedAt.length).toBeGreaterThanOrEqual(2);
    } finally {
      await maintenance.stop();
    }
    const runs = storage.purgedAt.length;
    expect(await maintenance.runNow()).toMatchObject({ failedAttempts: 2 });
    expect(storage.purgedAt).toHaveLength(runs + 1);
  });

  it('logs a failed purge instead of throwing, and runs again at the next tick', async () => {
    const { logger, lines, next } = waitingLogger();
    let calls = 0;
    const maintenance = startMaintenance({
      logger,
      intervalMs: 5,
      purge: async () => {
        calls += 1;
        if (calls === 1) throw new Error('database is down');
        return { codes: 1 };
      },
    });
    try {
      await next('purged expired records');
      expect(lines[0]).toEqual({ level: 'error', obj: { err: 'database is down' }, msg: 'purge failed' });
      expect(calls).toBeGreaterThanOrEqual(2);
    } finally {
      await maintenance.stop();
    }
  });

  it('stop() waits for a purge in progress, and a run in progress is not doubled', async () => {
    let release!: () => void;
    let calls = 0;
    const maintenance = startMaintenance({
      intervalMs: 60_000,
      purge: () => {
        calls += 1;
        return new Promise((resolve) => (release = () => resolve({ codes: 0 })));
      },
    });
    const run = maintenance.runNow();
    expect(maintenance.runNow()).toBe(run);
    let stopped = false;
    const stopping = maintenance.stop().then(() => (stopped = true));
    // Every pending callback has run (a macrotask later): the stop still waits for the purge.
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(await run).toEqual({ codes: 0 });
    expect(calls).toBe(1);
  });

  it('refuses an interval setInterval cannot keep', () => {
    const purge = async () => ({});
    for (const intervalMs of [0, -1, Number.NaN, 2 ** 31]) expect(() => startMaintenance({ purge, intervalMs })).toThrow(RangeError);
  });

  it('never keeps the process alive (its timer is unref’d)', async () => {
    const source = fileURLToPath(new URL('./maintenance.ts', import.meta.url));
    const script = `const { startMaintenance } = await import(${JSON.stringify(source)}); startMaintenance({ purge: async () => ({}), intervalMs: 1000 }); console.log('started');`;
    const output = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { timeout: 60_000 }, (error, stdout) => (error ? reject(error) : resolve(stdout))),
    );
    expect(output).toBe('started\n');
  }, 90_000);
});
