import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, REPO_ROOT, runBenchmark } from './support/processes.js';

// `npm run bench` end to end, as short as it goes: both phases, every scenario (the peer's, node-oidc-provider,
// too), the result files. With GATEHOUSE_TEST_POSTGRES_URL, every Gatehouse scenario runs again on
// PostgreSQL (`--postgres`: it must), its row right after SQLite's; without it, `--no-postgres`.
// It proves the benchmark works (every request answered as expected, every figure there); it
// never asserts a speed (docs/performance.md: the benchmark prints figures, CI does not judge them).

const SCENARIOS = [
  'bare',
  'bare-prototypes',
  'healthz',
  'users-me',
  'peer-userinfo',
  'code-exchange',
  'peer-code-exchange',
  'refresh',
  'peer-refresh',
  'sign-in',
  'admin-list',
  'user-attributes-put',
];

const POSTGRES_URL = process.env.GATEHOUSE_TEST_POSTGRES_URL;
const POSTGRES_SCENARIOS = new Set(['healthz', 'users-me', 'code-exchange', 'refresh', 'sign-in', 'admin-list', 'user-attributes-put']);
/** The rows of a phase in order: each Gatehouse scenario's PostgreSQL row right after its SQLite row. */
const ROWS = SCENARIOS.flatMap((name) => (POSTGRES_URL && POSTGRES_SCENARIOS.has(name) ? [`${name}`, `${name} on postgres`] : [name]));
const rowName = (s: ScenarioResult): string => (s.store === 'postgres' ? `${s.name} on postgres` : s.name);

interface ScenarioResult {
  name: string;
  server: 'bare' | 'gatehouse' | 'peer';
  store?: 'sqlite' | 'postgres';
  cpuVsSqlite?: number;
  databaseCpu?: { cpuMsPerRequest?: number; backendsMsPerRequest?: number; unreadable?: string } | null;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  serverCpuMsPerRequest: number | null;
  ratioToBare?: number;
  cpuRatioToBare?: number | null;
  peakRssMiB?: number | null;
  vsEmpty?: number;
}
interface PeerComparison {
  name: string;
  store?: 'sqlite' | 'postgres';
  peerName: string;
  ratioToBare: number;
  peerRatioToBare: number;
  vsPeer: number;
  cpuVsPeer: number | null;
  peerPeakRssMiB: number | null;
}
interface Results {
  meta: { database: string; durationSeconds: number; rounds: number; peer: { name: string; version: string } };
  phases: Array<{
    name: string;
    data: Record<string, number>;
    postgresData?: Record<string, number>;
    scenarios: ScenarioResult[];
    serverPeakRssMiB: number;
    serverPeakRssUnderTargetLoadMiB: number;
    peerPeakRssMiB: number;
    bare: { peakRssMiB: number | null };
    versusPeer: PeerComparison[];
  }>;
}

const COMMITTED_RESULTS = join(REPO_ROOT, 'bench/results/latest.json');
let out: string;
let run: { code: number | null; stderr: string };
let committedBefore: string;

beforeAll(async () => {
  await ensureBuilt();
  committedBefore = readFileSync(COMMITTED_RESULTS, 'utf8');
  out = mkdtempSync(join(tmpdir(), 'gatehouse-bench-test-'));
  run = await runBenchmark(
    [
      ...['--duration', '1', '--warmup', '0', '--rounds', '1', '--connections', '4', '--growth', '--grants', '2000', '--attribute-names', '1000', '--out', out],
      POSTGRES_URL ? '--postgres' : '--no-postgres',
    ],
    360_000,
  );
}, 420_000);

afterAll(() => {
  rmSync(out, { recursive: true, force: true });
});

