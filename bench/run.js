#!/usr/bin/env node
// `npm run bench`: the real Gatehouse server, a bare Express 5 app and the peer (node-oidc-provider),
// each in its own process on loopback, driven by autocannon from this process; figures as ratios to
// the bare route measured in the same run. See docs/performance.md for the method and the latest figures.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { cpuMs, threadCpuMs, freePort, installExitHandlers, logTail, onCleanup, peakRssMiB, resetPeakRss, runCleanups, startNode, stop, stopAll, waitUntilReady } from './lib/children.js';
import { openBenchDatabase } from './lib/database.js';
import { openPostgresCpuProbe } from './lib/postgres-cpu.js';
import { GROWTH_DEFAULTS } from './lib/growth.js';
import { timeOrderedCode } from './lib/ids.js';
import { combine, round, slice, warmUp } from './lib/load.js';
import { peerVersion, startPeer } from './lib/peer.js';
import { BENCH_CODE_CHALLENGE, createAttributeNames, exchangeCode, expectOk, loginForm, provisionWithCli, REDIRECT_URI, ALL_SCOPES } from './lib/provision.js';
import { renderMarkdown } from './lib/report.js';
import { codeQueue, RSS_TARGET_SCENARIOS, SCENARIOS, serverOf } from './lib/scenarios.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'apps/server/dist/cli.js');
const BARE = join(ROOT, 'bench/bare-server.js');

const USAGE = `npm run bench -- [options]

  --quick              2 s per scenario, 1 s warm-up, no growth run unless --growth
  --duration N         seconds measured per scenario (default 8)
  --warmup N           unmeasured seconds before each scenario (default 2)
  --connections N      concurrent connections (default 10, as issue 16 measures)
  --rounds N           slices per scenario, each after a slice of the bare route (default 4; --quick 1)
  --growth             run the growth phase (1,000,000 grants, 10,000 attribute names); default in a full run
  --no-growth          empty database only
  --grants N           grants seeded for the growth run (default 1000000)
  --attribute-names N  attribute names in the growth run (default 10000)
  --only a,b           only these scenarios (bare always runs): ${SCENARIOS.filter((s) => s.name !== 'bare').map((s) => s.name).join(', ')}
  --no-peer            leave out the peer (node-oidc-provider) and its scenarios (peer-*)
  --postgres           require PostgreSQL: fail when it cannot be reached (by default its rows are left out, with a note, when it cannot)
  --no-postgres        SQLite only: no PostgreSQL rows. Otherwise every Gatehouse scenario runs on SQLite and again on
                       PostgreSQL (GATEHOUSE_DATABASE_URL, GATEHOUSE_TEST_POSTGRES_URL or postgres://postgres@127.0.0.1:5432/test,
                       a fresh schema), each on its own server, with PostgreSQL's own CPU per request beside its rows
  --out DIR            where to write latest.json / latest.md (default bench/results)
  --workers N          gatehouse serve --workers N (default 1): CPU and peak RSS are summed over the primary and its workers
  --load-threads N     autocannon's worker threads (default 1): with several server workers one load generator's thread
                       can be the bound; targets that mint a value per request (code exchange) stay on one thread
  --server-node-options=FLAGS
                       NODE_OPTIONS for the Gatehouse server (its primary and workers) only, e.g. V8's heap flags;
                       the load generator, the bare route and the peer keep the defaults
  --keep               keep the temporary directory (database, server logs)
  --cpu-prof           run the server and the peer with --cpu-prof (profiles in the temporary directory; implies --keep)
`;

