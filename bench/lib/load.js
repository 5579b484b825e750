// Drives one scenario with autocannon: an unmeasured warm-up (JIT, caches, connection set-up),
// then the measured run, reduced to the figures the report needs.
import autocannon from 'autocannon';

function fire(options) {
  return new Promise((resolve, reject) => {
    // Ctrl-C during a run is handled by the exit handlers (children.js), which end the process.
    autocannon(options, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

/**
 * @param target autocannon options of the scenario (url, method, headers, body, requests…)
 * @returns requests/s, latency percentiles (ms), counts of non-2xx answers and errors
 */
export async function measure(target, { connections, durationSeconds, warmupSeconds }) {
  const base = { connections, pipelining: 1, timeout: 10, ...target };
  if (warmupSeconds > 0) await fire({ ...base, duration: warmupSeconds });
  const result = await fire({ ...base, duration: durationSeconds });
  const elapsed = result.duration || durationSeconds;
  return {
    requestsPerSecond: round(result.requests.total / elapsed, 1),
    requests: result.requests.total,
    seconds: round(elapsed, 2),
    latencyMs: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max, mean: round(result.latency.average, 2) },
    ok2xx: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, { count }]) => [code, count])),
    throughputMiBps: round(result.throughput.average / (1 << 20), 2),
  };
}

export function round(value, digits) {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
