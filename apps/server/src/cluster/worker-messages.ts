import cluster from 'node:cluster';

/** The variable that tells a worker of `gatehouse serve --workers N` its slot, 0 to N-1. */
export const WORKER_INDEX_VARIABLE = 'GATEHOUSE_WORKER_INDEX';

/** What a worker tells the primary once it accepts connections. */
export interface ListeningMessage {
  gatehouse: 'listening';
  port: number;
}

export function isListeningMessage(message: unknown): message is ListeningMessage {
  return typeof message === 'object' && message !== null && (message as { gatehouse?: unknown }).gatehouse === 'listening' && typeof (message as { port?: unknown }).port === 'number';
}

/** This process's slot when it is a worker of `gatehouse serve --workers N`; undefined otherwise. */
export function workerIndex(env: Record<string, string | undefined>): number | undefined {
  if (!cluster.isWorker) return undefined;
  const index = Number(env[WORKER_INDEX_VARIABLE]);
  return Number.isInteger(index) && index >= 0 ? index : undefined;
}

/** Tells the primary that this worker listens on `port`. */
export function reportListening(port: number): void {
  const message: ListeningMessage = { gatehouse: 'listening', port };
  process.send?.(message);
}
