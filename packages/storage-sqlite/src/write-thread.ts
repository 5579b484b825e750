import { Worker } from 'node:worker_threads';
import { createThreadCalls, workerModule } from '@gatehouse/core/threads';
import { WAL_SIZE_LIMIT_BYTES } from './background-checkpoints.js';
import { clockMs } from './deadline.js';
import { LockContention } from './lock-contention.js';
import { asStorageFailure } from './storage-failures.js';
import type { WriteGate } from './write-gate.js';
import { stopWorker } from './worker-stop.js';
import type { Write, WriteAnswer, WriteStep, WriteWorkerData } from './write-worker.js';

/**
 * The write thread's page cache, in KiB (SQLite's default is 2,000). With a million grants, the
 * 2 MiB default no longer held the inner pages of the indexes the exchanges write, and every group
 * read them again from the file (bench/results/history.md, issue 16 part 8). Since codes and refresh
 * tokens are stored in issue order (decision 0077) the pages it needs are fewer; the cache is an
 * upper bound, filled only as pages are read.
 */
export const WRITE_THREAD_CACHE_KIB = 16 * 1024;

/** A write thread's connection settings: the serving connection's (sqlite-storage.ts), and its page cache. */
export interface WriteThreadOptions {
  /** How long a write may wait for another connection's write lock, from the moment it is handed over (decision 0101). */
  busyTimeoutMs: number;
  synchronous: string;
  walSizeLimitBytes: number;
  autocheckpointPages: number;
  cacheKib: number;
}

/**
 * The settings of a write thread on a file opened with `busyTimeoutMs` and `synchronous` (the
 * serving connection's), checkpointing past `autocheckpointPages`: the WAL's bound and the page
 * cache are the same for every write thread, a storage's own or the one shared by several processes.
 */
export function writeThreadOptions(busyTimeoutMs: number, synchronous: string, autocheckpointPages: number): WriteThreadOptions {
  return { busyTimeoutMs, synchronous, walSizeLimitBytes: WAL_SIZE_LIMIT_BYTES, autocheckpointPages, cacheKib: WRITE_THREAD_CACHE_KIB };
}

/** A statement of a write handed to the thread. */
export interface BackgroundStatement {
  sql: string;
  /** Strings, finite numbers and null: they cross to the thread as JSON. */
  parameters: readonly unknown[];
  /** The write is refused (rolled back, answered false) when this statement changes no row. */
  mustChange: boolean;
}

/** The write thread of one database file. */
export interface WriteThread {
  /**
   * Runs `statements` as one write, all or nothing, on the thread's connection: true once committed,
   * false (nothing written) when a statement marked `mustChange` changed no row, a rejection when
   * SQLite failed (a `StorageUnavailableError` when the database cannot be used now, as when another
   * connection held the write lock for the whole busy timeout since this call). Undefined when the thread has stopped or failed: the caller writes on its own
   * connection instead.
   */
  write(statements: readonly BackgroundStatement[]): Promise<boolean> | undefined;
  /** Waits for the writes in flight, then ends the thread and closes its connection. */
  stop(): Promise<void>;
}

/**
 * Where a write thread's messages go: a thread of this process (`localWriteThread`), or the one
 * thread another process runs for several (shared-write-thread.ts). `post` takes the JSON of a
 * `WriteMessage`; answers and failures come back through the `WriteThreadEvents` it was opened with.
 */
export interface WriteThreadLink {
  post(message: string): void;
  /** Keeps the process alive while writes are in flight, and lets it go after. */
  ref(): void;
  unref(): void;
  /** Ends the link once the writes in flight are answered (`drained` resolves when they are). */
  stop(drained: Promise<void>): Promise<void>;
}

/** What a `WriteThreadLink` reports: a thread's answers, or that it failed or stopped (every later write falls back). */
export interface WriteThreadEvents {
  answers(answers: WriteAnswer[]): void;
  failed(error: Error): void;
}

/**
 * Starts a worker thread with its own connection to `filename` that runs writes handed to it
 * (docs/decisions/0075-code-exchange-writes-on-a-thread.md): the event loop only posts the
 * statements and reads the answer, while the thread waits for SQLite's write lock, writes the
 * WAL frames and commits. Writes that arrive while it is busy are committed together (group
 * commit): each is still all or nothing (a savepoint each), and every answer is sent after the
 * group's COMMIT, so no caller hears "written" before its write is in the WAL. `gate` keeps the
 * serving connection's writes out while writes are in flight. A write waits for another
 * connection's write lock until `busyTimeoutMs` after it was handed over, or tries once while
 * `contention` says the lock is held elsewhere (decision 0101). The thread starts at the first
 * write and does not keep the process alive.
 */
