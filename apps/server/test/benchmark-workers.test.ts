import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, runBenchmark } from './support/processes.js';

// `npm run bench -- --workers 2 --load-threads 2` (issue 32, item 2): the shortest run proves the
// options work — the server's workers answer every request, autocannon's threads drive the
// targets it can clone, and the cores table is written — never judges a speed.

interface Row {
  name: string;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  serverCpuShare: number | null;
  loadGeneratorCpuShare: number;
}

let out: string;
let run: { code: number | null; stderr: string };

beforeAll(async () => {
  await ensureBuilt();
  out = mkdtempSync(join(tmpdir(), 'gatehouse-bench-workers-test-'));
  run = await runBenchmark(
    [
      ...['--only', 'users-me,code-exchange', '--workers', '2', '--load-threads', '2', '--duration', '1', '--warmup', '0', '--rounds', '1', '--connections', '4'],
      ...['--no-growth', '--no-peer', '--no-postgres', '--out', out],
    ],
    240_000,
  );
}, 300_000);

afterAll(() => {
  rmSync(out, { recursive: true, force: true });
});

describe('npm run bench -- --workers 2 --load-threads 2 (shortest run)', () => {
  it('measures Users/me and the code exchange on two workers, every request answered as expected', () => {
    expect(run.code, run.stderr.slice(-2000)).toBe(0);
    const results = JSON.parse(readFileSync(join(out, 'latest.json'), 'utf8')) as { meta: Record<string, unknown>; phases: Array<{ scenarios: Row[] }> };
    expect(results.meta).toMatchObject({ workers: 2, loadThreads: 2, database: expect.stringContaining('2 workers') });
    const rows = results.phases[0]?.scenarios ?? [];
    expect(rows.map((row) => row.name)).toEqual(['bare', 'users-me', 'code-exchange']);
    for (const row of rows) {
      expect(row.requests, row.name).toBeGreaterThan(0);
      expect({ non2xx: row.non2xx, errors: row.errors, timeouts: row.timeouts }, row.name).toEqual({ non2xx: 0, errors: 0, timeouts: 0 });
      expect(row.serverCpuShare, row.name).toBeGreaterThan(0);
      expect(row.loadGeneratorCpuShare, row.name).toBeGreaterThan(0);
    }
  });

  it('writes the cores table: what the server and the load generator kept busy per row', () => {
    const report = readFileSync(join(out, 'latest.md'), 'utf8');
    expect(report).toContain('Cores kept busy (server: 2 worker(s) and the primary; load generator: 2 autocannon thread(s)');
    expect(report).toMatch(/\| GET \/identity\/v1\/Users\/me \(bearer\) \| \d+ \| \d+\.\d\d \| \d+\.\d\d \|/);
  });
});
