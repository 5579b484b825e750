import pg from 'pg';

// Counting the statements a request sends to PostgreSQL, and how many of them waited for others
// (the round trips): what the round-trip tests of the token endpoint measure.

/** One statement sent to PostgreSQL: its text, and its order among the starts and ends of all of them. */
export interface Statement {
  text: string;
  startedAt: number;
  endedAt: number;
}

/**
 * A pg client that notes when each statement is sent and when its answer is back (a tick of one
 * counter, not a clock): the pool below makes every connection of the storage one of these.
 */
export function countingClient(log: Statement[], tick: () => number): typeof pg.Client {
  return class CountingClient extends pg.Client {
    // pg's query has many overloads; kysely's driver calls the promise form `query(text, values)`.
    override query(...args: unknown[]): never {
      const statement: Statement = { text: typeof args[0] === 'string' ? args[0] : String((args[0] as { text?: string }).text), startedAt: tick(), endedAt: Infinity };
      log.push(statement);
      const result = (super.query as (...a: unknown[]) => unknown)(...args);
      if (result instanceof Promise) void result.finally(() => (statement.endedAt = tick())).catch(() => undefined);
      return result as never;
    }
  } as unknown as typeof pg.Client;
}

/**
 * Sequential round trips: a statement sent while another was in flight travels beside it; one
 * sent after every earlier one came back waits for them. Each statement's depth is one more than
 * the deepest statement that ended before it started; the deepest is the number of round trips.
 */
export function roundTrips(statements: readonly Statement[]): number {
  const depth: number[] = [];
  statements.forEach((statement, index) => {
    const before = statements.slice(0, index).map((earlier, at) => (earlier.endedAt < statement.startedAt ? (depth[at] as number) : 0));
    depth.push(1 + Math.max(0, ...before));
  });
  return Math.max(0, ...depth);
}
