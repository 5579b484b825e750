import { StorageUnavailableError, type StorageFailureReason } from '@gatehouse/core';

/**
 * SQLite's result codes that mean the database cannot be used now, whatever the statement
 * (docs/decisions/0100-storage-outages-answered-503.md), by the prefix of better-sqlite3's `code`
 * (extended codes such as `SQLITE_IOERR_WRITE` or `SQLITE_READONLY_DBMOVED` start with their primary code).
 */
const UNAVAILABLE: ReadonlyArray<[prefix: string, reason: StorageFailureReason, words: string]> = [
  ['SQLITE_BUSY', 'busy', 'The SQLite database stayed locked by another connection past the busy timeout.'],
  ['SQLITE_LOCKED', 'busy', 'The SQLite database stayed locked by another connection past the busy timeout.'],
  ['SQLITE_FULL', 'full', 'The SQLite database or its disk is full.'],
  ['SQLITE_READONLY', 'read_only', 'The SQLite database cannot be written (read-only file, directory or file system).'],
  ['SQLITE_IOERR', 'io', 'The SQLite database failed to read or write its files.'],
  ['SQLITE_CANTOPEN', 'io', 'The SQLite database file cannot be opened.'],
];

/** True for SQLite's "locked by another connection" answers, which a statement outside a transaction may retry. */
export function isBusy(error: unknown): boolean {
  const code = codeOf(error);
  return code !== undefined && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

/**
 * The one place SQLite's errors are read for an outage: `error` as a `StorageUnavailableError`
 * (the driver's error as its `cause`) when its code says the database cannot be used now, else
 * `error` unchanged (a constraint, a bug: the caller's business).
 *
 * @example
 * try { statement.run(values); } catch (error) { throw asStorageFailure(error); }
 */
export function asStorageFailure(error: unknown): unknown {
  if (error instanceof StorageUnavailableError) return error;
  const code = codeOf(error);
  if (code === undefined) return error;
  const known = UNAVAILABLE.find(([prefix]) => code.startsWith(prefix));
  return known === undefined ? error : new StorageUnavailableError(known[1], known[2], { cause: error });
}

/** The failure of a write that waited its whole busy timeout for the write lock (never tried, or tried in vain). */
export function busyTimeoutExceeded(busyTimeoutMs: number, cause?: unknown): StorageUnavailableError {
  return new StorageUnavailableError('busy', `The SQLite database stayed locked by another connection for the whole busy timeout (${busyTimeoutMs} ms).`, cause === undefined ? {} : { cause });
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
