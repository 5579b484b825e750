import { StorageUnavailableError, type StorageFailureReason } from '@gatehouse/core';

/**
 * PostgreSQL's SQLSTATEs that mean the database cannot be used now, whatever the statement
 * (docs/decisions/0100-storage-outages-answered-503.md): by class (two characters) or exact code.
 */
const BY_SQLSTATE: ReadonlyArray<[prefix: string, reason: StorageFailureReason, words: string]> = [
  // Class 08: connection exception.
  ['08', 'unreachable', 'The connection to PostgreSQL failed.'],
  // admin_shutdown, crash_shutdown (pg_terminate_backend, a server restart), cannot_connect_now (starting up, shutting down).
  ['57P01', 'unreachable', 'PostgreSQL ended the connection (administrator command or shutdown).'],
  ['57P02', 'unreachable', 'PostgreSQL ended the connection (crash of another server process).'],
  ['57P03', 'unreachable', 'PostgreSQL does not accept connections now (starting up or shutting down).'],
  // Class 53: insufficient resources.
  ['53100', 'full', 'The disk of PostgreSQL is full.'],
  ['53', 'busy', 'PostgreSQL is out of resources (memory, connections).'],
  // read_only_sql_transaction: a standby answers, after a failover for instance.
  ['25006', 'read_only', 'PostgreSQL accepts no writes (a read-only server or transaction).'],
  // Class 58: system error (I/O).
  ['58', 'io', 'PostgreSQL failed to read or write its files.'],
];

/** Node's socket errors on the way to the server. */
const SOCKET_ERRORS: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED']);

/** What `pg` and `pg-pool` say, without a code, when a connection dies or none can be had in time. */
const DRIVER_MESSAGES: ReadonlyArray<[pattern: RegExp, reason: StorageFailureReason, words: string]> = [
  [/^Connection terminated/, 'unreachable', 'The connection to PostgreSQL was lost.'],
  [/connection error and is not queryable/, 'unreachable', 'The connection to PostgreSQL was lost.'],
  [/^timeout exceeded when trying to connect/, 'busy', 'No PostgreSQL connection could be had within the connection timeout.'],
];

/** True when `error` says the connection it came from is broken (it must not go back to the pool). */
export function breaksConnection(error: unknown): boolean {
  const failure = asStorageFailure(error);
  return failure instanceof StorageUnavailableError && failure.reason === 'unreachable';
}

/**
 * The one place PostgreSQL's and its driver's errors are read for an outage: `error` as a
 * `StorageUnavailableError` (the driver's error as its `cause`) when it says the database cannot
 * be used now, else `error` unchanged (a constraint, a bug: the caller's business).
 *
 * @example
 * const result = await client.query(text, values).catch((error: unknown) => { throw asStorageFailure(error); });
 */
export function asStorageFailure(error: unknown): unknown {
  if (error instanceof StorageUnavailableError) return error;
  if (typeof error !== 'object' || error === null) return error;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    if (SOCKET_ERRORS.has(code)) return new StorageUnavailableError('unreachable', 'PostgreSQL cannot be reached.', { cause: error });
    const known = BY_SQLSTATE.find(([prefix]) => code.startsWith(prefix));
    if (known !== undefined) return new StorageUnavailableError(known[1], known[2], { cause: error });
  }
  if (typeof message === 'string') {
    const known = DRIVER_MESSAGES.find(([pattern]) => pattern.test(message));
    if (known !== undefined) return new StorageUnavailableError(known[1], known[2], { cause: error });
  }
  // An AggregateError of every address tried (localhost: ::1 and 127.0.0.1), each refused.
  const inner = (error as { errors?: unknown }).errors;
  if (Array.isArray(inner) && inner.length > 0 && inner.every((each) => asStorageFailure(each) instanceof StorageUnavailableError)) {
    return new StorageUnavailableError('unreachable', 'PostgreSQL cannot be reached.', { cause: error });
  }
  return error;
}
