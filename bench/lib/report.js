// The Markdown report of a run (bench/results/latest.md and the console).
import { GROWTH_TARGET, POSTGRES_CPU_TARGET, POSTGRES_CPU_TARGET_SCENARIOS, RSS_TARGET, RSS_TARGET_SCENARIOS, SIGN_IN_TARGET_PER_CORE, TARGETS } from './scenarios.js';

const fmt = (value, digits = 0) => (value === null || value === undefined || Number.isNaN(value) ? '–' : Number(value).toFixed(digits));
const ok = (value, target) => (value === null || value === undefined ? '' : value >= target ? ' ✓' : ' ✗');

/** What each comparison with the peer measures (issue 16). */
const PAIR_LABELS = {
  'users-me': 'bearer GET (our Users/me, its userinfo)',
  'code-exchange': 'code exchange (PKCE S256, Basic client auth)',
  refresh: 'refresh (no rotation)',
};

/**
 * Gatehouse's peak RSS against the bare app's: under issue 16's load (its bearer GET and token
 * endpoint scenarios), which the bound is for, and over the whole phase (the admin scenarios too).
 */
function rssSentence(phase) {
  const bare = phase.bare.peakRssMiB;
  const times = (mib) => `${fmt(mib / bare, 2)}×`;
  const underLoad = phase.serverPeakRssUnderTargetLoadMiB;
  const judged =
    underLoad === null || underLoad === undefined
      ? `no scenario of issues 16 and 32's load (${RSS_TARGET_SCENARIOS.join(', ')}) ran`
      : `under issues 16 and 32's load (${RSS_TARGET_SCENARIOS.join(', ')}): ${fmt(underLoad, 0)} MiB, ${times(underLoad)}${ok(RSS_TARGET - underLoad / bare, 0)} target ≤ ${RSS_TARGET}×`;
  const postgres = phase.postgresServerPeakRssMiB ? ` (SQLite's server; the server on PostgreSQL: ${fmt(phase.postgresServerPeakRssMiB, 0)} MiB over the phase, ${times(phase.postgresServerPeakRssMiB)}.)` : '';
  return `Bare app's peak RSS ${fmt(bare, 0)} MiB; Gatehouse's ${judged}; over the whole phase: ${fmt(phase.serverPeakRssMiB, 0)} MiB, ${times(phase.serverPeakRssMiB)}.${postgres}`;
}

/**
 * Issue 32: how many password sign-ins one core serves a second, from the server's CPU time per
 * sign-in (every thread of the process: the hash runs on libuv's), against Keycloak's sizing.
 */
function signInSentence(phase) {
  const row = phase.scenarios.find((scenario) => scenario.name === 'sign-in' && scenario.store !== 'postgres');
  if (!row) return [];
  const perCore = row.serverCpuMsPerRequest ? 1000 / row.serverCpuMsPerRequest : null;
  return ['', `Password sign-ins: ${fmt(perCore, 1)} per second per core (${fmt(row.serverCpuMsPerRequest, 1)} ms of CPU each)${ok(perCore, SIGN_IN_TARGET_PER_CORE)} target ≥ ${SIGN_IN_TARGET_PER_CORE}; peak RSS during the burst ${fmt(row.peakRssMiB, 0)} MiB, ${fmt(row.peakRssMiB / phase.bare.peakRssMiB, 2)}× the bare app's.`];
}

/**
 * Issue 32 (`--workers`): how many cores the server and the load generator kept busy per row. A
 * load generator near its thread count of cores, not the server, bounds that row's requests/s.
 */
function coresTable(phase, meta) {
  const lines = [
    `Cores kept busy (server: ${meta.workers} worker(s) and the primary; load generator: ${meta.loadThreads} autocannon thread(s), one for a target minting a value per request):`,
    '',
    '| scenario | req/s | server cores | load generator cores |',
    '|---|---:|---:|---:|',
  ];
  for (const row of phase.scenarios) {
    lines.push(`| ${row.title}${row.store === 'postgres' ? ' · PostgreSQL' : ''} | ${fmt(row.requestsPerSecond)} | ${fmt(row.serverCpuShare, 2)} | ${fmt(row.loadGeneratorCpuShare, 2)} |`);
  }
  return lines;
}

/** Gatehouse beside the peer, scenario by scenario, and the peak RSS of the three processes. */
function peerTable(phase, peer) {
  const name = `${peer.name} ${peer.version}`;
  const lines = [
    `### Against ${name}`,
    '',
    `| scenario | Gatehouse ratio to bare | ${peer.name} ratio to bare | vs peer | Gatehouse CPU ms/req | ${peer.name} CPU ms/req | CPU vs peer |`,
    '|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const pair of phase.versusPeer) {
    lines.push(
      `| ${PAIR_LABELS[pair.name] ?? pair.title}${pair.store === 'postgres' ? ' · PostgreSQL' : ''} | ${fmt(pair.ratioToBare, 2)} | ${fmt(pair.peerRatioToBare, 2)} | ${fmt(pair.vsPeer, 2)}${ok(pair.vsPeer, 1)} | ${fmt(pair.cpuMsPerRequest, 3)} | ${fmt(pair.peerCpuMsPerRequest, 3)} | ${fmt(pair.cpuVsPeer, 2)} |`,
    );
  }
  lines.push(
    '',
    `Peak RSS over the phase: Gatehouse ${fmt(phase.serverPeakRssMiB, 0)} MiB, ${peer.name} ${fmt(phase.peerPeakRssMiB, 0)} MiB, bare app ${fmt(phase.bare.peakRssMiB, 0)} MiB.`,
  );
  return lines;
}

