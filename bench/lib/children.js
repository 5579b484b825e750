// Child processes of the benchmark: started here, always stopped here (normal end, error, Ctrl-C).
import { execFileSync, spawn } from 'node:child_process';
import { openSync, closeSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

/** A preload that ends the child when the benchmark's IPC channel closes (the benchmark died). */
const DIE_WITH_PARENT = fileURLToPath(new URL('./die-with-parent.js', import.meta.url));

const running = new Set();

/**
 * Starts `node <args>` with its output in `logFile`. The child also gets an IPC channel and a
 * preload that sends it SIGTERM when the channel closes, so it does not outlive a killed benchmark.
 */
export function startNode(name, args, { env = {}, logFile, cwd } = {}) {
  const fd = openSync(logFile, 'a');
  const child = spawn(process.execPath, ['--import', DIE_WITH_PARENT, ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', fd, fd, 'ipc'],
  });
  closeSync(fd);
  const entry = {
    name,
    child,
    logFile,
    exited: new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal }))),
    exitInfo: undefined,
  };
  entry.exited.then((info) => {
    entry.exitInfo = info;
    running.delete(entry);
  });
  child.on('error', () => undefined);
  running.add(entry);
  return entry;
}

/** SIGTERM, then SIGKILL after `graceMs`. Resolves when the process is gone. */
export async function stop(entry, graceMs = 5000) {
  if (entry.exitInfo) return entry.exitInfo;
  entry.child.kill('SIGTERM');
  const timer = setTimeout(() => entry.child.kill('SIGKILL'), graceMs);
  const info = await entry.exited;
  clearTimeout(timer);
  return info;
}

export async function stopAll() {
  await Promise.all([...running].map((entry) => stop(entry)));
}

/** Last lines of a child's log, for error messages. */
export function logTail(entry, lines = 20) {
  try {
    return readFileSync(entry.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** Waits until `url` answers 200, failing early when the child exits. */
export async function waitUntilReady(entry, url, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (entry.exitInfo) {
      throw new Error(`${entry.name} exited (${JSON.stringify(entry.exitInfo)}) before it was ready:\n${logTail(entry)}`);
    }
    try {
      const response = await fetch(url);
      await response.arrayBuffer();
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(`${entry.name} was not ready at ${url} after ${timeoutMs} ms:\n${logTail(entry)}`);
}

/** A free TCP port on loopback (asked of the kernel, then released for the child to bind). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * A process and its descendants (Linux): the workers of `gatehouse serve --workers N` with their
 * primary. One process where the children cannot be read.
 */
export function processTree(pid) {
  const tree = [pid];
  for (let index = 0; index < tree.length; index += 1) {
    const parent = tree[index];
    try {
      for (const tid of readdirSync(`/proc/${parent}/task`)) {
        try {
          const children = readFileSync(`/proc/${parent}/task/${tid}/children`, 'utf8').trim();
          if (children !== '') tree.push(...children.split(' ').map(Number));
        } catch {
          // The thread ended between the listing and the read.
        }
      }
    } catch {
      // The process ended.
    }
  }
  return tree;
}

/** The sum over a process tree of `measure` (null when it knows none of them). */
function overTree(pid, measure) {
  let total = null;
  for (const member of processTree(pid)) {
    const value = measure(member);
    if (value !== null) total = (total ?? 0) + value;
  }
  return total;
}

/**
 * Peak resident set size since start or since the last `resetPeakRss`, in MiB (Linux): of the
 * process and its children together (each one's peak, summed), so that N workers count N times.
 */
export function peakRssMiB(pid) {
  const total = overTree(pid, (member) => {
    try {
      const status = readFileSync(`/proc/${member}/status`, 'utf8');
      const kb = Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1]);
      return Number.isFinite(kb) ? kb : null;
    } catch {
      return null;
    }
  });
  return total === null ? null : Math.round((total / 1024) * 10) / 10;
}

/** Current resident set size in MiB (Linux). */
export function rssMiB(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]);
    return Number.isFinite(kb) ? Math.round((kb / 1024) * 10) / 10 : null;
  } catch {
    return null;
  }
}

const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** Clock ticks per second of /proc's CPU times (`getconf CLK_TCK`). */
export function ticksPerSecond() {
  return TICKS_PER_SECOND;
}

/** CPU time (user + system) a process and its children have used so far, in ms (Linux); null where unknown. */
export function cpuMs(pid) {
  return overTree(pid, (member) => {
    try {
      return statCpuMs(`/proc/${member}/stat`);
    } catch {
      return null;
    }
  });
}

/** User + system time in ms from a `/proc` stat file (a process's or a thread's). */
function statCpuMs(path) {
  const stat = readFileSync(path, 'utf8');
  // Fields after the command name (which may hold spaces) start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

/**
 * CPU time (user + system) of each thread of a process so far, in ms, by thread id (Linux); null
 * where unknown. The thread whose id is the process's is the event loop's; Node names every other
 * thread `node` too, so the others are told apart only by how busy they are.
 */
export function threadCpuMs(pid) {
  try {
    const threads = {};
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        threads[tid] = statCpuMs(`/proc/${pid}/task/${tid}/stat`);
      } catch {
        // The thread ended between the listing and the read.
      }
    }
    return threads;
  } catch {
    return null;
  }
}

/** Resets the kernel's peak-RSS mark (VmHWM) to the current RSS; false where unsupported. */
export function resetPeakRss(pid) {
  let reset = false;
  for (const member of processTree(pid)) {
    try {
      writeFileSync(`/proc/${member}/clear_refs`, '5');
      reset = true;
    } catch {
      // Unsupported, or the process ended.
    }
  }
  return reset;
}

let handlersInstalled = false;
const cleanups = [];

/** Work to do however the benchmark ends (temporary directory, PostgreSQL schema); runs once. */
export function onCleanup(fn) {
  cleanups.push(fn);
}

export async function runCleanups() {
  for (const fn of cleanups.splice(0).reverse()) {
    try {
      await fn();
    } catch (error) {
      process.stderr.write(`cleanup failed: ${error instanceof Error ? error.message : String(error)}\n`);
    }
  }
}

/** Stops every child on exit, on an uncaught error and on SIGINT/SIGTERM. */
export function installExitHandlers() {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on('exit', () => {
    for (const entry of running) entry.child.kill('SIGKILL');
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.once(signal, () => {
      process.stderr.write(`\n${signal}: stopping the benchmark's processes…\n`);
      stopAll()
        .then(runCleanups)
        .finally(() => process.exit(130));
    });
  }
}
