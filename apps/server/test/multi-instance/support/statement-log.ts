import { cachedClientRepository, DEFAULT_CLIENT_CACHE } from '@gatehouse/core';
import { createTestGatehouse, type TestGatehouse } from '@gatehouse/core/testing';
import { createGatehouseRouter } from '@gatehouse/http-express';
import { openPostgresStorage, type PostgresStorage } from '@gatehouse/storage-postgres';
import express from 'express';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { dropSchema, freshSchemaName, POSTGRES_URL } from './postgres.js';

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

/** A gatehouse on PostgreSQL whose every statement is counted, behind Gatehouse's router. */
export interface CountedGatehouse {
  /** The statements sent since the last `reset()`. */
  readonly statements: Statement[];
  readonly pool: pg.Pool;
  readonly schema: string;
  readonly t: TestGatehouse;
  readonly app: express.Express;
  /** Forgets the statements counted so far. */
  reset(): void;
}

/**
 * In the enclosing describe: a fresh schema, a pool of counting clients, the storage migrated, a
 * test gatehouse on it (clients read from memory, as the server composes them: docs/decisions/0069)
 * and its router; all dropped afterwards.
 *
 * @example
 * const server = useCountedGatehouse();
 * it('…', async () => { server.reset(); await request(server.app).post('/oauth/token')…; expect(roundTrips(server.statements)).toBe(2); });
 */
export function useCountedGatehouse(settings: NonNullable<Parameters<typeof createTestGatehouse>[0]>['settings'] = {}): CountedGatehouse {
  const schema = freshSchemaName();
  const statements: Statement[] = [];
  let ticks = 0;
  let pool: pg.Pool | undefined;
  let storage: PostgresStorage | undefined;
  let t: TestGatehouse | undefined;
  let app: express.Express | undefined;
  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 4, Client: countingClient(statements, () => (ticks += 1)) });
    storage = await openPostgresStorage({ pool, schema, userTables: true });
    await storage.migrate();
    const clients = cachedClientRepository(storage.repositories.clients, { now: () => new Date() }, DEFAULT_CLIENT_CACHE);
    t = await createTestGatehouse({ repositories: { ...storage.repositories, clients }, settings });
    app = express();
    app.use(createGatehouseRouter({ gatehouse: t.gatehouse, storage, csrfKey: 'k'.repeat(32) }));
  }, 60_000);
  afterAll(async () => {
    await storage?.close();
    await pool?.end();
    await dropSchema(schema);
  }, 60_000);
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the counted gatehouse starts in beforeAll');
    return value;
  };
  return {
    statements,
    schema,
    get pool() {
      return started(pool);
    },
    get t() {
      return started(t);
    },
    get app() {
      return started(app);
    },
    reset: () => {
      statements.length = 0;
    },
  };
}
