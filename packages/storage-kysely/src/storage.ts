import { randomBytes } from 'node:crypto';
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
   * Writes and commits one row of its own (readiness), `bytes` long (default: a few): resolves
   * when the database takes writes, rejects otherwise (a `StorageUnavailableError` when it cannot
   * now: a full disk, a read-only file or server, a lost connection, a lock held past the timeout).
   * A full disk may still take a write of a few bytes into room a failed write left: ask for more
   * `bytes` to know that ordinary writes fit again.
   */
  checkWrites(options?: { bytes?: number }): Promise<void>;
  /** Finishes and closes the connection(s); the storage is unusable afterwards. */
  close(): Promise<void>;
  /** Sessions not ended nor expired, and grants not revoked, at `now` (two counts; the metrics' gauges). */
  countActive?(now: Date): Promise<ActiveCounts>;
  /** The connection's state now, from memory (no query): the metrics' gauges. */
  connectionStats?(): ConnectionStats;
}

export interface ActiveCounts {
  sessions: number;
  grants: number;
}

/** What waits on the database now: a PostgreSQL pool, or SQLite's one connection and writer. */
export type ConnectionStats =
  | { kind: 'postgres'; total: number; idle: number; waiting: number; max: number }
  /** Statements waiting for the connection or the write gate, and writes in the write thread. */
  | { kind: 'sqlite'; waiting: number; inThread: number };

/**
 * `Storage.countActive` for any kysely database: live sessions (through the expiry index) and
 * grants not revoked.
 *
 * @example
 * const { sessions, grants } = await countActive(db, new Date());
 */
export async function countActive(db: Kysely<Database>, now: Date): Promise<ActiveCounts> {
  const at = now.getTime();
  const sessions = await db.selectFrom('sessions').select((eb) => eb.fn.countAll<number | string | bigint>().as('n')).where('expires_at', '>', at).where('ended_at', 'is', null).executeTakeFirst();
  const grants = await db.selectFrom('grants').select((eb) => eb.fn.countAll<number | string | bigint>().as('n')).where('revoked_at', 'is', null).executeTakeFirst();
  return { sessions: Number(sessions?.n ?? 0), grants: Number(grants?.n ?? 0) };
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
 * `Storage.checkWrites` for any kysely database: upserts the readiness probe's one row, with
 * `bytes` of incompressible padding, so a write of that size is committed
 * (docs/decisions/0103-readiness-checks-writes.md).
 *
 * @example
 * await checkWrites(db); // throws when the database takes no writes
 * await checkWrites(db, { bytes: 256 * 1024 }); // …or no write of 256 KiB
 */
export async function checkWrites(db: Kysely<Database>, options: { bytes?: number } = {}): Promise<void> {
  const bytes = Math.max(0, Math.floor(options.bytes ?? 0));
  const row = { written_at: Date.now(), padding: bytes === 0 ? '' : randomBytes(Math.ceil((bytes * 3) / 4)).toString('base64').slice(0, bytes) };
  await db
    .insertInto('readiness_probe')
    .values({ probe_key: 'readiness', ...row })
    .onConflict((conflict) => conflict.column('probe_key').doUpdateSet(row))
    .execute();
}
