import { param, type StorageDialect } from '@gatehouse/storage-kysely';
import {
  PostgresAdapter,
  PostgresDriver,
  PostgresIntrospector,
  PostgresQueryCompiler,
  sql,
  type DatabaseConnection,
  type Dialect,
  type PostgresCursor,
  type PostgresPool,
  type PostgresPoolClient,
  type TransactionSettings,
} from 'kysely';
import pg from 'pg';
import { asStorageFailure, breaksConnection } from './storage-failures.js';

/** The PostgreSQL side of the shared repositories (@gatehouse/storage-kysely). */
export const postgresDialect: StorageDialect = {
  name: 'postgres',
  // Byte-wise order whatever the database's locale, as JavaScript compares the ids.
  keyType: sql`text collate "C"`,
  isUniqueViolation(error) {
    return (error as { code?: unknown } | null)?.code === '23505'; // unique_violation
  },
  locksRows: true,
  async lock(trx, name) {
    // Held until the transaction ends; serializes the transactions of every instance that take
    // it, so a check that reads before it writes (an account's attribute limit) cannot race.
    await sql`select pg_advisory_xact_lock(hashtextextended(${`gatehouse.${name}`}, 0))`.execute(trx);
  },
  // Every statement is a round trip: the point reads of one turn go out together (docs/decisions/0175).
  anyOfArray: (name) => sql<string>`any(${param<string[]>(name)})`,
};

/**
 * kysely's PostgreSQL dialect whose transactions begin READ COMMITTED whatever the server's
 * default: single use rests on conditional UPDATEs (row locks) and attribute writes on an
 * advisory lock, so no statement needs a stronger level, and none can fail with a
 * serialization error that would need a retry (docs/decisions/0014-postgresql-concurrency.md).
 * With `leaveOpen`, destroying the kysely instance leaves `pool` open (it is the host's).
 */
export function createPostgresKyselyDialect(pool: pg.Pool, options: { leaveOpen?: boolean } = {}): Dialect {
  return {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new ReadCommittedPostgresDriver({ pool: withGatehouseTypes(pool, options) }),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  };
}

class ReadCommittedPostgresDriver extends PostgresDriver {
  override async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    await super.beginTransaction(connection, { ...settings, isolationLevel: settings.isolationLevel ?? 'read committed' });
  }
}

const INT8_OID = 20;

/** Epoch-millisecond columns and counts are int8: parsed to numbers (exact below 2^53). */
export const gatehouseTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => (oid === INT8_OID ? parseInt8 : pg.types.getTypeParser(oid, format))) as typeof pg.types.getTypeParser,
};

function parseInt8(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new Error(`An int8 value is beyond 2^53: ${text}`);
  return value;
}

/**
 * The pool as kysely's driver sees it, each of Gatehouse's queries parsing its results with
 * `gatehouseTypes` (pg's per-query `types`), so a host's pool keeps its own parsers for its own
 * queries. `end()` ends the pool only when the storage owns it.
 *
 * A connection lost under load must not end the process (docs/decisions/0102-postgresql-connections-that-break.md):
 * pg-pool listens for a connection's `error` only while it is idle, so one that PostgreSQL drops
 * while a request has it checked out (between two statements of a transaction, or just after an
 * answer) would emit `error` with nobody listening. Every connection gets a listener of its own
 * here (`watchConnection`, before anything can arrive on it); a broken one is given back with its
 * error, so the pool discards it and opens a new one when next asked. The driver's errors that mean
 * an outage become `StorageUnavailableError`s (storage-failures.ts).
 */
function withGatehouseTypes(pool: pg.Pool, options: { leaveOpen?: boolean }): PostgresPool {
  const wrapped = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  return {
    async connect() {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (error) {
        throw asStorageFailure(error);
      }
      let connection = wrapped.get(client);
      if (connection === undefined) {
        const watched = watchConnection(client);
        const query = (text: string, values: ReadonlyArray<unknown> | undefined): Promise<unknown> =>
          client.query({ text, values: values as unknown[], types: gatehouseTypes }).catch((error: unknown) => {
            if (breaksConnection(error)) watched.broken ??= error;
            throw asStorageFailure(error);
          });
        connection = {
          // kysely calls query(sql, parameters), or query(cursor) for a stream.
          query: ((text: string | PostgresCursor<unknown>, values?: ReadonlyArray<unknown>): unknown =>
            typeof text === 'string' ? query(text, values) : client.query(text as never)) as PostgresPoolClient['query'],
          // A broken connection goes back with its error: the pool ends it instead of handing it out again.
          release: () => client.release(watched.broken === undefined ? undefined : toError(watched.broken)),
        };
        // One wrapper per pooled client: kysely keeps its connection objects by client.
        wrapped.set(client, connection);
      }
      return connection;
    },
    end: () => (options.leaveOpen ? Promise.resolve() : pool.end()),
  };
}

/** What the storage knows of one pooled connection: the error that broke it, if any. */
interface WatchedConnection {
  broken?: unknown;
}

const watched = new WeakMap<pg.ClientBase, WatchedConnection>();

/**
 * Listens for `error` on `client` for the rest of its life (once per client): a connection that
 * breaks while checked out is marked broken instead of ending the process. The pool's own
 * listener, while it is idle, still removes it from the pool.
 */
export function watchConnection(client: pg.ClientBase): WatchedConnection {
  let state = watched.get(client);
  if (state === undefined) {
    const created: WatchedConnection = {};
    client.on('error', (error: unknown) => {
      created.broken ??= error;
    });
    watched.set(client, (state = created));
  }
  return state;
}

function toError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}
