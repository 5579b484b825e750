import { batchPerTurn, param, reusableQuery } from '@gatehouse/storage-kysely';
import type { FailedAttemptKey, StorageFailureStore } from '@gatehouse/storage-kysely';
import { sql, type Kysely, type RawBuilder } from 'kysely';

/** The table of failure counts shared by every instance (docs/decisions/0023, amended). */
export const FAILED_ATTEMPTS_TABLE = 'gatehouse_failed_attempts';

interface FailedAttemptsTable {
  /** The limiter's key, such as `sign-in:email:ada@example.com`. */
  key: string;
  /** Epoch-millisecond failure times, oldest first; never more than the key's ceiling. */
  failures: number[];
  /** When the newest failure leaves the window: the row can be purged after it. */
  expires_at: number;
}

type Tables = { [FAILED_ATTEMPTS_TABLE]: FailedAttemptsTable };

/**
 * Failure counts in PostgreSQL, so every instance on one database counts together: the
 * `FailureStore` of @gatehouse/http-express (described here by shape, as adapters do not depend
 * on each other). One row per key; each failure is one atomic upsert that appends its time and
 * keeps the newest `max` inside the window, so concurrent failures on several instances all count;
 * a sign-in attempt is admitted by one conditional upsert (`admitFailure`, docs/decisions/0181).
 */
export type PostgresFailureStore = StorageFailureStore;

/**
 * Creates the table when missing (idempotent; concurrent starts are serialized by an advisory
 * lock, since `create table if not exists` alone can race). Run by the storage's `migrate()`.
 */
export async function ensureFailedAttemptsTable(db: Kysely<unknown>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtext(${`${FAILED_ATTEMPTS_TABLE}:create`}))`.execute(trx);
    await trx.schema
      .createTable(FAILED_ATTEMPTS_TABLE)
      .ifNotExists()
      .addColumn('key', 'text', (column) => column.primaryKey())
      .addColumn('failures', sql`bigint[]`, (column) => column.notNull())
      .addColumn('expires_at', 'bigint', (column) => column.notNull())
      .execute();
    await trx.schema.createIndex(`${FAILED_ATTEMPTS_TABLE}_expires_at`).ifNotExists().on(FAILED_ATTEMPTS_TABLE).column('expires_at').execute();
  });
}

/**
 * The failure times of the given keys: asked before every sign-in and every client
 * authentication, so compiled once (`reusableQuery`), one array parameter for the keys of every request of a turn (docs/decisions/0175).
 */
const failuresOfKeys = reusableQuery((db: Kysely<Tables>) =>
  db.selectFrom(FAILED_ATTEMPTS_TABLE).select(['key', 'failures']).where(sql<boolean>`${sql.ref('key')} = any(${param<string[]>('keys')}::text[])`),
);

/**
 * @example
 * const store = createPostgresFailureStore(db);
 * await store.recordFailure([{ key: 'sign-in:email:ada@example.com', max: 5 }], Date.now(), 300_000);
 */
export function createPostgresFailureStore(database: Kysely<unknown>): PostgresFailureStore {
  const db = database.withTables<Tables>();
  /** Appends `at` to the key's failures, keeping the newest `max` inside the window; when `onlyIf` is given, only where it holds. */
  const appendFailure = ({ key, max }: FailedAttemptKey, at: number, windowMs: number, onlyIf?: RawBuilder<boolean>) => {
    const since = at - windowMs;
    return db
      .insertInto(FAILED_ATTEMPTS_TABLE)
      .values({ key, failures: sql<number[]>`array[${at}::bigint]`, expires_at: at + windowMs })
      .onConflict((conflict) => {
        const update = conflict.column('key').doUpdateSet({
          failures: sql<number[]>`array(
            select kept.at from (
              select failed.at from unnest(${sql.ref(`${FAILED_ATTEMPTS_TABLE}.failures`)} || ${at}::bigint) as failed(at)
              where failed.at > ${since}::bigint order by failed.at desc limit ${max}
            ) as kept order by kept.at)`,
          expires_at: sql<number>`greatest(${sql.ref(`${FAILED_ATTEMPTS_TABLE}.expires_at`)}, excluded.expires_at)`,
        });
        return onlyIf === undefined ? update : update.where(onlyIf);
      });
  };
  // The keys of every request that asks in one turn, in one statement (docs/decisions/0175).
  const failuresByKey = batchPerTurn(async (askers: ReadonlyArray<readonly string[]>) => {
    const { rows } = await failuresOfKeys(db, { keys: [...new Set(askers.flat())] });
    const byKey = new Map(rows.map((row) => [row.key, row.failures.map(Number)]));
    return askers.map(() => byKey);
  });
  return {
    async recentFailures(keys, since) {
      if (keys.length === 0) return [];
      const byKey = await failuresByKey(keys.map(({ key }) => key));
      return keys.map(({ key }) => (byKey.get(key) ?? []).filter((time) => time > since));
    },

    async recordFailure(keys, at, windowMs) {
      // One statement per key, so a concurrent failure on another instance is never lost.
      await Promise.all(keys.map((key) => appendFailure(key, at, windowMs).execute()));
    },

    async admitFailure(key, at, windowMs) {
      const since = at - windowMs;
      // ON CONFLICT DO UPDATE locks the key's row and judges its WHERE on the newest version: the
      // count and the append are one step for every instance (docs/decisions/0181).
      const admitted = await appendFailure(key, at, windowMs, sql<boolean>`(select count(*) from unnest(${sql.ref(`${FAILED_ATTEMPTS_TABLE}.failures`)}) as failed(at) where failed.at > ${since}::bigint) < ${key.max}`)
        .returning('key')
        .executeTakeFirst();
      if (admitted !== undefined) return undefined;
      const { rows } = await failuresOfKeys(db, { keys: [key.key] });
      return (rows[0]?.failures ?? []).map(Number).filter((time) => time > since);
    },

    async withdrawFailure(keys, at) {
      if (keys.length === 0) return;
      const failures = sql.ref(`${FAILED_ATTEMPTS_TABLE}.failures`);
      const position = sql`array_position(${failures}, ${at}::bigint)`;
      // The first element equal to `at` is left out (another attempt of the same millisecond keeps its own).
      await db
        .updateTable(FAILED_ATTEMPTS_TABLE)
        .set({ failures: sql<number[]>`${failures}[:${position} - 1] || ${failures}[${position} + 1:]` })
        .where(sql<boolean>`${sql.ref('key')} = any(${keys.map(({ key }) => key)}::text[])`)
        .where(sql<boolean>`${position} is not null`)
        .execute();
    },

    async purgeExpired(now) {
      const result = await db.deleteFrom(FAILED_ATTEMPTS_TABLE).where('expires_at', '<=', now).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
