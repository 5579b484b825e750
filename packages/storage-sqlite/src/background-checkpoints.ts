import { Worker } from 'node:worker_threads';
import { workerModule } from '@gatehouse/core/threads';
import type { CheckpointWorkerData } from './checkpoint-worker.js';
import { stopWorker } from './worker-stop.js';

/**
 * WAL frames after which the serving connection checkpoints by itself (`wal_autocheckpoint`) while
 * the background checkpoints run: about 40 MiB of WAL at 4 KiB pages. It bounds the WAL when the
 * background thread falls behind or stops, and restarts the WAL from its beginning (SQLite only
 * restarts a WAL that a checkpoint has copied in full, which the background thread seldom sees
 * under a steady stream of commits).
 */
export const SERVING_CONNECTION_AUTOCHECKPOINT_PAGES = 10_000;

/**
 * The size the `-wal` file is cut back to when the WAL restarts (`journal_size_limit`): above the
 * ~40 MiB of a steady stream of commits, so that only what a burst left (a long reader holding the
 * WAL, a large purge) is given back to the volume instead of kept at its high-water mark.
 */
export const WAL_SIZE_LIMIT_BYTES = 48 * 1024 * 1024;

/** How often the background thread copies the WAL into the database file. */
export const BACKGROUND_CHECKPOINT_INTERVAL_MS = 100;

/** The background checkpoints of one database file; `stop` ends the thread and its connection. */
export interface BackgroundCheckpoints {
  stop(): Promise<void>;
}

/**
 * Copies the WAL into the database file from a worker thread with its own connection
 * (`PRAGMA wal_checkpoint(PASSIVE)` every `BACKGROUND_CHECKPOINT_INTERVAL_MS`), so that the fsyncs
 * of a checkpoint — the only ones under `synchronous=NORMAL` — are not waited for by the serving
 * thread inside a commit (docs/decisions/0068-checkpoints-off-the-event-loop.md). A PASSIVE
 * checkpoint takes no write lock: the serving connection keeps committing meanwhile. The thread
 * does not keep the process alive.
 */
export function startBackgroundCheckpoints(filename: string, options: { busyTimeoutMs: number; synchronous: string }): BackgroundCheckpoints {
  const { url, argv, execArgv } = workerModule(import.meta.url, 'checkpoint-worker');
  const workerData: CheckpointWorkerData = { filename, busyTimeoutMs: options.busyTimeoutMs, synchronous: options.synchronous, intervalMs: BACKGROUND_CHECKPOINT_INTERVAL_MS };
  const worker = new Worker(url, {
    argv,
    execArgv,
    workerData,
    // A thread that only checkpoints: a small heap.
    resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 2 },
  });
  worker.unref();
  // A failed thread leaves the checkpoints to the serving connection (wal_autocheckpoint).
  worker.on('error', () => undefined);
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  let stopped: Promise<void> | undefined;
  return {
    stop() {
      stopped ??= stopWorker(worker, exited, 2000);
      return stopped;
    },
  };
}