function options() {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      connections: { type: 'string' },
      rounds: { type: 'string' },
      growth: { type: 'boolean' },
      'no-growth': { type: 'boolean', default: false },
      grants: { type: 'string' },
      'attribute-names': { type: 'string' },
      only: { type: 'string' },
      'no-peer': { type: 'boolean', default: false },
      postgres: { type: 'boolean' },
      'no-postgres': { type: 'boolean', default: false },
      out: { type: 'string' },
      keep: { type: 'boolean', default: false },
      workers: { type: 'string' },
      'load-threads': { type: 'string' },
      'server-node-options': { type: 'string' },
      'cpu-prof': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  const number = (name, fallback, min) => {
    if (values[name] === undefined) return fallback;
    const value = Number(values[name]);
    if (!Number.isFinite(value) || value < min) throw new Error(`--${name} must be a number ≥ ${min}`);
    return value;
  };
  const only = values.only?.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = only?.find((name) => !SCENARIOS.some((s) => s.name === name));
  if (unknown) throw new Error(`--only: unknown scenario ${unknown}`);
  return {
    durationSeconds: number('duration', values.quick ? 2 : 8, 1),
    warmupSeconds: number('warmup', values.quick ? 1 : 2, 0),
    connections: number('connections', 10, 1),
    rounds: number('rounds', values.quick ? 1 : 4, 1),
    growth: values['no-growth'] ? false : (values.growth ?? !values.quick),
    grants: number('grants', GROWTH_DEFAULTS.grants, 0),
    attributeNames: number('attribute-names', GROWTH_DEFAULTS.attributeNames, 0),
    only,
    peer: !values['no-peer'],
    // true: required; false: left out; undefined: used when it can be reached.
    postgres: values['no-postgres'] ? false : values.postgres,
    out: values.out ?? join(ROOT, 'bench/results'),
    keep: values.keep || values['cpu-prof'],
    cpuProf: values['cpu-prof'],
    quick: values.quick,
    workers: number('workers', 1, 1),
    loadThreads: number('load-threads', 1, 1),
    serverNodeOptions: values['server-node-options']?.trim() || undefined,
  };
}

const log = (message) => process.stderr.write(`${message}\n`);

function gitCommit() {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: ROOT, encoding: 'utf8' }).trim() !== '';
    return dirty ? `${commit} (uncommitted changes in the tree)` : commit;
  } catch {
    return 'unknown';
  }
}

