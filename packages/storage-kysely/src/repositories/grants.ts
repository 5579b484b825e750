import type { GrantRepository } from '@gatehouse/core';
import type { Kysely } from 'kysely';
import { affected, toMs } from '../encoding.js';
import { directExecutorOf, param, reusableQuery, runBound, type BackgroundStatement, type BoundQuery, type DirectStep } from '../reusable-query.js';
import type { StorageDialect } from '../dialect.js';
import type { Database, GrantTable } from '../schema.js';
import { consumeCode, consumeUnusedCode } from './codes.js';
import { fromRow, NO_USER, toRow } from './grant-rows.js';
import { insertRefreshToken, refreshTokenValues } from './refresh-tokens.js';

/** Rolls the exchange's transaction back: the code was already consumed, or its session ended. */
const NOT_EXCHANGED = Symbol('code consumed or its session ended');

const insertGrant = reusableQuery((db: Kysely<Database>) =>
  db.insertInto('grants').values({
    grant_id: param('grant_id'),
    client_id: param('client_id'),
    user_key: param('user_key'),
    scopes: param('scopes'),
    resources: param('resources'),
    session_id: param<string | null>('session_id'),
    openid: param<string | null>('openid'),
    created_at: param<number>('created_at'),
    revoked_at: param<number | null>('revoked_at'),
  }),
);
/** The code's sign-in session, if it has not ended (product logout). */
const findLiveSession = reusableQuery((db: Kysely<Database>) =>
  db.selectFrom('sessions').select('session_id').where('session_id', '=', param('sessionId')).where('ended_at', 'is', null),
);
/** The same, keeping the row from being ended until the transaction ends (dialects with row locks). */
const lockLiveSession = reusableQuery((db: Kysely<Database>) =>
  db.selectFrom('sessions').select('session_id').where('session_id', '=', param('sessionId')).where('ended_at', 'is', null).forShare(),
);
/**
 * `createFromCode` as one statement, for dialects that write in CTEs (PostgreSQL): one round trip
 * instead of six (BEGIN, four statements, COMMIT), the same rules. The code's session is read
 * `FOR SHARE` (as `lockLiveSession`) and the code is consumed only while that session is live; the
 * grant and the refresh token are inserted from the consumed row, so a code that is already
 * consumed, or whose session ended, writes nothing and returns no row. The foreign keys of the
 * code and the token on the grant are checked at the end of the statement, when the grant is there.
 */
const exchangeInOneStatement = reusableQuery((db: Kysely<Database>) =>
  db
    .with('live_session', (db) =>
      db
        .selectFrom('authorization_codes as code')
        .innerJoin('sessions as session', 'session.session_id', 'code.session_id')
        .select('session.session_id')
        .where('code.code_hash', '=', param('codeHash'))
        .where('session.ended_at', 'is', null)
        .forShare('session'),
    )
    .with('consumed', (db) =>
      db
        .updateTable('authorization_codes')
        .set({ consumed_at: param<number>('created_at'), grant_id: param('grant_id') })
        .where('code_hash', '=', param('codeHash'))
        .where('consumed_at', 'is', null)
        .where((eb) => eb.or([eb('session_id', 'is', null), eb('session_id', 'in', eb.selectFrom('live_session').select('live_session.session_id'))]))
        .returning('code_hash'),
    )
    .with('new_grant', (db) =>
      db
        .insertInto('grants')
        .columns(['grant_id', 'client_id', 'user_key', 'scopes', 'resources', 'session_id', 'openid', 'created_at', 'revoked_at'])
        .expression((eb) =>
          eb
            .selectFrom('consumed')
            .select([
              eb.cast<string>(eb.val(param('grant_id')), 'text').as('grant_id'),
              eb.cast<string>(eb.val(param('client_id')), 'text').as('client_id'),
              eb.cast<string>(eb.val(param('user_key')), 'text').as('user_key'),
              eb.cast<string>(eb.val(param('scopes')), 'text').as('scopes'),
              eb.cast<string>(eb.val(param('resources')), 'text').as('resources'),
              eb.cast<string | null>(eb.val(param<string | null>('session_id')), 'text').as('session_id'),
              eb.cast<string | null>(eb.val(param<string | null>('openid')), 'text').as('openid'),
              eb.cast<number>(eb.val(param<number>('created_at')), 'bigint').as('created_at'),
              eb.cast<number | null>(eb.val(param<number | null>('revoked_at')), 'bigint').as('revoked_at'),
            ]),
        ),
    )
    .with('new_refresh_token', (db) =>
      db
        .insertInto('refresh_tokens')
        .columns(['token_hash', 'grant_id', 'created_at', 'last_used_at', 'rotated_at'])
        .expression((eb) =>
          eb
            .selectFrom('consumed')
            .select([
              eb.cast<string>(eb.val(param('tokenHash')), 'text').as('token_hash'),
              eb.cast<string>(eb.val(param('grantId')), 'text').as('grant_id'),
              eb.cast<number>(eb.val(param<number>('createdAt')), 'bigint').as('created_at'),
              eb.cast<number>(eb.val(param<number>('lastUsedAt')), 'bigint').as('last_used_at'),
              eb.cast<number | null>(eb.val(param<number | null>('rotatedAt')), 'bigint').as('rotated_at'),
            ]),
        ),
    )
    .selectFrom('consumed')
    .select('consumed.code_hash'),
);
/**
 * The code's conditional consume with its session's check in the same statement, for a write run
 * on a thread (`DirectExecutor.writeOnThread`), which cannot read a row back between statements:
 * the code is consumed only while it is unused and its sign-in session, if it has one, has not
 * ended (docs/decisions/0005-codes-die-with-their-session.md). It changes no row otherwise.
 */
