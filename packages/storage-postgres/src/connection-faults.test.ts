import { randomBytes } from 'node:crypto';
import { StorageUnavailableError, type Repositories } from '@gatehouse/core';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openPostgres } from './postgres-storage.js';
import { asStorageFailure } from './storage-failures.js';
import { dropSchema, freshSchemaName, POSTGRES_URL, warnIfSkipped, seedUserAndClient } from './test-support/postgres.js';

// Issue 35: PostgreSQL dropping Gatehouse's connections under load (pg_terminate_backend every
// 100 ms) ended the process ("Unhandled 'error' event … 57P01"): pg-pool listens for a
// connection's errors only while it is idle. Now every connection listens from its first moment,
// a broken one is discarded, the pool refills, and a statement or transaction cut in the middle
// fails as a StorageUnavailableError with nothing half-written (docs/decisions/0102).

warnIfSkipped('connections terminated under load');

const at = new Date(1_700_000_000_000);
const CODES = 600;
const ROUNDS = 25;

describe('asStorageFailure (PostgreSQL)', () => {
  it("reads connection, shutdown, resource and read-only answers as an outage, and leaves the others as they are", () => {
    const cases: Array<[object, string]> = [
      [{ code: '57P01', message: 'terminating connection due to administrator command' }, 'unreachable'],
      [{ code: '57P03', message: 'the database system is starting up' }, 'unreachable'],
      [{ code: '08006', message: 'connection failure' }, 'unreachable'],
      [{ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:5432' }, 'unreachable'],
      [new Error('Connection terminated unexpectedly'), 'unreachable'],
      [new Error('Client has encountered a connection error and is not queryable'), 'unreachable'],
      [new Error('timeout exceeded when trying to connect'), 'busy'],
      [{ code: '53300', message: 'sorry, too many clients already' }, 'busy'],
      [{ code: '53100', message: 'could not extend file: No space left on device' }, 'full'],
      [{ code: '25006', message: 'cannot execute INSERT in a read-only transaction' }, 'read_only'],
      [new AggregateError([Object.assign(new Error('a'), { code: 'ECONNREFUSED' }), Object.assign(new Error('b'), { code: 'ECONNREFUSED' })]), 'unreachable'],
    ];
    for (const [error, reason] of cases) {
      const failure = asStorageFailure(error);
      expect(failure, JSON.stringify(error)).toBeInstanceOf(StorageUnavailableError);
      expect(failure).toMatchObject({ reason, cause: error });
    }
    const unique = Object.assign(new Error('duplicate key'), { code: '23505' });
    expect(asStorageFailure(unique)).toBe(unique);
    const syntax = Object.assign(new Error('syntax error'), { code: '42601' });
    expect(asStorageFailure(syntax)).toBe(syntax);
  });
});

async function seed(repos: Repositories): Promise<void> {
  await seedUserAndClient(repos, at);
  await repos.accounts.create({ accountKey: 'a1', name: 'Acme' });
  // One code more than the workers take: the exchange cut on purpose uses it.
  for (let index = 0; index <= CODES; index += 1) {
    await repos.codes.save({
      codeHash: `code${index}`,
      clientId: 'c1',
      userKey: 'u1',
      redirectUri: 'https://app.example/cb',
      scopes: ['messaging.v1.send'],
      codeChallenge: null,
      sessionId: null,
      createdAt: at,
      expiresAt: new Date(at.getTime() + 60_000),
      consumedAt: null,
      grantId: null,
    });
  }
}

const exchange = (repos: Repositories, index: number) =>
  repos.grants.createFromCode({
    grant: { grantId: `g${index}`, clientId: 'c1', userKey: 'u1', scopes: ['messaging.v1.send'], sessionId: null, createdAt: at, revokedAt: null },
    codeHash: `code${index}`,
    refreshToken: { tokenHash: `r${index}`, grantId: `g${index}`, createdAt: at, lastUsedAt: at, rotatedAt: null, supersededAt: null },
  });

/**
 * Terminates the connection of an exchange while its statement is certainly in flight: the
 * exchange waits on a lock the administrator holds on the codes table, and is cut there.
 */
async function exchangeCutInFlight(repos: Repositories, schema: string, applicationName: string, index: number): Promise<unknown> {
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  try {
    await admin.query('begin');
    // Never left waiting behind another session's lock, nor holding this one past the deadline.
    await admin.query("set local lock_timeout = '20s'");
    await admin.query(`lock table "${schema}".authorization_codes in access exclusive mode`);
    const attempt = exchange(repos, index).then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
    let settled = false;
    void attempt.then(() => (settled = true));
    let waiting: number | undefined;
    const deadline = Date.now() + 20_000;
    while (waiting === undefined && !settled) {
      if (Date.now() > deadline) throw new Error('the exchange never waited on the lock');
      const { rows } = await admin.query<{ pid: number }>(
        "select pid from pg_stat_activity where application_name = $1 and wait_event_type = 'Lock'",
        [applicationName],
      );
      waiting = rows[0]?.pid;
      if (waiting === undefined) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    if (waiting !== undefined) await admin.query('select pg_terminate_backend($1)', [waiting]);
    await admin.query('rollback');
    return await attempt;
  } finally {
    // Ending the connection ends its transaction and its lock, whatever happened above.
    await admin.end();
  }
}

describe.skipIf(!POSTGRES_URL)('PostgreSQL connections terminated under load', () => {
  const schema = freshSchemaName();
  afterAll(async () => {
    await dropSchema(schema);
  });

  it(`keeps the process alive through ${ROUNDS} rounds of pg_terminate_backend: outages as StorageUnavailableError, nothing half-written, the pool refilled`, async () => {
    // Only this test's connections are terminated: they carry an application_name of their own.
    const applicationName = `gh_faults_${randomBytes(6).toString('hex')}`;
    const url = new URL(POSTGRES_URL as string);
    url.searchParams.set('application_name', applicationName);
    const { storage, db, pool } = await openPostgres({ connectionString: url.toString(), schema, poolSize: 4 });
    const repos = storage.repositories;
    // What would have ended a server: an 'error' event nobody listened to.
    const uncaught: unknown[] = [];
    const recordUncaught = (error: unknown) => void uncaught.push(error);
    process.on('uncaughtException', recordUncaught);
    try {
      await storage.migrate();
      await seed(repos);

      let terminated = 0;
      let done = false;
      const terminator = (async () => {
        const admin = new pg.Client({ connectionString: POSTGRES_URL });
        await admin.connect();
        try {
          for (let round = 0; round < ROUNDS; round += 1) {
            await new Promise((resolve) => setTimeout(resolve, 100));
            const { rows } = await admin.query<{ ok: boolean }>('select pg_terminate_backend(pid) as ok from pg_stat_activity where application_name = $1', [applicationName]);
            terminated += rows.filter((row) => row.ok).length;
          }
        } finally {
          done = true;
          await admin.end();
        }
      })();

      const exchanged = new Map<number, 'won' | 'unavailable'>();
      const valueWrites = new Map<number, 'written' | 'unavailable'>();
      const unexpected: unknown[] = [];
      let next = 0;
      const outcome = async <T>(work: Promise<T>): Promise<T | 'unavailable'> => {
        try {
          return await work;
        } catch (error) {
          if (error instanceof StorageUnavailableError) return 'unavailable';
          unexpected.push(error);
          return 'unavailable';
        }
      };
      const workers = Array.from({ length: 8 }, async (_, worker) => {
        for (let step = 0; !done && next < CODES; step += 1) {
          const index = next++;
          // An exchange (one statement)…
          const won = await outcome(exchange(repos, index));
          if (won === false) unexpected.push(new Error(`code${index} lost without a rival`));
          exchanged.set(index, won === 'unavailable' ? 'unavailable' : 'won');
          // …transactions of several statements (create a name, then set a user's value of it)…
          if (step % 2 === worker % 2) {
            const key = `k${index}`;
            const created = await outcome(repos.attributes.create('a1', { key, name: `n${index}` }, 10_000));
            if (created !== 'unavailable') {
              const set = await outcome(repos.attributes.setUserValues('a1', 'u1', [{ key, value: 'x' }]));
              valueWrites.set(index, set === 'unavailable' ? 'unavailable' : 'written');
            }
          }
          // …and a refresh's read and write.
          if (won === true) {
            await outcome(repos.refreshTokens.findWithGrant(`r${index}`));
            await outcome(repos.refreshTokens.touch(`r${index}`, at));
          }
        }
      });
      await Promise.all([terminator, ...workers]);

      expect(uncaught).toEqual([]);
      expect(unexpected).toEqual([]);
      expect(terminated, 'connections terminated').toBeGreaterThan(ROUNDS / 2);
      expect([...exchanged.values()], 'exchanges that went through').toContain('won');

      // The pool refilled by itself: no broken connection is handed out, none is left over. (An idle
      // connection killed by the last round is dropped once its goodbye has been read: a moment.)
      await new Promise((resolve) => setTimeout(resolve, 500));
      await expect.poll(() => storage.ping(), { timeout: 10_000 }).toBe(true);
      await sql`select 1`.execute(db);
      expect(pool.totalCount).toBeLessThanOrEqual(4);

      // How many exchanges the random terminations cut depends on the machine's timing; one cut for
      // certain (its statement waiting on a lock when its connection is terminated) does not.
      const cut = await exchangeCutInFlight(repos, schema, applicationName, CODES);
      expect(cut, 'an exchange cut in flight').toMatchObject({ error: expect.any(StorageUnavailableError) });
      exchanged.set(CODES, 'unavailable');
      const failed = [...exchanged].filter(([, result]) => result === 'unavailable').map(([index]) => index);

      // Every exchange that answered "won" has its grant, its refresh token and its consumed code.
      const won = [...exchanged].filter(([, result]) => result === 'won').map(([index]) => index);
      const grants = await sql<{ grant_id: string }>`select grant_id from grants`.execute(db);
      const tokens = await sql<{ token_hash: string; grant_id: string }>`select token_hash, grant_id from refresh_tokens`.execute(db);
      const codes = await sql<{ code_hash: string; grant_id: string | null; consumed_at: number | null }>`select code_hash, grant_id, consumed_at from authorization_codes`.execute(db);
      const grantIds = new Set(grants.rows.map((row) => row.grant_id));
      const tokenGrants = new Map(tokens.rows.map((row) => [row.token_hash, row.grant_id]));
      const codeRows = new Map(codes.rows.map((row) => [row.code_hash, row]));
      for (const index of won) {
        expect(grantIds.has(`g${index}`), `grant of code${index}`).toBe(true);
        expect(tokenGrants.get(`r${index}`), `refresh token of code${index}`).toBe(`g${index}`);
        expect(codeRows.get(`code${index}`)?.grant_id).toBe(`g${index}`);
      }
      // No code consumed without its grant.
      for (const row of codes.rows) if (row.consumed_at !== null) expect(grantIds.has(row.grant_id as string), row.code_hash).toBe(true);
      // Every exchange cut by a termination wrote nothing, and its code is exchangeable again.
      for (const index of failed) {
        expect(codeRows.get(`code${index}`)?.consumed_at, `code${index}`).toBeNull();
        expect(grantIds.has(`g${index}`)).toBe(false);
        expect(await exchange(repos, index)).toBe(true);
      }
      // Every value write that answered is there.
      const values = await sql<{ attribute_key: string }>`select attribute_key from user_attribute_values`.execute(db);
      const withValue = new Set(values.rows.map((row) => row.attribute_key));
      for (const [index, result] of valueWrites) if (result === 'written') expect(withValue.has(`k${index}`), `k${index}`).toBe(true);
    } finally {
      process.off('uncaughtException', recordUncaught);
      await storage.close();
    }
  }, 120_000);
});
