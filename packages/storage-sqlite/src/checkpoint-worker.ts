import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';

/** What `startBackgroundCheckpoints` hands the thread. */
export interface CheckpointWorkerData {
  filename: string;
  busyTimeoutMs: number;
  synchronous: string;
  intervalMs: number;
}

// The background checkpoints' thread (docs/decisions/0068-checkpoints-off-the-event-loop.md): its
// own connection copies the WAL into the database file every `intervalMs`, until 'stop'.
const options = workerData as CheckpointWorkerData;
const db = new Database(options.filename, { timeout: options.busyTimeoutMs });
db.pragma(`synchronous = ${options.synchronous}`);
const checkpoint = (): void => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // Busy or failing: the next round tries again, and the serving connection still checkpoints
    // by itself past its wal_autocheckpoint.
  }
};
const timer = setInterval(checkpoint, options.intervalMs);
parentPort?.on('message', (message: unknown) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  db.close();
  parentPort?.close();
});
