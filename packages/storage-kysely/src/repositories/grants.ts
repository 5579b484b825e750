import type { GrantRepository } from '@gatehouse/core';
import { sql, type Kysely } from 'kysely';
import { affected, toMs } from '../encoding.js';
import { inTransaction } from '../reusable-query.js';
import { pointRead } from '../point-reads.js';
import type { StorageDialect } from '../dialect.js';
import type { Database, GrantTable } from '../schema.js';
import { consumeCode } from './codes.js';
import { codeExchangeValues, findLiveSession, insertGrant, lockLiveSession } from './code-exchange.js';
import { fromRow, NO_USER, toRow } from './grant-rows.js';
import { insertRefreshToken } from './refresh-tokens.js';

/** Rolls the exchange's transaction back: the code was already consumed, or its session ended. */
const NOT_EXCHANGED = Symbol('code consumed or its session ended');

export function createGrantRepository(db: Kysely<Database>, dialect: StorageDialect): GrantRepository {
  // Every bearer request's read (the access token's grant): batched where the dialect batches reads.
  const findGrant = pointRead(db, dialect, { query: (db) => db.selectFrom('grants').selectAll(), keyColumn: 'grant_id', keyOf: (row) => row.grant_id });
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

    // The dialect-neutral form: one kysely transaction, one commit. A dialect's storage puts its
    // own form in its place (docs/decisions/0162-one-exchange-write-per-dialect.md): SQLite's
    // synchronous transaction or write thread, PostgreSQL's one statement.
    async createFromCode(exchange) {
      const { grant, consume, refreshToken } = codeExchangeValues(exchange);
      try {
        // The grant, the code's conditional consume and the refresh token, or nothing.
        return await inTransaction(db, async (trx) => {
          await insertGrant(trx, { ...grant });
          const [consumed] = (await consumeCode(trx, consume)).rows;
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
          if (refreshToken !== null) await insertRefreshToken(trx, refreshToken);
          return true;
        });
      } catch (error) {
        if (error === NOT_EXCHANGED) return false;
        throw error;
      }
    },

    async findById(grantId) {
      const row = await findGrant(grantId);
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
      // Refresh tokens and consumed codes of the purged grants go by ON DELETE CASCADE. A grant made
      // without a refresh token (a client-credentials grant, a client that may not refresh) is dead
      // once its one access token has expired (docs/decisions/0193). Each condition has its index:
      // `grants_revoked`, `grants_by_user` ('' first), `grants_without_refresh_tokens` (whose
      // condition SQLite must read literally in the query: `sql.lit`).
      const cutoff = toMs(before);
      const result = await db
        .deleteFrom('grants')
        .where((eb) =>
          eb.or([
            eb('revoked_at', '<', cutoff),
            eb.and([eb('user_key', '=', NO_USER), eb('created_at', '<', cutoff)]),
            eb.and([eb('refreshable', '=', sql.lit(0)), eb('created_at', '<', cutoff)]),
          ]),
        )
        .executeTakeFirst();
      return affected(result.numDeletedRows);
    },
  };
}