/** "Database before the run": SQLite's counts, and PostgreSQL's where it ran. */
function dataLine(phase) {
  const counts = (values) => Object.entries(values).map(([k, v]) => `${k} ${v.toLocaleString('en-US')}`).join(', ');
  if (!phase.postgresData) return `Database before the run: ${counts(phase.data)}.`;
  return `Database before the run: SQLite: ${counts(phase.data)}; PostgreSQL: ${counts(phase.postgresData)}.`;
}

/** PostgreSQL's own CPU per request, or why it is not known. */
function databaseCpuCell(row) {
  if (!row.databaseCpu) return '';
  if (row.databaseCpu.unreadable) return 'not readable';
  return fmt(row.databaseCpu.cpuMsPerRequest, 3);
}

/**
 * Issue 32: each Gatehouse scenario on SQLite and on PostgreSQL, Gatehouse's CPU per request on
 * each and their ratio (target for the code exchange, refresh and Users/me), with PostgreSQL's own
 * CPU per request beside it, its backends and its shared processes apart.
 */
function postgresTable(phase) {
  const lines = [
    '### PostgreSQL beside SQLite',
    '',
    '| scenario | ratio to bare, SQLite | ratio to bare, PostgreSQL | Gatehouse CPU ms/req, SQLite | Gatehouse CPU ms/req, PostgreSQL | CPU PostgreSQL ÷ SQLite | target | PostgreSQL\'s CPU ms/req: backends + shared | Gatehouse + PostgreSQL CPU ms/req |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const unreadable = new Set();
  for (const pg of phase.scenarios.filter((row) => row.store === 'postgres')) {
    const sqlite = phase.scenarios.find((row) => row.name === pg.name && row.store === 'sqlite');
    const targeted = POSTGRES_CPU_TARGET_SCENARIOS.includes(pg.name);
    const db = pg.databaseCpu;
    if (db?.unreadable) unreadable.add(db.unreadable);
    const dbCell = !db ? '–' : db.unreadable ? 'not readable' : `${fmt(db.cpuMsPerRequest, 3)}: ${fmt(db.backendsMsPerRequest, 3)} + ${fmt(db.backgroundMsPerRequest, 3)}`;
    const total = db && !db.unreadable && pg.serverCpuMsPerRequest ? fmt(pg.serverCpuMsPerRequest + db.cpuMsPerRequest, 3) : '–';
    lines.push(
      `| ${sqlite?.title ?? pg.title} | ${fmt(sqlite?.ratioToBare, 2)} | ${fmt(pg.ratioToBare, 2)} | ${fmt(sqlite?.serverCpuMsPerRequest, 3)} | ${fmt(pg.serverCpuMsPerRequest, 3)} | ${fmt(pg.cpuVsSqlite, 2)}${targeted && pg.cpuVsSqlite ? (pg.cpuVsSqlite <= POSTGRES_CPU_TARGET ? ' ✓' : ' ✗') : ''} | ${targeted ? `≤ ${POSTGRES_CPU_TARGET.toFixed(2)}` : ''} | ${dbCell} | ${total} |`,
    );
  }
  for (const reason of unreadable) lines.push('', `PostgreSQL's CPU is not reported: ${reason}.`);
  return lines;
}

export function renderMarkdown(results) {
  const { meta } = results;
  const lines = [];
  lines.push(`# Gatehouse benchmark — ${meta.startedAt}`);
  if (meta.notes?.length > 0) lines.push('', ...meta.notes.map((note) => `- ${note}`));
  lines.push('');
  lines.push(
    `${meta.database} · Node ${meta.node} · ${meta.cpus}× ${meta.cpuModel} · ${meta.connections} connections · ${meta.durationSeconds} s per scenario in ${meta.rounds} slice(s) alternating with the bare route, after ${meta.warmupSeconds} s warm-up · load average before ${meta.loadAverage.before.join(' / ')}, after ${meta.loadAverage.after?.join(' / ') ?? '–'}${meta.peer ? ` · peer ${meta.peer.name} ${meta.peer.version}` : ''} · commit ${meta.commit}`,
  );
  for (const phase of results.phases) {
    lines.push('');
    lines.push(`## ${phase.title}`);
    lines.push('');
    if (phase.data) lines.push(dataLine(phase), '');
    const growth = phase.name === 'grown';
    const postgres = phase.scenarios.some((row) => row.store === 'postgres');
    lines.push(
      `| scenario | req/s | p50 ms | p99 ms | non-2xx | errors | ratio to bare | target | server CPU ms/req | CPU ratio | peak RSS MiB |${postgres ? ' PG CPU ms/req | CPU vs SQLite |' : ''}${growth ? ' vs empty db | CPU vs empty db |' : ''}`,
      `|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|${postgres ? '---:|---:|' : ''}${growth ? '---:|---:|' : ''}`,
    );
    for (const row of phase.scenarios) {
      // Issues 8 and 16's targets are SQLite's; PostgreSQL's rows are reported beside them (issue 32).
      const target = row.store === 'postgres' ? undefined : TARGETS[row.name];
      const ratio = row.name === 'bare' ? 1 : row.ratioToBare;
      const cells = [
        row.title,
        fmt(row.requestsPerSecond),
        fmt(row.latencyMs.p50),
        fmt(row.latencyMs.p99),
        fmt(row.non2xx),
        fmt(row.errors + row.timeouts),
        row.name === 'bare' ? '1.00' : `${fmt(ratio, 2)}${target ? ok(ratio, target) : ''}`,
        target ? `≥ ${target.toFixed(2)}` : '',
        fmt(row.serverCpuMsPerRequest, 3),
        row.name === 'bare' ? '1.00' : fmt(row.cpuRatioToBare, 2),
        fmt(row.peakRssMiB, 0),
      ];
      if (postgres) cells.push(databaseCpuCell(row), row.store === 'postgres' ? fmt(row.cpuVsSqlite, 2) : '');
      const grows = row.server === undefined || row.server === 'gatehouse';
      if (growth) cells.push(grows ? `${fmt(row.vsEmpty, 2)}${ok(row.vsEmpty, GROWTH_TARGET)}` : '', grows ? fmt(row.cpuVsEmpty, 2) : '');
      lines.push(`| ${cells.join(' | ')} |`);
    }
    lines.push('');
    lines.push(
      `The bare row sums every bare slice of the phase; each scenario's ratio uses the bare slices run between its own (${phase.scenarios
        .filter((row) => row.name !== 'bare')
        .map((row) => `${row.name} ${fmt(row.bareRequestsPerSecond)}`)
        .join(', ')} req/s). ${rssSentence(phase)}`,
    );
    lines.push(...signInSentence(phase));
    if (meta.workers > 1 || meta.loadThreads > 1) lines.push('', ...coresTable(phase, meta));
    if (postgres) lines.push('', ...postgresTable(phase));
    if (phase.versusPeer?.length > 0) lines.push('', ...peerTable(phase, meta.peer));
    if (phase.notes.length > 0) lines.push('', ...phase.notes.map((note) => `- ${note}`));
  }
  lines.push('');
  lines.push(
    '"ratio to bare" divides requests/s by the bare route\'s in the same phase. "CPU ratio" divides the CPU time per request of the bare app\'s process by that of the Gatehouse process: it does not depend on how much CPU other processes left free (see docs/performance.md).',
  );
  if (results.phases.some((phase) => phase.scenarios.some((row) => row.store === 'postgres'))) {
    lines.push('');
    lines.push(
      `Rows marked "· PostgreSQL" ran on a second Gatehouse server whose store is PostgreSQL; the others on SQLite. "PG CPU ms/req" is PostgreSQL's own CPU time per request (user + system from /proc/<pid>/stat): the backends of that server's pool plus PostgreSQL's shared processes (postmaster, WAL writer, checkpointer, background writer, autovacuum), which also serve any other client of the same PostgreSQL. "CPU vs SQLite" divides Gatehouse's CPU time per request on PostgreSQL by its CPU time per request on SQLite (issue 32's target ≤ ${POSTGRES_CPU_TARGET.toFixed(2)} for ${POSTGRES_CPU_TARGET_SCENARIOS.join(', ')}).`,
    );
  }
  if (results.phases.some((phase) => phase.versusPeer?.length > 0)) {
    lines.push('');
    lines.push(
      `"vs peer" divides Gatehouse's ratio to bare by ${meta.peer.name}'s in the same phase (above 1.00: Gatehouse serves more requests per second); "CPU vs peer" divides the peer's CPU time per request by Gatehouse's (above 1.00: Gatehouse costs less CPU per request).`,
    );
  }
  if (results.phases.some((phase) => phase.name === 'grown')) {
    lines.push('');
    lines.push(
      `"vs empty db" is the scenario's ratio to bare in the grown database divided by the same ratio in the empty one (target ≥ ${GROWTH_TARGET.toFixed(2)}: within 10%). Normalizing by the bare route of each phase cancels most of the drift of a shared machine. "CPU vs empty db" is the empty database's CPU time per request over the grown one's (1.00: the same cost).`,
    );
  }
  lines.push('');
  return lines.join('\n');
}
