/**
 * The time waits are measured in: epoch milliseconds with a fraction, monotonic within a thread,
 * and comparable between this process's threads (`performance.timeOrigin` is each thread's start
 * on one clock), so a deadline set on the event loop holds on the write thread too.
 */
export function clockMs(): number {
  return performance.timeOrigin + performance.now();
}

/** How long a write may wait for another connection's write lock when no `busyTimeoutMs` is given (decision 0101). */
export const DEFAULT_BUSY_TIMEOUT_MS = 5000;

/**
 * How long a statement that met SQLite's write lock waits before it tries again: SQLite's own
 * busy handler's steps (sqliteDefaultBusyCallback), then 100 ms at a time.
 */
const RETRY_DELAYS_MS = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100];

/** The pause before retry number `attempt` (from 0), cut to what is left before `deadline`. */
export function retryDelayMs(attempt: number, deadline: number): number {
  return Math.max(0, Math.min(RETRY_DELAYS_MS[attempt] ?? 100, deadline - clockMs()));
}

/** Resolves after `ms`. */
export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
