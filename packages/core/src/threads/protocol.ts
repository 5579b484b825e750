/**
 * What the main thread and a worker of Gatehouse say to each other (docs/decisions/0160-typed-worker-modules.md):
 * the main thread posts the jobs of one turn of its event loop in one message, each with a number;
 * the worker answers with `ThreadAnswer`s, one per job, possibly several per message.
 */

/** A failure as it crosses the thread boundary: an `Error` does not, its message and code do. */
export interface ThreadError {
  message: string;
  code?: string;
}

/** One job's answer: its number, the result (null on failure) and the failure (null on success). */
export type ThreadAnswer<Result> = [id: number, result: Result | null, error: ThreadError | null];

/** The crossing form of whatever a worker caught. */
export function threadErrorOf(error: unknown): ThreadError {
  const { message, code } = (error ?? {}) as { message?: unknown; code?: unknown };
  return { message: String(message), ...(typeof code === 'string' ? { code } : {}) };
}