const consumeCodeWhileSessionLive = reusableQuery((db: Kysely<Database>) =>
  consumeUnusedCode(db).where((eb) =>
    eb.or([
      eb('session_id', 'is', null),
      eb.exists(
        eb
          .selectFrom('sessions')
          .select('sessions.session_id')
          .whereRef('sessions.session_id', '=', 'authorization_codes.session_id')
          .where('sessions.ended_at', 'is', null),
      ),
    ]),
  ),
);
const findGrant = reusableQuery((db: Kysely<Database>) => db.selectFrom('grants').selectAll().where('grant_id', '=', param('grantId')));

export function createGrantRepository(db: Kysely<Database>, dialect: StorageDialect): GrantRepository {
  /** Revokes the live grants the filter selects, in one statement; returns their ids. */
  const revokeLive = async (at: Date, filter: Partial<Pick<GrantTable, 'grant_id' | 'session_id' | 'user_key' | 'client_id'>>): Promise<string[]> => {
    let query = db.updateTable('grants').set({ revoked_at: toMs(at) }).where('revoked_at', 'is', null);
    for (const [column, value] of Object.entries(filter) as Array<[keyof typeof filter, string]>) query = query.where(column, '=', value);
    const rows = await query.returning('grant_id').execute();
    return rows.map((row) => row.grant_id);
  };

  return {
    async create(grant) {
      await insertGrant(db, { ...toRow(grant) });
    },

    async createFromCode({ grant, codeHash, refreshToken }) {
      // SQLite: the same statements in one synchronous transaction, without an await between them
      // (docs/decisions/0067-synchronous-sqlite-transactions.md); undefined when the connection is busy.
      try {
        const executor = directExecutorOf(db);
        // SQLite file: the same write on the write thread, off the event loop
        // (docs/decisions/0075-code-exchange-writes-on-a-thread.md); undefined when it has none.
        const onThread = executor?.writeOnThread?.(exchangeStatements(db, { grant, codeHash, refreshToken }));
        if (onThread !== undefined) return await onThread;
        const direct = executor?.transaction((step) => exchangeInOneStep(db, step, { grant, codeHash, refreshToken }));
        if (direct !== undefined) return direct.value;
        // PostgreSQL: one statement, one round trip (docs/decisions/0073-postgresql-exchange-in-one-statement.md).
        if (dialect.writesInCtes) {
          // The grant's columns by name (the code is consumed at the grant's creation, by it), the refresh token's in camelCase.
          const values = { ...toRow(grant), ...refreshTokenValues(refreshToken), codeHash };
          return (await exchangeInOneStatement(db, values)).rows.length === 1;
        }
        // One transaction, one commit (SQLite when the connection is busy; a dialect that cannot
        // write in CTEs): the grant, the code's conditional consume and the refresh token, or nothing.
        return await db.transaction().execute(async (trx) => {
          await insertGrant(trx, { ...toRow(grant) });
          const [consumed] = (await consumeCode(trx, { at: toMs(grant.createdAt), grantId: grant.grantId, codeHash })).rows;
          if (!consumed) throw NOT_EXCHANGED;
          // Product logout outruns the codes of its session (docs/decisions/0005-codes-die-with-their-session.md).
          // Logout (sessions.endWithGrants) ends the session row, then revokes its grants, in one
          // transaction. On PostgreSQL (READ COMMITTED) the FOR SHARE lock orders the two: a logout
          // that ended the row first makes this read wait for its commit, then re-read the row and
          // find it ended; an exchange that locked first makes the logout's UPDATE wait for this
          // commit, and the logout's revocation, a later statement with a fresh snapshot, then
          // sees this grant and revokes it. On SQLite the transactions are serialized anyway.
          if (consumed.session_id !== null) {
            const { rows } = await (dialect.locksRows ? lockLiveSession : findLiveSession)(trx, { sessionId: consumed.session_id });
            if (rows.length === 0) throw NOT_EXCHANGED;
          }
          await insertRefreshToken(trx, refreshTokenValues(refreshToken));
          return true;
        });
      } catch (error) {
        if (error === NOT_EXCHANGED) return false;
        throw error;
      }
    },

    async findById(grantId) {
      const [row] = (await findGrant(db, { grantId })).rows;
      return row && fromRow(row);
    },

    async revoke(grantId, at) {
      return (await revokeLive(at, { grant_id: grantId })).length > 0;
    },

    revokeBySession: (sessionId, at) => revokeLive(at, { session_id: sessionId }),
    // '' is no user's key: it marks the client-credentials grants, which no user's action revokes.
    revokeByUser: async (userKey, at) => (userKey === NO_USER ? [] : revokeLive(at, { user_key: userKey })),
    revokeByUserAndClient: async (userKey, clientId, at) => (userKey === NO_USER ? [] : revokeLive(at, { user_key: userKey, client_id: clientId })),

    async listActiveByClient(clientId) {
      const rows = await db
        .selectFrom('grants')
        .selectAll()
        .where('client_id', '=', clientId)
        .where('revoked_at', 'is', null)
        .orderBy('created_at', 'desc')
        .orderBy('grant_id', 'desc')
        .execute();
      return rows.map(fromRow);
    },

    async listActiveByUser(userKey) {
      if (userKey === NO_USER) return [];
      const rows = await db
        .selectFrom('grants')
        .selectAll()
        .where('user_key', '=', userKey)
        .where('revoked_at', 'is', null)
        .orderBy('created_at', 'desc')
        .orderBy('grant_id', 'desc')
        .execute();
      return rows.map(fromRow);
    },

    async deleteByUser(userKey) {
      if (userKey === NO_USER) return [];
      // Refresh tokens and consumed codes go by ON DELETE CASCADE, in the same statement.
      const rows = await db.deleteFrom('grants').where('user_key', '=', userKey).returning('grant_id').execute();
      return rows.map((row) => row.grant_id);
    },

    async purge(before) {
      // Refresh tokens and consumed codes of the purged grants go by ON DELETE CASCADE. A
      // client-credentials grant (no user) is dead once its one access token has expired.
      const cutoff = toMs(before);
      const result = await db
        .deleteFrom('grants')
        .where((eb) => eb.or([eb('revoked_at', '<', cutoff), eb.and([eb('user_key', '=', NO_USER), eb('created_at', '<', cutoff)])]))
        .executeTakeFirst();
      return affected(result.numDeletedRows);
    },
  };
}