async function main() {
  const opts = options();
  installExitHandlers();
  const workDir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-'));
  onCleanup(() => {
    if (opts.keep) log(`Kept ${workDir}`);
    else rmSync(workDir, { recursive: true, force: true });
  });
  // The server's own default (NORMAL, decision 0010) unless GATEHOUSE_SQLITE_SYNCHRONOUS says otherwise.
  const synchronous = (process.env.GATEHOUSE_SQLITE_SYNCHRONOUS?.trim() || 'NORMAL').toUpperCase();
  const stores = [sqliteStore({ kind: 'sqlite', filename: join(workDir, 'gatehouse.db'), synchronous })];
  const runNotes = [];
  if (opts.postgres !== false) {
    const postgresUrl = process.env.GATEHOUSE_DATABASE_URL || process.env.GATEHOUSE_TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/test';
    try {
      const database = await preparePostgres(postgresUrl);
      onCleanup(() => dropPostgresSchema(database).catch((error) => log(`Could not drop schema ${database.schema}: ${error.message}`)));
      stores.push(postgresStore(database));
    } catch (error) {
      if (opts.postgres === true) throw error;
      const where = redactUrl(postgresUrl);
      runNotes.push(`No PostgreSQL rows: PostgreSQL could not be reached at ${where} (${error.message}); GATEHOUSE_DATABASE_URL or GATEHOUSE_TEST_POSTGRES_URL names another server, --no-postgres leaves it out.`);
      log(`PostgreSQL not reachable at ${where} (${error.message}): SQLite only.`);
    }
  }
  const results = {
    meta: {
      startedAt: new Date().toISOString(),
      node: process.versions.node,
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
      loadAverage: { before: loadavg().map((n) => round(n, 2)) },
      database: `${stores.map((store) => store.description).join(' and ')}${opts.workers > 1 ? `, ${opts.workers} workers` : ''}`,
      databases: stores.map((store) => store.key),
      connections: opts.connections,
      workers: opts.workers,
      loadThreads: opts.loadThreads,
      serverNodeOptions: opts.serverNodeOptions ?? null,
      durationSeconds: opts.durationSeconds,
      warmupSeconds: opts.warmupSeconds,
      rounds: opts.rounds,
      peer: opts.peer ? { name: 'oidc-provider', version: peerVersion() } : null,
      commit: gitCommit(),
      argv: process.argv.slice(2),
      notes: runNotes,
    },
    phases: [],
  };
  log(`Gatehouse benchmark: ${results.meta.database}, ${opts.connections} connections, ${opts.durationSeconds} s per scenario (+${opts.warmupSeconds} s warm-up); work dir ${workDir}`);
  log(`Load average before: ${results.meta.loadAverage.before.join(' ')}`);

  try {
    const barePort = await freePort();
    const bare = startNode('bare Express', [BARE, String(barePort)], { logFile: join(workDir, 'bare.log') });
    const bareUrl = `http://127.0.0.1:${barePort}`;
    await waitUntilReady(bare, `${bareUrl}/bare`);
    const barePrototypesPort = await freePort();
    const barePrototypes = startNode('bare Express (Express\'s prototypes)', [BARE, String(barePrototypesPort), '--express-server-options'], { logFile: join(workDir, 'bare-prototypes.log') });
    const barePrototypesUrl = `http://127.0.0.1:${barePrototypesPort}`;
    await waitUntilReady(barePrototypes, `${barePrototypesUrl}/bare`);

    for (const store of stores) {
      log(`Provisioning ${store.label} with the gatehouse CLI…`);
      // The sign-in scenario's 50 browsers are one user at one address, all at once: each attempt is
      // counted against the failed-sign-in limits until it succeeds (docs/decisions/0181), so the
      // limits are set above the burst, as for a load test; every other setting is the default.
      const signInBurst = { GATEHOUSE_RATE_LIMIT_MAX_FAILURES: '1000', GATEHOUSE_RATE_LIMIT_MAX_FAILURES_PER_IP: '1000' };
      store.serverEnv = { HOST: '127.0.0.1', GATEHOUSE_DEMO: 'false', GATEHOUSE_WORKERS: String(opts.workers), ...signInBurst, ...store.env };
      if (opts.serverNodeOptions) store.serverEnv.NODE_OPTIONS = opts.serverNodeOptions;
      store.identity = await provisionWithCli(CLI, { ...store.serverEnv, GATEHOUSE_LOG_LEVEL: 'warn' });
      store.attributeKeys = [];
    }
    const state = { stores, bareUrl, barePid: bare.child.pid, barePrototypesUrl, barePrototypesPid: barePrototypes.child.pid, benchAccountAttributes: 100 };

    const empty = await runPhase('empty', 'Empty database', { opts, state, workDir, first: true });
    results.phases.push(empty);

    if (opts.growth) {
      for (const store of stores) await seedGrowth(store, state, opts);
      const grown = await runPhase('grown', `Grown database (${opts.grants.toLocaleString('en-US')} grants, ${opts.attributeNames.toLocaleString('en-US')} attribute names)`, {
        opts,
        state,
        workDir,
      });
      for (const row of grown.scenarios) {
        const before = empty.scenarios.find((s) => s.name === row.name && s.store === row.store);
        // The peer's store does not grow: its rows of the grown phase are compared with Gatehouse only.
        if (!before || row.server !== 'gatehouse') continue;
        row.vsEmpty = round(row.ratioToBare / before.ratioToBare, 3);
        row.rawVsEmpty = round(row.requestsPerSecond / before.requestsPerSecond, 3);
        row.cpuVsEmpty = row.serverCpuMsPerRequest && before.serverCpuMsPerRequest ? round(before.serverCpuMsPerRequest / row.serverCpuMsPerRequest, 3) : null;
      }
      results.phases.push(grown);
    }
    await stop(bare);
    await stop(barePrototypes);
  } finally {
    await stopAll();
    await runCleanups();
  }

  results.meta.loadAverage.after = loadavg().map((n) => round(n, 2));
  results.meta.finishedAt = new Date().toISOString();
  const markdown = renderMarkdown(results);
  mkdirSync(opts.out, { recursive: true });
  writeFileSync(join(opts.out, 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(join(opts.out, 'latest.md'), markdown);
  process.stdout.write(`\n${markdown}\n`);
  log(`Wrote ${join(opts.out, 'latest.json')} and latest.md`);
}

/** The SQLite store: a file in the work directory, the server's own pragmas. */
function sqliteStore(database) {
  return {
    key: 'sqlite',
    label: 'SQLite',
    database,
    description: `SQLite (file, WAL, synchronous=${database.synchronous})`,
    env: { GATEHOUSE_DB: database.filename, GATEHOUSE_SQLITE_SYNCHRONOUS: database.synchronous, GATEHOUSE_DATABASE_URL: '' },
  };
}

/** The PostgreSQL store: its server's connections carry an application_name of their own, which the CPU probe looks for. */
function postgresStore(database) {
  return {
    key: 'postgres',
    label: 'PostgreSQL',
    database,
    description: `PostgreSQL (schema ${database.schema})`,
    env: { GATEHOUSE_DATABASE_URL: database.serverUrl },
  };
}

/** The growth data for one store (the servers are stopped between the phases). */
async function seedGrowth(store, state, opts) {
  const db = await openBenchDatabase(store.database);
  try {
    const { identity } = store;
    const spec = {
      ...GROWTH_DEFAULTS,
      grants: opts.grants,
      attributeNames: opts.attributeNames,
      benchClientId: identity.clientId,
      benchUserKey: identity.userKey,
      benchAccountKey: identity.accountKey,
      benchAccountAttributes: state.benchAccountAttributes,
      benchAccountLastPosition: await db.maxAttributePosition(identity.accountKey),
    };
    log(`Seeding the growth data in ${store.label}: ${spec.grants.toLocaleString('en-US')} grants (each with its refresh token and consumed code), ${spec.attributeNames.toLocaleString('en-US')} attribute names…`);
    const started = Date.now();
    let lastShown = 0;
    await db.seedGrowth(spec, {
      onProgress: (done, total) => {
        if (done - lastShown >= total / 10 || done === total) {
          lastShown = done;
          log(`  ${done.toLocaleString('en-US')} / ${total.toLocaleString('en-US')} grants`);
        }
      },
    });
    log(`Seeded in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
  } finally {
    await db.close();
  }
}

/** A connection string without its password, for messages. */
function redactUrl(url) {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(GATEHOUSE_TEST_POSTGRES_URL)';
  }
}

/** The CPU per request of the serving process's threads, for the progress log. */
function threadsNote(threads) {
  if (!threads) return '';
  return `; threads ms/req: event loop ${threads.mainMsPerRequest}, busiest others ${threads.busiestOthersMsPerRequest.join(' / ')}, rest ${threads.restMsPerRequest}`;
}

/** Whether `scenario` is measured in this run (--only, --no-peer). */
function selected(scenario, opts) {
  if (serverOf(scenario) === 'peer' && !opts.peer) return false;
  return scenario.name === 'bare' || !opts.only || opts.only.includes(scenario.name);
}

/** The peer for one phase: started, and its tokens got by exchanging a code of each kind over HTTP. */
async function preparePeer(name, workDir, opts) {
  const nodeArgs = opts.cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${join(workDir, `profiles-peer-${name}`)}`] : [];
  const peer = await startPeer({ workDir, name, nodeArgs });
  const [resourceCode] = await peer.mint(1);
  const [userinfoCode] = await peer.mint(1, { userinfo: true });
  peer.tokens = await exchangeCode(`${peer.url}/token`, peer.identity, resourceCode);
  peer.userinfoTokens = await exchangeCode(`${peer.url}/token`, peer.identity, userinfoCode);
  await peer.discard();
  log(`[${name}] oidc-provider ${peerVersion()} (pid ${peer.entry.child.pid}) on ${peer.url}`);
  return peer;
}

/** One Gatehouse server on `store` for a phase: started, its codes minted directly, its tokens got over HTTP. */
async function startServer(name, store, { opts, state, workDir, first }) {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const suffix = store.key === 'sqlite' ? '' : `-${store.key}`;
  const nodeArgs = opts.cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${join(workDir, `profiles-${name}${suffix}`)}`] : [];
  const entry = startNode(`gatehouse serve (${store.label})`, [...nodeArgs, CLI, 'serve'], {
    env: { ...store.serverEnv, PORT: String(port), GATEHOUSE_ISSUER: baseUrl },
    logFile: join(workDir, `server-${name}${suffix}.log`),
  });
  const server = { store, entry, baseUrl };
  await waitUntilReady(entry, `${baseUrl}/readyz`);
  log(`\n[${name}] gatehouse serve on ${store.label} (pid ${entry.child.pid}) on ${baseUrl}`);
  server.db = await openBenchDatabase(store.database);
  if (store.key === 'postgres') server.probe = await openPostgresCpuProbe(store.database.baseUrl, store.database.applicationName);
  const binding = {
    clientId: store.identity.clientId,
    userKey: store.identity.userKey,
    redirectUri: REDIRECT_URI,
    scopes: ALL_SCOPES,
    codeChallenge: BENCH_CODE_CHALLENGE,
    ttlMs: 120_000,
  };
  server.mintCodes = async (count) => {
    const codes = Array.from({ length: count }, () => timeOrderedCode());
    await server.db.insertCodes(codes, binding);
    return codes;
  };
  // Tokens for this phase: one code exchanged over HTTP, as a client would.
  const [firstCode] = await server.mintCodes(1);
  const tokens = await exchangeCode(`${baseUrl}/oauth/token`, store.identity, firstCode);
  if (first) {
    log(`Creating the account's attribute names over the admin API (${store.label})…`);
    store.attributeKeys = await createAttributeNames(baseUrl, store.identity, tokens.access_token, state.benchAccountAttributes);
  }
  server.data = await server.db.counts();
  server.context = {
    baseUrl,
    bareUrl: state.bareUrl,
    barePrototypesUrl: state.barePrototypesUrl,
    identity: store.identity,
    tokens,
    attributeKeys: store.attributeKeys,
    loginForm: await loginForm(baseUrl),
  };
  return server;
}

/** Stops a phase's server; a non-zero exit becomes a note. */
async function stopServer(server, phase) {
  await server.probe?.close();
  await server.db?.close();
  const exit = await stop(server.entry, 15_000);
  if (exit.code !== 0) phase.notes.push(`the server on ${server.store.label} stopped with ${JSON.stringify(exit)}`);
}

/**
 * One phase: a Gatehouse server per store (SQLite, and PostgreSQL where it runs) and the peer's,
 * from start to stop: smoke checks, then every scenario; each Gatehouse scenario runs on each store
 * in turn, its PostgreSQL row right after its SQLite row.
 */
async function runPhase(name, title, { opts, state, workDir, first = false }) {
  const phase = { name, title, scenarios: [], notes: [], bare: {} };
  const servers = [];
  let peer;
  try {
    for (const store of state.stores) {
      const server = await startServer(name, store, { opts, state, workDir, first });
      servers.push(server);
      // `data`: SQLite's counts (as before the PostgreSQL rows); `postgresData`: PostgreSQL's.
      phase[store.key === 'sqlite' ? 'data' : `${store.key}Data`] = server.data;
    }
    if (SCENARIOS.some((scenario) => serverOf(scenario) === 'peer' && selected(scenario, opts))) peer = await preparePeer(name, workDir, opts);
    const contextOf = (server) => ({ ...(server ?? servers[0]).context, peer });
    const serversOf = (scenario) => (serverOf(scenario) === 'gatehouse' ? servers : [undefined]);

    // Smoke check: each scenario answers as expected once (on each store) before anything is measured.
    for (const scenario of SCENARIOS) {
      if (scenario.needsCodes || !selected(scenario, opts)) continue;
      for (const server of serversOf(scenario)) {
        const target = scenario.target(contextOf(server));
        const request = target.requests?.[0];
        const init = request
          ? { method: request.method, headers: request.headers, body: request.setupRequest({ ...request }).body }
          : { method: target.method ?? 'GET', headers: target.headers, body: target.body };
        await expectOk(target.url, init, scenario.expectStatus);
      }
    }

    const bareScenario = SCENARIOS[0];
    const bareTarget = bareScenario.target(contextOf());
    const bareSlices = [];
    await warmUp(bareTarget, opts);
    const sliceSeconds = opts.durationSeconds / opts.rounds;

    const rows = [];
    for (const scenario of SCENARIOS.slice(1)) {
      if (!selected(scenario, opts)) continue;
      for (const server of serversOf(scenario)) {
        const onPeer = serverOf(scenario) === 'peer';
        const servingPid = onPeer ? peer.entry.child.pid : serverOf(scenario) === 'bare-prototypes' ? state.barePrototypesPid : server.entry.child.pid;
        const store = server?.store;
        const label = store && store.key !== 'sqlite' ? `${scenario.name} on ${store.label}` : scenario.name;
        let codes;
        if (scenario.needsCodes) {
          // Enough codes for a server far faster than this one (16,000 a second, twice that with
          // workers: SQLite's one write thread bounds them, decision 0173); running dry is reported.
          const count = Math.ceil((opts.durationSeconds + opts.warmupSeconds) * 16_000 * Math.min(opts.workers, 2));
          codes = codeQueue(onPeer ? await peer.mint(count) : await server.mintCodes(count));
        }
        const target = scenario.target({ ...contextOf(server), codes });
        log(`[${name}] ${scenario.title}${store && store.key !== 'sqlite' ? ` on ${store.label}` : ''}…`);
        await warmUp(target, opts);
        resetPeakRss(servingPid);
        // Bare and scenario slices alternate; the ratio is taken between the two sets.
        const pairedBare = [];
        const measured = [];
        const probes = { serverCpuMs: () => cpuMs(servingPid), serverThreadsMs: () => threadCpuMs(servingPid), database: server?.probe };
        for (let round = 0; round < opts.rounds; round += 1) {
          pairedBare.push(await slice(bareTarget, opts, sliceSeconds, { serverCpuMs: () => cpuMs(state.barePid) }));
          measured.push(await slice(target, opts, sliceSeconds, probes));
        }
        bareSlices.push(...pairedBare);
        const figures = combine(measured, servingPid);
        const bare = combine(pairedBare);
        const row = {
          name: scenario.name,
          title: store && store.key !== 'sqlite' ? `${scenario.title} · ${store.label}` : scenario.title,
          server: serverOf(scenario),
          ...(store ? { store: store.key } : {}),
          ...figures,
          peakRssMiB: peakRssMiB(servingPid),
          bareRequestsPerSecond: bare.requestsPerSecond,
          bareCpuMsPerRequest: bare.serverCpuMsPerRequest,
          ratioToBare: round(figures.requestsPerSecond / bare.requestsPerSecond, 3),
          // The same ratio from CPU time per request: what it would be with a core to itself.
          cpuRatioToBare: figures.serverCpuMsPerRequest && bare.serverCpuMsPerRequest ? round(bare.serverCpuMsPerRequest / figures.serverCpuMsPerRequest, 3) : null,
        };
        // Issue 32: Gatehouse's CPU per request on this store over its CPU per request on SQLite.
        const onSqlite = store && store.key !== 'sqlite' ? rows.find((r) => r.name === scenario.name && r.store === 'sqlite') : undefined;
        if (onSqlite?.serverCpuMsPerRequest && row.serverCpuMsPerRequest) row.cpuVsSqlite = round(row.serverCpuMsPerRequest / onSqlite.serverCpuMsPerRequest, 3);
        // A scenario whose success is a redirect (sign-in's 303) counts as non-2xx only what is not that redirect.
        if (scenario.expectStatus >= 300) row.non2xx = row.requests - (row.statusCodes[String(scenario.expectStatus)] ?? 0);
        if (codes) {
          row.codesMinted = codes.used + (onPeer ? await peer.discard() : await server.db.deleteUnusedCodes(store.identity.clientId));
          row.codesUsed = codes.used;
          if (codes.exhausted > 0) phase.notes.push(`${label}: the minted codes ran out; ${codes.exhausted} requests sent a spent code (counted in non-2xx).`);
        }
        for (const each of servers) if (each.entry.exitInfo) throw new Error(`the server on ${each.store.label} exited during ${label}:\n${logTail(each.entry)}`);
        if (peer?.entry.exitInfo) throw new Error(`oidc-provider exited during ${scenario.name}:\n${logTail(peer.entry)}`);
        log(
          `[${name}]   ${row.requestsPerSecond} req/s (bare ${bare.requestsPerSecond}), ratio ${row.ratioToBare}, CPU ${row.serverCpuMsPerRequest} ms/req (bare ${bare.serverCpuMsPerRequest}), p50 ${row.latencyMs.p50} ms, p99 ${row.latencyMs.p99} ms, non-2xx ${row.non2xx}, errors ${row.errors}${threadsNote(row.serverThreads)}${databaseNote(row)}`,
        );
        rows.push(row);
      }
    }
    const bareRow = { name: bareScenario.name, title: bareScenario.title, server: 'bare', ...combine(bareSlices), peakRssMiB: null };
    phase.bare = { requestsPerSecond: bareRow.requestsPerSecond, serverCpuMsPerRequest: bareRow.serverCpuMsPerRequest, peakRssMiB: peakRssMiB(state.barePid) };
    phase.scenarios = [bareRow, ...rows];
    const peakOf = (server, names, store) => {
      const peaks = rows
        .filter((row) => row.server === server && row.peakRssMiB !== null && (!names || names.includes(row.name)) && (!store || row.store === store))
        .map((row) => row.peakRssMiB);
      return peaks.length > 0 ? Math.max(...peaks) : null;
    };
    // The RSS bound is judged on SQLite, the default; PostgreSQL's server's peak is reported beside it.
    phase.serverPeakRssMiB = peakOf('gatehouse', undefined, 'sqlite');
    phase.serverPeakRssUnderTargetLoadMiB = peakOf('gatehouse', RSS_TARGET_SCENARIOS, 'sqlite');
    if (servers.some((server) => server.store.key === 'postgres')) phase.postgresServerPeakRssMiB = peakOf('gatehouse', undefined, 'postgres');
    if (peer) {
      phase.peerPeakRssMiB = peakOf('peer');
      phase.versusPeer = versusPeer(rows);
    }
  } finally {
    if (peer) {
      const exit = await stop(peer.entry);
      if (exit.code !== 0) phase.notes.push(`oidc-provider stopped with ${JSON.stringify(exit)}`);
    }
    for (const server of servers) await stopServer(server, phase);
  }
  return phase;
}

/** PostgreSQL's own CPU per request, for the progress log. */
function databaseNote(row) {
  if (!row.databaseCpu) return '';
  if (row.databaseCpu.unreadable) return `; PostgreSQL CPU: ${row.databaseCpu.unreadable}`;
  return `; PostgreSQL CPU ms/req ${row.databaseCpu.cpuMsPerRequest} (backends ${row.databaseCpu.backendsMsPerRequest}, shared processes ${row.databaseCpu.backgroundMsPerRequest}); CPU vs SQLite ${row.cpuVsSqlite ?? '–'}`;
}

/**
 * Each peer scenario beside the Gatehouse scenario it is compared with, on each store: both ratios
 * to the bare route and "vs peer", our ratio over theirs (above 1: Gatehouse is the faster of the two).
 */
function versusPeer(rows) {
  const pairs = [];
  for (const theirs of rows.filter((row) => row.server === 'peer')) {
    const peerOf = SCENARIOS.find((scenario) => scenario.name === theirs.name).peerOf;
    for (const ours of rows.filter((row) => row.name === peerOf)) {
      pairs.push({
        name: ours.name,
        store: ours.store,
        peerName: theirs.name,
        title: ours.title,
        peerTitle: theirs.title,
        ratioToBare: ours.ratioToBare,
        peerRatioToBare: theirs.ratioToBare,
        vsPeer: round(ours.ratioToBare / theirs.ratioToBare, 3),
        cpuMsPerRequest: ours.serverCpuMsPerRequest,
        peerCpuMsPerRequest: theirs.serverCpuMsPerRequest,
        cpuVsPeer: ours.serverCpuMsPerRequest && theirs.serverCpuMsPerRequest ? round(theirs.serverCpuMsPerRequest / ours.serverCpuMsPerRequest, 3) : null,
        databaseCpuMsPerRequest: ours.databaseCpu?.cpuMsPerRequest ?? null,
        peakRssMiB: ours.peakRssMiB,
        peerPeakRssMiB: theirs.peakRssMiB,
      });
    }
  }
  return pairs;
}

/** A fresh schema for the run, so the benchmark never touches other data. */
async function preparePostgres(url) {
  const { default: pg } = await import('pg');
  const schema = `gatehouse_bench_${process.pid}_${Date.now().toString(36)}`;
  // The URLs first: one that cannot be parsed must fail before a schema is created (and left behind).
  // libpq `options`: every connection of the server (and of the CLI) uses the fresh schema.
  const withSchema = new URL(url);
  withSchema.searchParams.set('options', `-c search_path=${schema}`);
  // The server's (and the CLI's) connections also carry an application_name, by which the CPU probe
  // finds their backends; the benchmark's own connection (codes, growth data) does not.
  const forServer = new URL(withSchema);
  const applicationName = `gatehouse-bench-${process.pid}`;
  forServer.searchParams.set('application_name', applicationName);
  // A PostgreSQL that does not answer is left out (or fails a --postgres run) within seconds.
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    await client.query(`create schema ${schema}`);
  } finally {
    await client.end();
  }
  return { kind: 'postgres', url: withSchema.toString(), serverUrl: forServer.toString(), baseUrl: url, schema, applicationName };
}

async function dropPostgresSchema(database) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: database.baseUrl });
  await client.connect();
  try {
    await client.query(`drop schema if exists ${database.schema} cascade`);
  } finally {
    await client.end();
  }
}

main().catch(async (error) => {
  process.stderr.write(`\nbenchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  await stopAll();
  await runCleanups();
  process.exit(1);
});
