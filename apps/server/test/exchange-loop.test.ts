import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, REPO_ROOT } from './support/processes.js';

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
    expect(run.stdout).toMatch(/^300 exchanges, 0 grants before, time-ordered grant ids: CPU \d+\.\d µs\/exchange \(system \d+\.\d\), wall \d+\.\d µs\/exchange\n$/);
    expect(leftovers()).toEqual(before);
  }, 120_000);

  it('seeds a grown file first and takes random grant ids when asked', async () => {
    const run = await runLoop(['--exchanges', '300', '--grants', '3000', '--grant-ids', 'random']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^300 exchanges, 3,000 grants before, random grant ids: CPU /);
  }, 120_000);

  it('refuses an unknown kind of grant id', async () => {
    const run = await runLoop(['--grant-ids', 'uuid']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('--grant-ids is random or time-ordered');
  }, 120_000);
});
