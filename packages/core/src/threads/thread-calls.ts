import type { ThreadAnswer, ThreadError } from './protocol.js';

/** How `createThreadCalls` reaches its thread. */
export interface ThreadCallsOptions<Job> {
  /** Posts one turn's jobs, each with its number (the thread is started here if need be). */
  post(jobs: Array<[id: number, job: Job]>): void;
  /** Keeps the process alive while calls are in flight (`worker.ref()`), and lets it go after (`unref`). */
  ref(): void;
  unref(): void;
}

/** The calls in flight on one thread, batched per turn of the event loop and answered by number. */
export interface ThreadCalls<Job, Result> {
  /** Queues `job` in this turn's message; resolves with its result or rejects with its failure. */
  call(job: Job): Promise<Result>;
  /** Settles the calls the thread answered. `failure` turns a crossing failure into the error the caller sees. */
  settle(answers: ReadonlyArray<ThreadAnswer<Result>>, failure: (error: ThreadError) => Error): void;
  /** Sends what this turn queued at once (before a stop). */
  flush(): void;
  /** Every call in flight, and every later one, is handed to `rescue` (run here) or rejected with `error`. */
  fail(error: Error, rescue?: (job: Job) => Result): void;
  /** Calls in flight. */
  readonly inFlight: number;
  /** Resolves once no call is in flight (at once when none is). */
  drained(): Promise<void>;
}

/**
 * The request/response protocol the signing thread and the SQLite write thread share
 * (docs/decisions/0160-typed-worker-modules.md): numbered calls, the calls of one turn of the event
 * loop in one message, answers matched by number, the thread kept referenced only while calls are in
 * flight, and every call settled once whatever happens to the thread.
 *
 * @example
 * const calls = createThreadCalls<string, string>({ post: (jobs) => worker.postMessage(jobs), ref: () => worker.ref(), unref: () => worker.unref() });
 * worker.on('message', (answers) => calls.settle(answers, (error) => new Error(error.message)));
 * const signature = await calls.call(signingInput);
 */
export function createThreadCalls<Job, Result>(options: ThreadCallsOptions<Job>): ThreadCalls<Job, Result> {
  const pending = new Map<number, { job: Job; resolve: (result: Result) => void; reject: (error: Error) => void }>();
  let outbox: Array<[number, Job]> = [];
  let nextId = 0;
  let waiters: Array<() => void> = [];
  const afterSettling = () => {
    if (pending.size > 0) return;
    options.unref();
    const done = waiters;
    waiters = [];
    for (const resolve of done) resolve();
  };
  const flush = () => {
    if (outbox.length === 0) return;
    const jobs = outbox;
    outbox = [];
    options.post(jobs);
  };
  return {
    call(job) {
      const id = nextId++;
      if (pending.size === 0) options.ref();
      if (outbox.length === 0) setImmediate(flush);
      outbox.push([id, job]);
      return new Promise<Result>((resolve, reject) => pending.set(id, { job, resolve, reject }));
    },
    settle(answers, failure) {
      for (const [id, result, error] of answers) {
        const entry = pending.get(id);
        if (entry === undefined) continue;
        pending.delete(id);
        if (error === null) entry.resolve(result as Result);
        else entry.reject(failure(error));
      }
      afterSettling();
    },
    flush,
    fail(error, rescue) {
      outbox = [];
      for (const [id, entry] of [...pending]) {
        pending.delete(id);
        if (rescue === undefined) {
          entry.reject(error);
          continue;
        }
        try {
          entry.resolve(rescue(entry.job));
        } catch (caught) {
          entry.reject(caught as Error);
        }
      }
      afterSettling();
    },
    get inFlight() {
      return pending.size;
    },
    drained() {
      return pending.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve));
    },
  };
}
