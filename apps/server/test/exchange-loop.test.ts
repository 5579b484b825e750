import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { ensureBuilt, REPO_ROOT } from './support/processes.js';

const POSTGRES_URL = process.env.GATEHOUSE_TEST_POSTGRES_URL;

// `bench/exchange-loop.js` (bench/results/history.md, "Issue 16, part 7"), as short as it goes: it proves
// the script still drives the storage's real exchange on an empty and a grown file; it never
// asserts a speed.

const leftovers = () => readdirSync(tmpdir()).filter((name) => name.startsWith('gatehouse-exchange-loop-'));

function runLoop(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(REPO_ROOT, 'bench/exchange-loop.js'), ...args], { cwd: REPO_ROOT, timeout: 120_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

beforeAll(async () => {
  await ensureBuilt();
}, 300_000);

describe('bench/exchange-loop.js', () => {
  it('exchanges every code on an empty file with time-ordered grant ids and prints the cost per exchange', async () => {
    const before = leftovers();
    const run = await runLoop(['--exchanges', '300']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^SQLite, 300 exchanges, 1 at once, 0 grants before, time-ordered grant ids: CPU \d+\.\d µs\/exchange \(system \d+\.\d\), wall \d+\.\d µs\/exchange\n$/);
    expect(leftovers()).toEqual(before);
  }, 120_000);

  it('seeds a grown file first and takes random grant ids when asked', async () => {
    const run = await runLoop(['--exchanges', '300', '--grants', '3000', '--grant-ids', 'random']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^SQLite, 300 exchanges, 1 at once, 3,000 grants before, random grant ids: CPU /);
  }, 120_000);

  it('runs several exchanges at once when asked', async () => {
    const run = await runLoop(['--exchanges', '300', '--concurrency', '4']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^SQLite, 300 exchanges, 4 at once, 0 grants before, time-ordered grant ids: CPU /);
  }, 120_000);

  // On PostgreSQL where the suite has one (CI always does): a fresh schema, dropped after.
  if (POSTGRES_URL !== undefined) {
    it('exchanges on PostgreSQL in a schema of its own, and drops it after', async () => {
      const schemas = async () => (await sql.query<{ name: string }>("select schema_name as name from information_schema.schemata where schema_name like 'gatehouse_exchange_loop_%'")).rows.map((row) => row.name);
      const sql = new pg.Client(POSTGRES_URL);
      await sql.connect();
      try {
        const before = await schemas();
        const run = await runLoop(['--postgres', '--exchanges', '300', '--concurrency', '4']);
        expect(run.code, run.stderr).toBe(0);
        expect(run.stdout).toMatch(/^PostgreSQL, 300 exchanges, 4 at once, 0 grants before, time-ordered grant ids: CPU \d+\.\d µs\/exchange/);
        expect(await schemas()).toEqual(before);
      } finally {
        await sql.end();
      }
    }, 120_000);
  }

  it('refuses an unknown kind of grant id', async () => {
    const run = await runLoop(['--grant-ids', 'uuid']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('--grant-ids is random or time-ordered');
  }, 120_000);
});
