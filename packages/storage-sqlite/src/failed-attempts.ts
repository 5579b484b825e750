import type { FailedAttemptKey, StorageFailureStore } from '@gatehouse/storage-kysely';
import { sql, type Kysely, type RawBuilder } from 'kysely';

/**
 * The table of failure counts shared by the processes on one SQLite file (the workers of
 * `gatehouse serve --workers N`): the same name and meaning as PostgreSQL's
 * (docs/decisions/0023-rate-limiting-failed-attempts.md, amended by docs/decisions/0171-serve-workers.md).
 */
export const FAILED_ATTEMPTS_TABLE = 'gatehouse_failed_attempts';

interface FailedAttemptsTable {
  /** The limiter's key, such as `sign-in:email:ada@example.com`. */
  key: string;
  /** Epoch-millisecond failure times as a JSON array, oldest first; never more than the key's ceiling. */
  failures: string;
  /** When the newest failure leaves the window: the row can be purged after it. */
  expires_at: number;
}

type Tables = { [FAILED_ATTEMPTS_TABLE]: FailedAttemptsTable };

/**
 * Failure counts in the SQLite file, so every process serving it counts together: the
 * `FailureStore` of @gatehouse/http-express (described here by shape, as adapters do not depend
 * on each other), with the housekeeping's `purgeExpired`.
 */
export type SqliteFailureStore = StorageFailureStore;

/** Creates the table when missing (idempotent: SQLite's write lock serializes concurrent starts). */
export async function ensureFailedAttemptsTable<DB>(db: Kysely<DB>): Promise<void> {
  await db.schema
    .createTable(FAILED_ATTEMPTS_TABLE)
    .ifNotExists()
    .addColumn('key', 'text', (column) => column.primaryKey())
    .addColumn('failures', 'text', (column) => column.notNull())
    .addColumn('expires_at', 'integer', (column) => column.notNull())
    .execute();
  await db.schema.createIndex(`${FAILED_ATTEMPTS_TABLE}_expires_at`).ifNotExists().on(FAILED_ATTEMPTS_TABLE).column('expires_at').execute();
}

/**
 * @example
 * const store = createSqliteFailureStore(db);
 * await store.recordFailure([{ key: 'sign-in:email:ada@example.com', max: 5 }], Date.now(), 300_000);
 */
export function createSqliteFailureStore<DB>(database: Kysely<DB>): SqliteFailureStore {
  // Only this table is used: the database's own tables are left out of the type.
  const db = (database as unknown as Kysely<object>).withTables<Tables>();
  /** Appends `at` to the key's failures, keeping the newest `max` inside the window; when `onlyIf` is given, only where it holds. */
  const appendFailure = ({ key, max }: FailedAttemptKey, at: number, windowMs: number, onlyIf?: RawBuilder<boolean>) => {
    const since = at - windowMs;
    return db
      .insertInto(FAILED_ATTEMPTS_TABLE)
      .values({ key, failures: JSON.stringify([at]), expires_at: at + windowMs })
      .onConflict((conflict) => {
        const update = conflict.column('key').doUpdateSet({
          failures: sql<string>`(
            select json_group_array(kept.at) from (
              select newest.at from (
                select failed.value as at from json_each(${sql.ref(`${FAILED_ATTEMPTS_TABLE}.failures`)}) as failed
                union all select ${at}
              ) as newest where newest.at > ${since} order by newest.at desc limit ${max}
            ) as kept)`,
          expires_at: sql<number>`max(${sql.ref(`${FAILED_ATTEMPTS_TABLE}.expires_at`)}, excluded.expires_at)`,
        });
        return onlyIf === undefined ? update : update.where(onlyIf);
      });
  };
  return {
    async recentFailures(keys, since) {
      if (keys.length === 0) return [];
      const rows = await db
        .selectFrom(FAILED_ATTEMPTS_TABLE)
        .select(['key', 'failures'])
        .where(
          'key',
          'in',
          keys.map(({ key }) => key),
        )
        .execute();
      const byKey = new Map(rows.map((row) => [row.key, parseTimes(row.failures)]));
      return keys.map(({ key }) => (byKey.get(key) ?? []).filter((time) => time > since));
    },

    async recordFailure(keys, at, windowMs) {
      for (const key of keys) {
        // One statement per key, so a concurrent failure in another process is never lost: SQLite
        // runs it under its one write lock, reading the stored times and writing the kept ones.
        await appendFailure(key, at, windowMs).execute();
      }
    },

    async admitFailure(key, at, windowMs) {
      const since = at - windowMs;
      // The count and the append in one statement, under SQLite's one write lock: no two attempts
      // of any process both see room for one more (docs/decisions/0181).
      const admitted = await appendFailure(key, at, windowMs, sql<boolean>`(select count(*) from json_each(${sql.ref(`${FAILED_ATTEMPTS_TABLE}.failures`)}) as failed where failed.value > ${since}) < ${key.max}`)
        .returning('key')
        .executeTakeFirst();
      if (admitted !== undefined) return undefined;
      const [times] = await this.recentFailures([key], since);
      return times ?? [];
    },

    async withdrawFailure(keys, at) {
      if (keys.length === 0) return;
      const failures = sql.ref(`${FAILED_ATTEMPTS_TABLE}.failures`);
      // The first element equal to `at` is left out (another attempt of the same millisecond keeps its own).
      await db
        .updateTable(FAILED_ATTEMPTS_TABLE)
        .set({
          failures: sql<string>`(
            select json_group_array(kept.value) from (
              select failed.value from json_each(${failures}) as failed
              where failed.key <> coalesce((select min(same.key) from json_each(${failures}) as same where same.value = ${at}), -1)
              order by failed.key
            ) as kept)`,
        })
        .where(
          'key',
          'in',
          keys.map(({ key }) => key),
        )
        .execute();
    },

    async purgeExpired(now) {
      const result = await db.deleteFrom(FAILED_ATTEMPTS_TABLE).where('expires_at', '<=', now).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

/** The stored times, oldest first (the kept rows are aggregated newest first). */
function parseTimes(stored: string): number[] {
  const times = JSON.parse(stored) as unknown;
  if (!Array.isArray(times)) return [];
  return times.filter((time): time is number => typeof time === 'number').sort((a, b) => a - b);
}
