import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { BackgroundStatement } from '@gatehouse/storage-kysely';
import { clockMs } from './deadline.js';
import { LockContention } from './lock-contention.js';
import { asStorageFailure } from './storage-failures.js';
import type { WriteGate } from './write-gate.js';
import { stopWorker } from './worker-stop.js';

// A CommonJS script (worker `eval`), so that the same file works from dist/ and from src/ in tests.
// Messages in: 'stop', or the JSON of [definitions, writes]: a definition is [statement number,
// SQL], a write [id, steps, deadline], a step [statement number, parameters, must change a row].
// Out: arrays of [id, outcome, error]: a group's after its COMMIT (outcome true: written; false: a
// statement that must change a row changed none, and that write was rolled back), and at once the
// writes whose deadline passed while the group waited for another connection's write lock.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.filename, { timeout: workerData.busyTimeoutMs });
// The waits for another connection's write lock are this thread's, each write until its deadline (beginGroup).
db.pragma('busy_timeout = 0');
db.pragma('synchronous = ' + workerData.synchronous);
db.pragma('foreign_keys = ON');
db.pragma('journal_size_limit = ' + workerData.walSizeLimitBytes);
db.pragma('wal_autocheckpoint = ' + workerData.autocheckpointPages);
db.pragma('cache_size = -' + workerData.cacheKib);
const begin = db.prepare('begin immediate');
const commit = db.prepare('commit');
const rollback = db.prepare('rollback');
const savepoint = db.prepare('savepoint write');
const rollbackToSavepoint = db.prepare('rollback to write');
const releaseSavepoint = db.prepare('release write');
const statements = new Map();
let queue = [];
let scheduled = false;

const errorOf = (error) => ({ message: String(error && error.message), code: error && error.code });
const isBusy = (error) => typeof (error && error.code) === 'string' && (error.code.startsWith('SQLITE_BUSY') || error.code.startsWith('SQLITE_LOCKED'));
const clock = () => performance.timeOrigin + performance.now();
// SQLite's own busy handler's steps (ms), then 100 ms at a time; the thread sleeps in between.
const BUSY_DELAYS = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100];
const sleeper = new Int32Array(new SharedArrayBuffer(4));
const timedOut = { message: 'The SQLite database stayed locked by another connection for the whole busy timeout (' + workerData.busyTimeoutMs + ' ms).', code: 'SQLITE_BUSY' };

// BEGIN IMMEDIATE for a group. While another connection holds the write lock, the thread sleeps
// and tries again until the earliest deadline of the group's writes: a write whose deadline has
// passed is answered at once (nothing of it was written) and leaves the group. Returns the writes
// that are in the transaction; false when BEGIN failed otherwise (each write answered with that failure).
const beginGroup = (group) => {
  for (let attempt = 0; ; attempt += 1) {
    try {
      begin.run();
      return group;
    } catch (error) {
      if (!isBusy(error)) {
        parentPort.postMessage(group.map(([id]) => [id, null, errorOf(error)]));
        return false;
      }
    }
    const now = clock();
    const expired = group.filter((write) => write[2] <= now);
    if (expired.length > 0) {
      parentPort.postMessage(expired.map(([id]) => [id, null, timedOut]));
      group = group.filter((write) => write[2] > now);
      if (group.length === 0) return group;
    }
    const earliest = Math.min(...group.map((write) => write[2]));
    const wait = Math.min(BUSY_DELAYS[attempt] === undefined ? 100 : BUSY_DELAYS[attempt], earliest - clock());
    if (wait > 0) Atomics.wait(sleeper, 0, 0, wait);
  }
};

// Runs one write's statements; false when one that must change a row changed none.
const runWrite = (steps) => {
  for (const [number, parameters, mustChange] of steps) {
    const statement = statements.get(number);
    if (statement instanceof Error) throw statement;
    const changed = statement.reader ? statement.all(parameters).length : statement.run(parameters).changes;
    if (mustChange && changed === 0) return false;
  }
  return true;
};

// Every write that arrived since the last group, under one COMMIT; each inside its own savepoint
// when there are several, so that one write's refusal or failure undoes that write only.
const flush = () => {
  scheduled = false;
  if (queue.length === 0) return;
  const waiting = queue;
  queue = [];
  const group = beginGroup(waiting);
  if (group === false || group.length === 0) return;
  const answers = [];
  // The failure that made SQLite roll the whole transaction back (a full disk, say): the writes it
  // took with it are answered with its code, so that they read as the same outage.
  let rolledBackBy;
  const several = group.length > 1;
  for (const [id, steps] of group) {
    if (!db.inTransaction) {
      answers.push([id, null, { message: 'The transaction of this write was rolled back by an earlier failure.', code: rolledBackBy ? rolledBackBy.code : 'SQLITE_ABORT' }]);
      continue;
    }
    if (several) savepoint.run();
    let outcome;
    let failure;
    try {
      outcome = runWrite(steps);
    } catch (error) {
      failure = errorOf(error);
      if (!db.inTransaction) rolledBackBy = failure;
    }
    if (several && db.inTransaction) {
      if (outcome !== true) rollbackToSavepoint.run();
      releaseSavepoint.run();
    } else if (!several && outcome !== true && db.inTransaction) {
      rollback.run();
    }
    answers.push(failure ? [id, null, failure] : [id, outcome, null]);
  }
  if (db.inTransaction) {
    try {
      commit.run();
    } catch (error) {
      try { rollback.run(); } catch {}
      parentPort.postMessage(group.map(([id]) => [id, null, errorOf(error)]));
      return;
    }
  } else if (several) {
    // SQLite rolled the whole transaction back (a full disk, say): what looked written is not.
    for (let index = 0; index < answers.length; index += 1) {
      if (answers[index][1] === true) answers[index] = [answers[index][0], null, { message: 'The transaction of this write was rolled back by a later failure.', code: rolledBackBy ? rolledBackBy.code : 'SQLITE_ABORT' }];
    }
  }
  parentPort.postMessage(answers);
};

