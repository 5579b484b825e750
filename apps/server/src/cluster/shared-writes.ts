import cluster, { type Worker } from 'node:cluster';
import type { SharedWriteThreadChannel, SharedWriteThreadHost, SharedWriteThreadReply } from '@gatehouse/storage-sqlite';
import type { Logger } from '../logger.js';

/**
 * The code exchanges' writes of `gatehouse serve --workers N` on SQLite cross the cluster's IPC
 * channel to the one write thread the primary runs for every worker
 * (docs/decisions/0173-one-write-thread-for-all-workers.md).
 */
interface WritesMessage {
  gatehouse: 'writes';
  message: string;
}

interface WriteRepliesMessage {
  gatehouse: 'write-replies';
  reply: SharedWriteThreadReply;
}

function isWritesMessage(message: unknown): message is WritesMessage {
  return typeof message === 'object' && message !== null && (message as { gatehouse?: unknown }).gatehouse === 'writes' && typeof (message as { message?: unknown }).message === 'string';
}

function isWriteRepliesMessage(message: unknown): message is WriteRepliesMessage {
  return typeof message === 'object' && message !== null && (message as { gatehouse?: unknown }).gatehouse === 'write-replies';
}

/**
 * In a worker: the channel to the primary's shared write thread (one storage per worker uses it).
 * Once the primary is gone (the IPC channel closed), the storage hears that the thread failed and
 * writes on its own connection until the worker has stopped (decision 0171: it stops as on SIGTERM).
 */
export function writeChannelToPrimary(): SharedWriteThreadChannel {
  const gone = new Set<(reply: SharedWriteThreadReply) => void>();
  const primaryGone = (): void => {
    for (const listener of gone) listener({ failed: 'the primary process is gone' });
  };
  return {
    send(message) {
      const writes: WritesMessage = { gatehouse: 'writes', message };
      if (!process.connected || process.send === undefined) {
        primaryGone();
        return;
      }
      // With a callback, a channel closed meanwhile is an answer here, not an 'error' event.
      process.send(writes, undefined, undefined, (error: Error | null) => {
        if (error) primaryGone();
      });
    },
    listen(listener) {
      const onMessage = (message: unknown): void => {
        if (isWriteRepliesMessage(message)) listener(message.reply);
      };
      process.on('message', onMessage);
      process.on('disconnect', primaryGone);
      gone.add(listener);
      return () => {
        process.off('message', onMessage);
        process.off('disconnect', primaryGone);
        gone.delete(listener);
      };
    },
  };
}

/**
 * In the primary: hands every worker's writes to `host` and its answers back to that worker; a
 * worker that exits is forgotten (a restarted one is another peer). Logs the first writes it
 * takes. Returns what detaches it.
 */
export function serveWritesOfWorkers(host: SharedWriteThreadHost, logger: Logger): () => void {
  let first = true;
  const onMessage = (worker: Worker, message: unknown): void => {
    if (!isWritesMessage(message)) return;
    if (first) {
      first = false;
      logger.info({ fromWorkerPid: worker.process.pid }, "writing the workers' code exchanges on one thread");
    }
    host.receive(worker.id, message.message, (reply) => {
      if (!worker.isConnected()) return;
      const replies: WriteRepliesMessage = { gatehouse: 'write-replies', reply };
      // A worker gone meanwhile is forgotten at its exit; the callback keeps its closed channel from
      // becoming an 'error' event of the primary.
      worker.send(replies, undefined, () => undefined);
    });
  };
  const onExit = (worker: Worker): void => host.forget(worker.id);
  cluster.on('message', onMessage);
  cluster.on('exit', onExit);
  return () => {
    cluster.off('message', onMessage);
    cluster.off('exit', onExit);
  };
}
