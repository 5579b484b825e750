import { randomBytes } from 'node:crypto';
import type { Repositories } from '@gatehouse/core';
import { sql, type Kysely } from 'kysely';
import type { MigrationState } from './migrations.js';
import type { Database } from './schema.js';

/** One key failures are counted under, with its ceiling (the shape of http-express's `LimitKey`). */
export interface FailedAttemptKey {
  key: string;
  max: number;
}

/**
 * Failure counts of sign-ins and client authentications that every instance on the database
 * shares: http-express's `FailureStore` (described here by shape, as adapters do not depend on
 * each other), plus the purge of rows past their window.
 */
export interface StorageFailureStore {
  recentFailures(keys: readonly FailedAttemptKey[], since: number): Promise<number[][]>;
  recordFailure(keys: readonly FailedAttemptKey[], at: number, windowMs: number): Promise<void>;
  /**
   * Adds a failure at `at` to `key` only while it has fewer than `key.max` within `windowMs`, in one
   * atomic statement (docs/decisions/0181-sign-in-attempts-admitted-atomically.md): undefined when
   * added, else the key's failure times in the window, oldest first.
   */
  admitFailure(key: FailedAttemptKey, at: number, windowMs: number): Promise<number[] | undefined>;
  /** Removes one failure at `at` from each key (if it is there). */
  withdrawFailure(keys: readonly FailedAttemptKey[], at: number): Promise<void>;
  /** Deletes the counts whose failures have all left their window by `now` (epoch ms); returns how many. */
  purgeExpired(now: number): Promise<number>;
}

/** The production wiring every storage takes (docs/decisions/0145-embedders-production-wiring.md). */
export interface StorageWiringOptions {
  /**
   * Store private signing keys encrypted with AES-256-GCM under a key derived from this secret
   * (at least 32 characters; keep it out of the database). Keys stored in the clear before it was
   * set keep working; `gatehouse keys rotate` replaces them. Without it, an encrypted key fails to
   * load with an error naming the secret.
   */
  signingKeySecret?: string;
  /** How errors name the secret (default `signingKeySecret`; the reference server: `GATEHOUSE_KEY_SECRET`). */
  signingKeySecretName?: string;
  /**
   * Create the tables of Gatehouse-owned users and the product APIs (users, phone numbers,
   * accounts, memberships, attributes, messages): needed by Gatehouse's login page without a
   * `userDirectory`, the portal and `createResourceRouter`. Default: true in a database Gatehouse
   * opens itself; on the host's connection or pool, only when the database already has them
   * (docs/decisions/0146-only-the-tables-a-host-uses.md). Without them those repositories throw
   * `UserTablesOffError`; turning it on later creates them at the next `migrate()`.
   */
  userTables?: boolean;
  /**
   * Several server instances (processes) use this database, so per-process state is wrong:
   * Gatehouse's router then refuses to start without a `csrfKey` every instance shares, and
   * without failure counts they share. Default: false for SQLite, true for PostgreSQL. A SQLite
   * file the storage opens then keeps the failure counts itself (`failedAttempts`, the workers of
   * `gatehouse serve --workers N`; docs/decisions/0171-serve-workers.md).
   */
  sharedByInstances?: boolean;
}

/** A database with the core's repositories: what the server composes. */
export interface Storage {
  repositories: Repositories;
  /** Several instances use this database (the `sharedByInstances` option): the router asks for shared secrets. */
  readonly sharedByInstances?: boolean;
  /** Failure counts every instance shares, where the storage keeps them (PostgreSQL; a shared SQLite file); the router uses them by default. */
  readonly failedAttempts?: StorageFailureStore;
  /** Applies pending migrations; harmless to run again or from several processes. */
  migrate(): Promise<void>;
  /** Every migration of this version, applied (with when) or pending; reads only (`gatehouse migrate status`). */
  migrationStatus?(): Promise<MigrationState[]>;
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
