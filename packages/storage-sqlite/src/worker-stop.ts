import type { Worker } from 'node:worker_threads';

/**
 * Asks a storage thread to finish (`'stop'`: it closes its connection), waits for it to exit for
 * at most `timeoutMs`, then terminates it. The thread is kept referenced meanwhile: the process may
 * have nothing else to do.
 */
export async function stopWorker(worker: Worker, exited: Promise<void>, timeoutMs: number): Promise<void> {
  worker.ref();
  worker.postMessage('stop');
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
  await Promise.race([exited, timeout]);
  clearTimeout(timer);
  await worker.terminate();
}
