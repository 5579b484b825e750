// Drives the servers with autocannon. A scenario is measured in slices that alternate with slices
// of the bare route, so each ratio compares figures taken seconds apart: on a shared machine the
// CPU left to us drifts, and a ratio of two runs minutes apart would measure that drift.
import autocannon from 'autocannon';

function fire(options) {
  // Ctrl-C during a run is handled by the exit handlers (children.js), which end the process.
  return new Promise((resolve, reject) => autocannon(options, (error, result) => (error ? reject(error) : resolve(result))));
}

/**
 * autocannon's options for a target. `loadThreads` above 1 spreads the connections over that many
 * worker threads of autocannon's (`--load-threads`), so that one load generator's thread does not
 * bound a server of several workers; a target with a function in it (a fresh code per request)
 * cannot be cloned into a thread and stays on this one.
 */
function base(target, { connections, loadThreads = 1 }) {
  const options = { connections, pipelining: 1, timeout: 10, ...target };
  if (loadThreads > 1 && !holdsFunction(options)) options.workers = loadThreads;
  return options;
}

/** Whether autocannon's workers could not take these options (a function cannot cross threads). */
export function holdsFunction(value) {
  if (typeof value === 'function') return true;
  if (Array.isArray(value)) return value.some(holdsFunction);
  if (value && typeof value === 'object') return Object.values(value).some(holdsFunction);
  return false;
}

/** Unmeasured load: JIT, caches and connections warm up. */
export async function warmUp(target, { connections, loadThreads, warmupSeconds }) {
  if (warmupSeconds > 0) await fire({ ...base(target, { connections, loadThreads }), duration: warmupSeconds });
}

/**
 * One measured slice. `probes.serverCpuMs()` reads the serving process's CPU time (user + system),
 * before and after, for the CPU cost per request; `probes.serverThreadsMs()`, where given, the same
 * by thread id (children.js `threadCpuMs`); `probes.database`, where given, PostgreSQL's own
 * processes (postgres-cpu.js).
 */
export async function slice(target, { connections, loadThreads }, seconds, { serverCpuMs = () => null, serverThreadsMs = () => null, database } = {}) {
  const databaseBefore = database ? await database.sample() : undefined;
  const cpuBefore = serverCpuMs();
  const threadsBefore = serverThreadsMs();
  const loadBefore = process.cpuUsage();
  const result = await fire({ ...base(target, { connections, loadThreads }), duration: seconds });
  const load = process.cpuUsage(loadBefore);
  const cpuAfter = serverCpuMs();
  const threadsAfter = serverThreadsMs();
  const databaseAfter = database ? await database.sample() : undefined;
  return {
    threadCpuMs: threadsBefore && threadsAfter ? threadDeltas(threadsBefore, threadsAfter) : null,
    databaseCpu: database ? database.delta(databaseBefore, databaseAfter) : null,
    requests: result.requests.total,
    seconds: result.duration || seconds,
    cpuMs: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore,
    // The load generator's own CPU (this process, its autocannon threads included): near 1 core per
    // load thread, it rather than the server may be what bounds the requests per second.
    loadCpuMs: (load.user + load.system) / 1000,
    latencyMs: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max, mean: result.latency.average },
    ok2xx: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, { count }]) => [code, count])),
    bytes: result.throughput.total,
  };
}

/**
 * PostgreSQL's CPU per request over several slices: its backends serving the server's pool, and
 * its shared processes (WAL writer, checkpointer…); `unreadable` says why there is no figure.
 */
