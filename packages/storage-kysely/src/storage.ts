import type { Repositories } from '@gatehouse/core';
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

/** A database with the core's repositories: what the server composes. */
export interface Storage {
  repositories: Repositories;
  /** Applies pending migrations; harmless to run again or from several processes. */
  migrate(): Promise<void>;
  /** True when the database answers (readiness). */
  ping(): Promise<boolean>;
  /**
   * Writes and commits one row of its own (readiness): resolves when the database takes writes,
   * rejects otherwise (a `StorageUnavailableError` when it cannot now: a full disk, a read-only
   * file or server, a lost connection, a lock held past the timeout).
   */
  checkWrites(): Promise<void>;
  /** Finishes and closes the connection(s); the storage is unusable afterwards. */
  close(): Promise<void>;
}

/** `Storage.ping` for any kysely database: true when `select 1` answers. */
export async function pingDatabase(db: Kysely<Database>): Promise<boolean> {
  try {
    await sql`select 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}

/**
 * `Storage.checkWrites` for any kysely database: upserts the readiness probe's one row, so a write
 * is committed (docs/decisions/0103-readiness-checks-writes.md).
 *
 * @example
 * await checkWrites(db); // throws when the database takes no writes
 */
export async function checkWrites(db: Kysely<Database>): Promise<void> {
  const writtenAt = Date.now();
  await db
    .insertInto('readiness_probe')
    .values({ probe_key: 'readiness', written_at: writtenAt })
    .onConflict((conflict) => conflict.column('probe_key').doUpdateSet({ written_at: writtenAt }))
    .execute();
}