describe('npm run bench (shortest run)', () => {
  it('ends with exit code 0 and leaves no server behind', () => {
    expect(run.code, run.stderr.slice(-2000)).toBe(0);
    // This checkout's processes only: another checkout's benchmark may run on the same machine.
    const processes = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => line.includes(join(REPO_ROOT, 'bench/')))
      .join('\n');
    expect(processes).not.toContain(join(REPO_ROOT, 'bench/bare-server.js'));
    expect(processes).not.toContain('--express-server-options');
    expect(processes).not.toContain(join(REPO_ROOT, 'bench/peer-server.js'));
  });

  it('measures every scenario in the empty and the grown database, every request answered as expected', () => {
    const results = JSON.parse(readFileSync(join(out, 'latest.json'), 'utf8')) as Results;
    expect(results.meta).toMatchObject({ durationSeconds: 1, rounds: 1, database: expect.stringContaining('SQLite'), peer: { name: 'oidc-provider', version: '8.8.1' } });
    expect(results.phases.map((phase) => phase.name)).toEqual(['empty', 'grown']);
    const [empty, grown] = results.phases;
    expect(grown?.data.grants).toBeGreaterThanOrEqual(2000);
    expect(grown?.data.attributeNames).toBe(1000);
    if (POSTGRES_URL) {
      expect(grown?.postgresData?.grants).toBeGreaterThanOrEqual(2000);
      expect(grown?.postgresData?.attributeNames).toBe(1000);
    }
    for (const phase of results.phases) {
      expect(phase.scenarios.map(rowName), phase.name).toEqual(ROWS);
      for (const s of phase.scenarios) {
        const label = `${phase.name} ${rowName(s)}`;
        expect(s.requests, label).toBeGreaterThan(0);
        expect({ non2xx: s.non2xx, errors: s.errors, timeouts: s.timeouts }, label).toEqual({ non2xx: 0, errors: 0, timeouts: 0 });
        expect(s.serverCpuMsPerRequest, label).toBeGreaterThan(0);
        if (s.name === 'bare') continue;
        expect(s.ratioToBare, label).toBeGreaterThan(0);
        expect(s.cpuRatioToBare, label).toBeGreaterThan(0);
        expect(s.peakRssMiB, label).toBeGreaterThan(0);
        expect(s.server, label).toBe(s.name.startsWith('peer-') ? 'peer' : s.name === 'bare-prototypes' ? 'bare-prototypes' : 'gatehouse');
        // The peer's in-memory store does not grow: only Gatehouse's rows compare the two phases.
        if (phase === grown && s.server === 'gatehouse') expect(s.vsEmpty, label).toBeGreaterThan(0);
        if (s.server !== 'gatehouse') expect(s.vsEmpty, label).toBeUndefined();
        expect(s.store, label).toBe(s.server === 'gatehouse' ? (rowName(s) === s.name ? 'sqlite' : 'postgres') : undefined);
        if (s.store === 'postgres') {
          // Issue 32: Gatehouse's CPU per request on PostgreSQL over SQLite's, and PostgreSQL's own (or why not).
          expect(s.cpuVsSqlite, label).toBeGreaterThan(0);
          const db = s.databaseCpu;
          if (db?.unreadable === undefined) expect(db?.cpuMsPerRequest, label).toBeGreaterThanOrEqual(0);
        } else {
          expect(s.databaseCpu ?? null, label).toBeNull();
        }
      }
    }
    expect(empty?.data.attributeNames).toBe(100);
  });

  it('puts Gatehouse beside node-oidc-provider in both phases: both ratios, vs peer, the peak RSS of each process', () => {
    const results = JSON.parse(readFileSync(join(out, 'latest.json'), 'utf8')) as Results;
    for (const phase of results.phases) {
      const pairs = [
        ['users-me', 'peer-userinfo'],
        ['code-exchange', 'peer-code-exchange'],
        ['refresh', 'peer-refresh'],
      ].flatMap(([name, peerName]) => (POSTGRES_URL ? [[name, peerName, 'sqlite'], [name, peerName, 'postgres']] : [[name, peerName, 'sqlite']]));
      expect(phase.versusPeer.map((pair) => [pair.name, pair.peerName, pair.store]), phase.name).toEqual(pairs);
      for (const pair of phase.versusPeer) {
        const ours = phase.scenarios.find((s) => s.name === pair.name && s.store === pair.store);
        const theirs = phase.scenarios.find((s) => s.name === pair.peerName);
        expect(pair.ratioToBare).toBe(ours?.ratioToBare);
        expect(pair.peerRatioToBare).toBe(theirs?.ratioToBare);
        expect(pair.vsPeer).toBeCloseTo(pair.ratioToBare / pair.peerRatioToBare, 2);
        expect(pair.cpuVsPeer, pair.name).toBeGreaterThan(0);
        expect(pair.peerPeakRssMiB, pair.name).toBe(theirs?.peakRssMiB);
      }
      expect(phase.serverPeakRssMiB, phase.name).toBeGreaterThan(0);
      // The bound is for issues 16 and 32's load: the peak of their four scenarios, never above the phase's.
      const underLoad = Math.max(...phase.scenarios.filter((s) => ['users-me', 'code-exchange', 'refresh', 'sign-in'].includes(s.name) && s.store === 'sqlite').map((s) => s.peakRssMiB ?? 0));
      expect(phase.serverPeakRssUnderTargetLoadMiB, phase.name).toBe(underLoad);
      expect(phase.serverPeakRssUnderTargetLoadMiB, phase.name).toBeLessThanOrEqual(phase.serverPeakRssMiB);
      expect(phase.peerPeakRssMiB, phase.name).toBeGreaterThan(0);
      expect(phase.bare.peakRssMiB, phase.name).toBeGreaterThan(0);
    }
  });

  it('writes the Markdown tables with the targets', () => {
    const markdown = readFileSync(join(out, 'latest.md'), 'utf8');
    expect(markdown).toContain('## Empty database');
    expect(markdown).toContain('## Grown database (2,000 grants, 1,000 attribute names)');
    expect(markdown).toMatch(/\| GET \/identity\/v1\/Users\/me \(bearer\) \|.*\| ≥ 0\.75 \|/);
    expect(markdown).toMatch(/\| POST \/oauth\/token \(authorization_code\) \|.*\| ≥ 0\.42 \|/);
    expect(markdown).toMatch(/\| oidc-provider POST \/token \(authorization_code\) \| \d+ \|/);
    expect(markdown.match(/### Against oidc-provider 8\.8\.1/g)).toHaveLength(2);
    expect(markdown).toMatch(/\| code exchange \(PKCE S256, Basic client auth\) \| \d\.\d\d \| \d\.\d\d \| \d+\.\d\d [✓✗] \|/);
    expect(markdown).toMatch(/Peak RSS over the phase: Gatehouse \d+ MiB, oidc-provider \d+ MiB, bare app \d+ MiB\./);
    expect(markdown).toMatch(
      /Bare app's peak RSS \d+ MiB; Gatehouse's under issues 16 and 32's load \(users-me, code-exchange, refresh, sign-in\): \d+ MiB, \d\.\d\d× [✓✗] target ≤ 1\.6×; over the whole phase: \d+ MiB, \d\.\d\d×\./,
    );
    if (POSTGRES_URL) {
      // Issue 32: PostgreSQL's rows in every table, and Gatehouse's CPU on PostgreSQL over SQLite's.
      expect(markdown).toMatch(/^\| POST \/oauth\/token \(authorization_code\) · PostgreSQL \| \d+ \|.*\| (\d+\.\d{3}|not readable) \| \d+\.\d\d \|$/m);
      expect(markdown.match(/### PostgreSQL beside SQLite/g)).toHaveLength(2);
      expect(markdown).toMatch(/\| POST \/oauth\/token \(refresh_token\) \| \d\.\d\d \| \d\.\d\d \| \d\.\d{3} \| \d\.\d{3} \| \d+\.\d\d [✓✗] \| ≤ 1\.50 \|/);
      expect(markdown).toMatch(/\| code exchange \(PKCE S256, Basic client auth\) · PostgreSQL \| \d\.\d\d \| \d\.\d\d \| \d+\.\d\d [✓✗] \|/);
    } else {
      expect(markdown).not.toContain('PostgreSQL');
    }
    // Issue 32: the password sign-ins one core serves a second, and the burst's peak RSS.
    expect(markdown).toMatch(/Password sign-ins: \d+\.\d per second per core \(\d+\.\d ms of CPU each\) [✓✗] target ≥ 15; peak RSS during the burst \d+ MiB, \d\.\d\d× the bare app's\./);
  });

  it('writes to --out only: the committed results stay as they are', () => {
    expect(existsSync(join(out, 'latest.md'))).toBe(true);
    expect(readFileSync(COMMITTED_RESULTS, 'utf8')).toBe(committedBefore);
  });
});