function databaseFigures(slices, requests) {
  if (slices.every((s) => s.databaseCpu === null)) return null;
  const unreadable = slices.find((s) => s.databaseCpu?.unreadable)?.databaseCpu.unreadable;
  if (unreadable) return { unreadable };
  if (requests === 0) return { cpuMsPerRequest: null, backendsMsPerRequest: null, backgroundMsPerRequest: null };
  const sum = (pick) => slices.reduce((total, s) => total + pick(s.databaseCpu), 0);
  const backends = sum((d) => d.backendsMs);
  const background = sum((d) => d.backgroundMs);
  return {
    cpuMsPerRequest: round((backends + background) / requests, 3),
    backendsMsPerRequest: round(backends / requests, 3),
    backgroundMsPerRequest: round(background / requests, 3),
    backends: Math.max(...slices.map((s) => s.databaseCpu.backends)),
    backendsEnded: sum((d) => d.ended),
  };
}

function threadDeltas(before, after) {
  const deltas = {};
  for (const [tid, ms] of Object.entries(after)) deltas[tid] = ms - (before[tid] ?? 0);
  return deltas;
}

/**
 * CPU per request of the serving process's threads over several slices: the event loop's thread
 * (`mainThreadPid`'s id) and the three busiest others (worker threads, V8's and libuv's helpers).
 */
function threadFigures(slices, requests, mainThreadPid) {
  if (mainThreadPid === undefined || requests === 0 || slices.some((s) => !s.threadCpuMs)) return null;
  const byThread = {};
  for (const s of slices) for (const [tid, ms] of Object.entries(s.threadCpuMs)) byThread[tid] = (byThread[tid] ?? 0) + ms;
  const main = byThread[String(mainThreadPid)] ?? 0;
  const others = Object.entries(byThread)
    .filter(([tid]) => tid !== String(mainThreadPid))
    .map(([, ms]) => ms)
    .sort((a, b) => b - a);
  return {
    mainMsPerRequest: round(main / requests, 3),
    busiestOthersMsPerRequest: others.slice(0, 3).map((ms) => round(ms / requests, 3)),
    restMsPerRequest: round(others.slice(3).reduce((a, b) => a + b, 0) / requests, 3),
  };
}

/**
 * The figures of several slices of one target: requests/s over their total time, CPU per request
 * over all of them, the median of the slices' p50 and the largest of their p99 and max.
 */
export function combine(slices, mainThreadPid) {
  const sum = (pick) => slices.reduce((total, s) => total + pick(s), 0);
  const requests = sum((s) => s.requests);
  const seconds = sum((s) => s.seconds);
  const cpuKnown = slices.every((s) => s.cpuMs !== null);
  const cpuMs = cpuKnown ? sum((s) => s.cpuMs) : null;
  const statusCodes = {};
  for (const s of slices) for (const [code, count] of Object.entries(s.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + count;
  return {
    requestsPerSecond: round(requests / seconds, 1),
    requests,
    seconds: round(seconds, 2),
    slices: slices.length,
    // Load-independent: CPU time the serving process spent per request (user + system).
    serverCpuMsPerRequest: cpuMs === null || requests === 0 ? null : round(cpuMs / requests, 3),
    serverCpuShare: cpuMs === null ? null : round(cpuMs / (seconds * 1000), 2),
    loadGeneratorCpuShare: round(sum((s) => s.loadCpuMs ?? 0) / (seconds * 1000), 2),
    serverThreads: threadFigures(slices, requests, mainThreadPid),
    databaseCpu: databaseFigures(slices, requests),
    latencyMs: {
      p50: median(slices.map((s) => s.latencyMs.p50)),
      p90: median(slices.map((s) => s.latencyMs.p90)),
      p99: Math.max(...slices.map((s) => s.latencyMs.p99)),
      max: Math.max(...slices.map((s) => s.latencyMs.max)),
      mean: round(sum((s) => s.latencyMs.mean * s.requests) / Math.max(1, requests), 2),
    },
    ok2xx: sum((s) => s.ok2xx),
    non2xx: sum((s) => s.non2xx),
    errors: sum((s) => s.errors),
    timeouts: sum((s) => s.timeouts),
    statusCodes,
    throughputMiBps: round(sum((s) => s.bytes) / seconds / (1 << 20), 2),
  };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export function round(value, digits) {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