/**
 * `createFromCode`'s statements for a write thread, in the same order as `exchangeInOneStep`: the
 * write is refused (nothing written) when the code is consumed or its session ended.
 */
function exchangeStatements(db: Kysely<Database>, { grant, codeHash, refreshToken }: Parameters<GrantRepository['createFromCode']>[0]): BackgroundStatement[] {
  const grantInsert = insertGrant.bind(db, { ...toRow(grant) });
  const consume = consumeCodeWhileSessionLive.bind(db, { at: toMs(grant.createdAt), grantId: grant.grantId, codeHash });
  const tokenInsert = insertRefreshToken.bind(db, refreshTokenValues(refreshToken));
  return [
    { sql: grantInsert.sql, parameters: grantInsert.parameters, mustChange: false },
    { sql: consume.sql, parameters: consume.parameters, mustChange: true },
    { sql: tokenInsert.sql, parameters: tokenInsert.parameters, mustChange: false },
  ];
}

/**
 * `createFromCode`'s transaction body for a direct executor: the same statements in the same
 * order, each compiled by kysely. Throws NOT_EXCHANGED (the transaction rolls back) when the
 * code was consumed or its session ended.
 */
function exchangeInOneStep(db: Kysely<Database>, step: DirectStep, { grant, codeHash, refreshToken }: Parameters<GrantRepository['createFromCode']>[0]): true {
  const run = <R>(query: BoundQuery<R>) => runBound(step, query);
  run(insertGrant.bind(db, { ...toRow(grant) }));
  const [consumed] = run(consumeCode.bind(db, { at: toMs(grant.createdAt), grantId: grant.grantId, codeHash })).rows;
  if (!consumed) throw NOT_EXCHANGED;
  // Product logout outruns the codes of its session (docs/decisions/0005-codes-die-with-their-session.md);
  // the write lock, held since BEGIN IMMEDIATE, orders this read with the logout's transaction.
  if (consumed.session_id !== null && run(findLiveSession.bind(db, { sessionId: consumed.session_id })).rows.length === 0) throw NOT_EXCHANGED;
  run(insertRefreshToken.bind(db, refreshTokenValues(refreshToken)));
  return true;
}