export function startWriteThread(filename: string, gate: WriteGate, options: WriteThreadOptions, contention: LockContention = new LockContention()): WriteThread {
  return driveWriteThread((events) => localWriteThread(filename, options, events), gate, options.busyTimeoutMs, contention);
}

/** The worker thread of write-worker.ts on its own connection to `filename`, reporting to `events`. */
export function localWriteThread(filename: string, options: WriteThreadOptions, events: WriteThreadEvents): WriteThreadLink {
  const { url, argv, execArgv } = workerModule(import.meta.url, 'write-worker');
  const workerData: WriteWorkerData = { filename, ...options };
  const worker = new Worker(url, { argv, execArgv, workerData, resourceLimits: { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 4 } });
  worker.unref();
  worker.on('message', (answers: WriteAnswer[]) => events.answers(answers));
  worker.on('error', (error) => events.failed(new Error('The SQLite write thread failed.', { cause: error })));
  const exited = new Promise<void>((resolve) =>
    worker.once('exit', () => {
      events.failed(new Error('The SQLite write thread stopped.'));
      resolve();
    }),
  );
  return {
    post: (message) => worker.postMessage(message),
    ref: () => worker.ref(),
    unref: () => worker.unref(),
    stop: () => stopWorker(worker, exited, 5000),
  };
}

/**
 * The event loop's side of a write thread, wherever it runs: statements numbered once per SQL, the
 * writes of one turn in one message, each with the deadline of its wait for the write lock, the
 * gate held while writes are in flight, and the lock contention learnt from the answers.
 */
export function driveWriteThread(open: (events: WriteThreadEvents) => WriteThreadLink, gate: WriteGate, busyTimeoutMs: number, contention: LockContention): WriteThread {
  // Statements are sent by number once their SQL has been sent (kysely compiles each once).
  const numbers = new Map<string, number>();
  let definitions: Array<[number, string]> = [];
  let failure: Error | undefined;

  // The link opens at the first write: a CLI command or a storage that never exchanges a code starts no thread.
  let link: WriteThreadLink | undefined;
  // The writes of one turn of the event loop go in one message (one wake-up of the thread).
  const calls = createThreadCalls<[WriteStep[], number], boolean>({
    post: (writes) => {
      const message = JSON.stringify([definitions, writes.map(([id, [steps, deadline]]): Write => [id, steps, deadline])]);
      definitions = [];
      opened().post(message);
    },
    ref: () => link?.ref(),
    unref: () => link?.unref(),
  });
  const failAll = (error: Error) => {
    failure ??= error;
    calls.fail(error);
  };
  const opened = (): WriteThreadLink =>
    (link ??= open({
      answers(answers) {
        for (const [, , error] of answers) {
          if (error === null) contention.cleared();
          else if (error.code === 'SQLITE_BUSY') contention.met();
        }
        calls.settle(answers, (error) => asStorageFailure(Object.assign(new Error(error.message), { code: error.code })) as Error);
      },
      failed: failAll,
    }));

  const post = (statements: readonly BackgroundStatement[], deadline: number): Promise<boolean> => {
    const steps = statements.map(({ sql, parameters, mustChange }): WriteStep => {
      let number = numbers.get(sql);
      if (number === undefined) {
        numbers.set(sql, (number = numbers.size));
        definitions.push([number, sql]);
      }
      return [number, [...parameters], mustChange];
    });
    opened();
    // The serving connection's writes stay out until the thread has answered (write-gate.ts).
    return calls.call([steps, deadline]).finally(() => gate.leaveThread());
  };

  let stopped: Promise<void> | undefined;
  return {
    write(statements) {
      if (failure !== undefined || stopped !== undefined) return undefined;
      // The write's wait for the lock ends this long after it was handed over; it tries once while
      // the lock is known to be held elsewhere.
      const deadline = clockMs() + (contention.latched ? 0 : busyTimeoutMs);
      const entered = gate.enterThread();
      if (entered === undefined) return post(statements, deadline);
      return entered.then(() => {
        if (failure === undefined && stopped === undefined) return post(statements, deadline);
        gate.leaveThread();
        throw failure ?? new Error('The SQLite write thread stopped.');
      });
    },
    stop() {
      // Writes posted in this turn of the event loop go before the stop.
      calls.flush();
      stopped ??= link === undefined ? Promise.resolve() : link.stop(calls.drained());
      return stopped;
    },
  };
}
