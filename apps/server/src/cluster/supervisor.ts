import cluster, { type Worker } from 'node:cluster';
import type { Logger } from '../logger.js';
import { WORKER_INDEX_VARIABLE, isListeningMessage } from './worker-messages.js';

/** How long a worker must have lived for its death to count as a crash, not a crash loop. */
export const STEADY_WORKER_MS = 10_000;
/** The longest pause before a worker that keeps dying is started again. */
export const MAX_RESTART_DELAY_MS = 30_000;

/**
 * The pause before slot's next worker starts, after `quickDeaths` deaths in a row each within
 * `STEADY_WORKER_MS` of its start: none after a worker that had served a while, then 0.5 s,
 * doubling to 30 s, so a worker that cannot stay up does not take the machine's CPU restarting.
 */
export function restartDelayMs(quickDeaths: number): number {
  if (quickDeaths <= 0) return 0;
  return Math.min(MAX_RESTART_DELAY_MS, 500 * 2 ** (quickDeaths - 1));
}

export interface SupervisorOptions {
  /** How many workers serve (`--workers N`, `GATEHOUSE_WORKERS`). */
  count: number;
  /** The module the workers run (the `gatehouse` executable) and its arguments. */
  exec: string;
  args: readonly string[];
  /** Variables added to each worker's environment (the primary's own are inherited). */
  env: Record<string, string>;
  logger: Logger;
}

export interface WorkerSupervisor {
  /** The port the workers share, once every worker listens; rejects when one exits before it listens. */
  readonly started: Promise<{ port: number }>;
  /** The workers alive now (tests and the metrics count them). */
  readonly pids: () => number[];
  /**
   * Stops every worker: SIGTERM (each finishes its requests in flight, as one process does on
   * SIGTERM), then SIGKILL to those still there after `graceMs`. Resolves once all have exited; no
   * worker is started again from then on.
   */
  stop(graceMs: number): Promise<void>;
}

interface Slot {
  worker: Worker | undefined;
  startedAt: number;
  listening: boolean;
  quickDeaths: number;
  restartTimer: ReturnType<typeof setTimeout> | undefined;
}

/**
 * The primary of `gatehouse serve --workers N` (docs/decisions/0171-serve-workers.md): starts N
 * worker processes with Node's cluster (they share the port: the primary accepts the connections
 * and hands them out in turn), starts a worker again in its slot when one dies after it served,
 * and stops them all on `stop`. A worker that exits before it listens during start-up fails the
 * start: the same configuration would fail in every worker.
 *
 * @example
 * const workers = superviseWorkers({ count: 4, exec: 'dist/cli.js', args: ['serve'], env: {}, logger });
 * const { port } = await workers.started;
 * process.once('SIGTERM', () => void workers.stop(15_000));
 */
export function superviseWorkers(options: SupervisorOptions): WorkerSupervisor {
  const { count, logger } = options;
  cluster.setupPrimary({ exec: options.exec, args: [...options.args] });
  const slots: Slot[] = [];
  let stopping = false;
  let port: number | undefined;
  let resolveStarted!: (value: { port: number }) => void;
  let rejectStarted!: (error: Error) => void;
  let startedSettled = false;
  const started = new Promise<{ port: number }>((resolvePromise, rejectPromise) => {
    resolveStarted = resolvePromise;
    rejectStarted = rejectPromise;
  });
  started.catch(() => undefined);
  const exits = new Set<Promise<void>>();

  const settleIfAllListen = (): void => {
    if (startedSettled || port === undefined || !slots.every((slot) => slot.listening)) return;
    startedSettled = true;
    resolveStarted({ port });
  };

  const fork = (index: number): void => {
    const slot = slots[index] as Slot;
    slot.restartTimer = undefined;
    if (stopping) return;
    const worker = cluster.fork({ ...options.env, [WORKER_INDEX_VARIABLE]: String(index) });
    slot.worker = worker;
    slot.startedAt = performance.now();
    slot.listening = false;
    let exited!: () => void;
    const exit = new Promise<void>((resolveExit) => (exited = resolveExit));
    exits.add(exit);
    worker.on('message', (message: unknown) => {
      if (!isListeningMessage(message)) return;
      slot.listening = true;
      port ??= message.port;
      settleIfAllListen();
    });
    worker.on('exit', (code, signal) => {
      exits.delete(exit);
      exited();
      if (slot.worker === worker) slot.worker = undefined;
      if (stopping) return;
      const pid = worker.process.pid;
      if (!startedSettled && !slot.listening) {
        startedSettled = true;
        rejectStarted(new Error(`Worker ${index} (pid ${pid}) exited (${signal ?? `code ${code}`}) before it listened; its log lines above say why.`));
        return;
      }
      const lived = performance.now() - slot.startedAt;
      slot.quickDeaths = lived < STEADY_WORKER_MS ? slot.quickDeaths + 1 : 0;
      const delayMs = restartDelayMs(slot.quickDeaths);
      logger.error({ worker: index, pid, code, signal, restartInMs: delayMs }, 'worker exited; starting another in its place');
      slot.restartTimer = setTimeout(() => fork(index), delayMs);
    });
  };

  for (let index = 0; index < count; index += 1) {
    slots.push({ worker: undefined, startedAt: 0, listening: false, quickDeaths: 0, restartTimer: undefined });
    fork(index);
  }

  return {
    started,
    pids: () => slots.flatMap((slot) => (slot.worker?.process.pid === undefined ? [] : [slot.worker.process.pid])),
    async stop(graceMs) {
      stopping = true;
      for (const slot of slots) {
        if (slot.restartTimer !== undefined) clearTimeout(slot.restartTimer);
        slot.restartTimer = undefined;
        // A worker still starting gets SIGTERM too: it stops once it has started (serve listens for it first).
        slot.worker?.process.kill('SIGTERM');
      }
      const killer = setTimeout(() => {
        for (const slot of slots) slot.worker?.process.kill('SIGKILL');
      }, graceMs);
      await Promise.all(exits);
      clearTimeout(killer);
      if (!startedSettled) {
        startedSettled = true;
        rejectStarted(new Error('Stopped before every worker listened.'));
      }
    },
  };
}