parentPort.on('message', (message) => {
  if (message === 'stop') {
    if (queue.length > 0) flush();
    db.close();
    parentPort.close();
    return;
  }
  const [definitions, writes] = JSON.parse(message);
  for (const [number, sql] of definitions) {
    // A statement SQLite refuses fails the writes that use it, not the thread.
    try {
      statements.set(number, db.prepare(sql));
    } catch (error) {
      statements.set(number, error);
    }
  }
  for (const write of writes) queue.push(write);
  if (!scheduled) {
    scheduled = true;
    setImmediate(flush);
  }
});
`;

/**
 * The write thread's page cache, in KiB (SQLite's default is 2,000). With a million grants, the
 * 2 MiB default no longer held the inner pages of the indexes the exchanges write, and every group
 * read them again from the file (docs/performance.md, issue 16 part 8). Since codes and refresh
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

type Answer = [id: number, outcome: boolean | null, error: { message: string; code?: string } | null];

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
  const pending = new Map<number, { resolve: (written: boolean) => void; reject: (error: Error) => void }>();
  // Statements are sent by number once their SQL has been sent (kysely compiles each once).
  const numbers = new Map<string, number>();
  let nextId = 0;
  let failure: Error | undefined;

  const settle = (id: number, settleWith: (entry: { resolve: (written: boolean) => void; reject: (error: Error) => void }) => void) => {
    const entry = pending.get(id);
    if (entry === undefined) return;
    pending.delete(id);
    gate.leaveThread();
    if (pending.size === 0) started?.worker.unref();
    settleWith(entry);
  };
  const failAll = (error: Error) => {
    failure ??= error;
    for (const id of [...pending.keys()]) settle(id, (entry) => entry.reject(error));
  };

  // The thread starts at the first write: a CLI command or a storage that never exchanges a code starts none.
  let started: { worker: Worker; exited: Promise<void> } | undefined;
  const thread = () => {
    if (started !== undefined) return started;
    const require = createRequire(import.meta.url);
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { driver: require.resolve('better-sqlite3'), filename, ...options },
      resourceLimits: { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 4 },
    });
    worker.unref();
    worker.on('message', (answers: Answer[]) => {
      for (const [id, outcome, error] of answers) {
        if (error === null) contention.cleared();
        else if (error.code === 'SQLITE_BUSY') contention.met();
        settle(id, (entry) => (error === null ? entry.resolve(outcome === true) : entry.reject(asStorageFailure(Object.assign(new Error(error.message), { code: error.code })) as Error)));
      }
    });
    worker.on('error', (error) => failAll(new Error('The SQLite write thread failed.', { cause: error })));
    const exited = new Promise<void>((resolve) =>
      worker.once('exit', () => {
        failAll(new Error('The SQLite write thread stopped.'));
        resolve();
      }),
    );
    return (started = { worker, exited });
  };

  // The writes of one turn of the event loop go in one message (one wake-up of the thread).
  let definitions: Array<[number, string]> = [];
  let outbox: Array<[number, unknown[], number]> = [];
  const send = () => {
    const message = JSON.stringify([definitions, outbox]);
    definitions = [];
    outbox = [];
    thread().worker.postMessage(message);
  };
  const post = (statements: readonly BackgroundStatement[], deadline: number): Promise<boolean> => {
    const id = nextId++;
    const steps = statements.map(({ sql, parameters, mustChange }) => {
      let number = numbers.get(sql);
      if (number === undefined) {
        numbers.set(sql, (number = numbers.size));
        definitions.push([number, sql]);
      }
      return [number, parameters, mustChange];
    });
    if (pending.size === 0) thread().worker.ref();
    if (outbox.length === 0) setImmediate(() => outbox.length > 0 && send());
    outbox.push([id, steps, deadline]);
    return new Promise<boolean>((resolve, reject) => pending.set(id, { resolve, reject }));
  };

  let stopped: Promise<void> | undefined;
  return {
    write(statements) {
      if (failure !== undefined || stopped !== undefined) return undefined;
      // The write's wait for the lock ends this long after it was handed over; it tries once while
      // the lock is known to be held elsewhere.
      const deadline = clockMs() + (contention.latched ? 0 : options.busyTimeoutMs);
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
      if (outbox.length > 0) send();
      stopped ??= started === undefined ? Promise.resolve() : stopWorker(started.worker, started.exited, 5000);
      return stopped;
    },
  };
}
