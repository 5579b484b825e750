import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { threadErrorOf, type ThreadAnswer, type ThreadError } from '@gatehouse/core/threads';
import { clockMs, retryDelayMs } from './deadline.js';

/**
 * The write thread's worker (docs/decisions/0075-code-exchange-writes-on-a-thread.md, 0101).
 * Messages in: 'stop', or the JSON of `WriteMessage`: statement definitions (a number and its SQL,
 * each sent once) and writes. Out: arrays of `WriteAnswer`: a group's after its COMMIT (true:
 * written; false: a statement that must change a row changed none, and that write was rolled back),
 * and at once the writes whose deadline passed while the group waited for another connection's lock.
 */
export type WriteMessage = [definitions: Array<[number: number, sql: string]>, writes: Write[]];

/** One write: its number, its statements, and when its wait for the write lock ends (epoch ms). */
export type Write = [id: number, steps: WriteStep[], deadline: number];

/** A statement of a write: its number, its parameters, and whether it must change a row. */
export type WriteStep = [number: number, parameters: unknown[], mustChange: boolean];

export type WriteAnswer = ThreadAnswer<boolean>;

/** The connection settings the thread is started with (`WriteThreadOptions` and the file). */
export interface WriteWorkerData {
  filename: string;
  busyTimeoutMs: number;
  synchronous: string;
  walSizeLimitBytes: number;
  autocheckpointPages: number;
  cacheKib: number;
}

const options = workerData as WriteWorkerData;
const db = new Database(options.filename, { timeout: options.busyTimeoutMs });
// The waits for another connection's write lock are this thread's, each write until its deadline (beginGroup).
db.pragma('busy_timeout = 0');
db.pragma(`synchronous = ${options.synchronous}`);
db.pragma('foreign_keys = ON');
db.pragma(`journal_size_limit = ${options.walSizeLimitBytes}`);
db.pragma(`wal_autocheckpoint = ${options.autocheckpointPages}`);
db.pragma(`cache_size = -${options.cacheKib}`);
const begin = db.prepare('begin immediate');
const commit = db.prepare('commit');
const rollback = db.prepare('rollback');
const savepoint = db.prepare('savepoint write');
const rollbackToSavepoint = db.prepare('rollback to write');
const releaseSavepoint = db.prepare('release write');
const statements = new Map<number, Database.Statement | Error>();
let queue: Write[] = [];
let scheduled = false;

const post = (answers: WriteAnswer[]): void => parentPort?.postMessage(answers);
const isBusy = (error: unknown): boolean => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
};
const sleeper = new Int32Array(new SharedArrayBuffer(4));
const timedOut: ThreadError = { message: `The SQLite database stayed locked by another connection for the whole busy timeout (${options.busyTimeoutMs} ms).`, code: 'SQLITE_BUSY' };

/**
 * BEGIN IMMEDIATE for a group. While another connection holds the write lock, the thread sleeps
 * and tries again until the earliest deadline of the group's writes: a write whose deadline has
 * passed is answered at once (nothing of it was written) and leaves the group. Returns the writes
 * that are in the transaction; false when BEGIN failed otherwise (each write answered with that failure).
 */
const beginGroup = (writes: Write[]): Write[] | false => {
  let group = writes;
  for (let attempt = 0; ; attempt += 1) {
    try {
      begin.run();
      return group;
    } catch (error) {
      if (!isBusy(error)) {
        post(group.map(([id]) => [id, null, threadErrorOf(error)]));
        return false;
      }
    }
    const now = clockMs();
    const expired = group.filter((write) => write[2] <= now);
    if (expired.length > 0) {
      post(expired.map(([id]) => [id, null, timedOut]));
      group = group.filter((write) => write[2] > now);
      if (group.length === 0) return group;
    }
    const earliest = Math.min(...group.map((write) => write[2]));
    // SQLite's own busy handler's steps, as the serving connection waits (deadline.ts).
    const wait = retryDelayMs(attempt, earliest);
    if (wait > 0) Atomics.wait(sleeper, 0, 0, wait);
  }
};

/** Runs one write's statements; false when one that must change a row changed none. */
const runWrite = (steps: WriteStep[]): boolean => {
  for (const [number, parameters, mustChange] of steps) {
    const statement = statements.get(number);
    if (statement === undefined || statement instanceof Error) throw statement ?? new Error(`statement ${number} was never defined`);
    const changed = statement.reader ? statement.all(parameters).length : statement.run(parameters).changes;
    if (mustChange && changed === 0) return false;
  }
  return true;
};

/**
 * Every write that arrived since the last group, under one COMMIT; each inside its own savepoint
 * when there are several, so that one write's refusal or failure undoes that write only.
 */
const flush = (): void => {
  scheduled = false;
  if (queue.length === 0) return;
  const waiting = queue;
  queue = [];
  const group = beginGroup(waiting);
  if (group === false || group.length === 0) return;
  const answers: WriteAnswer[] = [];
  // The failure that made SQLite roll the whole transaction back (a full disk, say): the writes it
  // took with it are answered with its code, so that they read as the same outage.
  let rolledBackBy: ThreadError | undefined;
  const several = group.length > 1;
  for (const [id, steps] of group) {
    if (!db.inTransaction) {
      answers.push([id, null, { message: 'The transaction of this write was rolled back by an earlier failure.', code: rolledBackBy?.code ?? 'SQLITE_ABORT' }]);
      continue;
    }
    if (several) savepoint.run();
    let outcome: boolean | undefined;
    let failure: ThreadError | undefined;
    try {
      outcome = runWrite(steps);
    } catch (error) {
      failure = threadErrorOf(error);
      if (!db.inTransaction) rolledBackBy = failure;
    }
    if (several && db.inTransaction) {
      if (outcome !== true) rollbackToSavepoint.run();
      releaseSavepoint.run();
    } else if (!several && outcome !== true && db.inTransaction) {
      rollback.run();
    }
    answers.push(failure ? [id, null, failure] : [id, outcome === true, null]);
  }
  if (db.inTransaction) {
    try {
      commit.run();
    } catch (error) {
      try {
        rollback.run();
      } catch {
        // Already rolled back by SQLite.
      }
      post(group.map(([id]) => [id, null, threadErrorOf(error)]));
      return;
    }
  } else if (several) {
    // SQLite rolled the whole transaction back (a full disk, say): what looked written is not.
    for (let index = 0; index < answers.length; index += 1) {
      const [id, written] = answers[index] as WriteAnswer;
      if (written === true) answers[index] = [id, null, { message: 'The transaction of this write was rolled back by a later failure.', code: rolledBackBy?.code ?? 'SQLITE_ABORT' }];
    }
  }
  post(answers);
};

parentPort?.on('message', (message: string) => {
  if (message === 'stop') {
    if (queue.length > 0) flush();
    db.close();
    parentPort?.close();
    return;
  }
  const [definitions, writes] = JSON.parse(message) as WriteMessage;
  for (const [number, sql] of definitions) {
    // A statement SQLite refuses fails the writes that use it, not the thread.
    try {
      statements.set(number, db.prepare(sql));
    } catch (error) {
      statements.set(number, error as Error);
    }
  }
  for (const write of writes) queue.push(write);
  if (!scheduled) {
    scheduled = true;
    setImmediate(flush);
  }
});
