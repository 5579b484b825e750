import type { Session, SessionRepository } from '@gatehouse/core';
import type { Kysely, Selectable } from 'kysely';
import { affected, fromMs, fromMsOrNull, optionalList, toMs, toMsOrNull, toOptionalListJson } from '../encoding.js';
import type { Database, SessionTable } from '../schema.js';

export function createSessionRepository(db: Kysely<Database>): SessionRepository {
  return {
    async create(session) {
      await db
        .insertInto('sessions')
        .values({
          session_id: session.sessionId,
          user_key: session.userKey,
          created_at: toMs(session.createdAt),
          authenticated_at: toMs(session.authenticatedAt),
          amr: toOptionalListJson(session.amr),
          acr: session.acr ?? null,
          expires_at: toMs(session.expiresAt),
          ended_at: toMsOrNull(session.endedAt),
        })
        .execute();
    },

    async findById(sessionId) {
      const row = await db.selectFrom('sessions').selectAll().where('session_id', '=', sessionId).executeTakeFirst();
      return row && fromRow(row);
    },

    async end(sessionId, at) {
      const ended = await db
        .updateTable('sessions')
        .set({ ended_at: toMs(at) })
        .where('session_id', '=', sessionId)
        .where('ended_at', 'is', null)
        .returning('session_id')
        .executeTakeFirst();
      return ended !== undefined;
    },

    async listActiveByUser(userKey, now) {
      const rows = await db
        .selectFrom('sessions')
        .selectAll()
        .where('user_key', '=', userKey)
        .where('ended_at', 'is', null)
        .where('expires_at', '>', toMs(now))
        .orderBy('created_at', 'desc')
        .orderBy('session_id', 'desc')
        .execute();
      return rows.map(fromRow);
    },

    async endByUser(userKey, at) {
      const ended = await db
        .updateTable('sessions')
        .set({ ended_at: toMs(at) })
        .where('user_key', '=', userKey)
        .where('ended_at', 'is', null)
        .returning('session_id')
        .execute();
      return ended.map((row) => row.session_id);
    },

    async endWithGrants(sessionId, at) {
      const when = toMs(at);
      return db.transaction().execute(async (trx) => {
        // The session row first: on PostgreSQL its row lock waits for an exchange that holds the
        // session (FOR SHARE, grants.ts), so the revocation below, a later statement with a fresh
        // snapshot, sees that exchange's grant (docs/decisions/0005-codes-die-with-their-session.md).
        const ended = await trx
          .updateTable('sessions')
          .set({ ended_at: when })
          .where('session_id', '=', sessionId)
          .where('ended_at', 'is', null)
          .returning('session_id')
          .executeTakeFirst();
        const revoked = await trx
          .updateTable('grants')
          .set({ revoked_at: when })
          .where('session_id', '=', sessionId)
          .where('revoked_at', 'is', null)
          .returning('grant_id')
          .execute();
        return { ended: ended !== undefined, revokedGrantIds: revoked.map((row) => row.grant_id) };
      });
    },

    async handOver(sessionId, nextSessionId, at) {
      const when = toMs(at);
      return db.transaction().execute(async (trx) => {
        // The session row first, as in endWithGrants: on PostgreSQL it waits for an exchange that
        // holds the session, whose grant the move below then sees; an exchange that comes after finds
        // the session ended and writes nothing: its codes die with it (docs/decisions/0194). A
        // session this call did not end (a logout came first) has no live grant left to move.
        const ended = await trx
          .updateTable('sessions')
          .set({ ended_at: when })
          .where('session_id', '=', sessionId)
          .where('ended_at', 'is', null)
          .returning('session_id')
          .executeTakeFirst();
        if (ended === undefined) return { ended: false, movedGrantIds: [] };
        const moved = await trx
          .updateTable('grants')
          .set({ session_id: nextSessionId })
          .where('session_id', '=', sessionId)
          .where('revoked_at', 'is', null)
          .returning('grant_id')
          .execute();
        return { ended: true, movedGrantIds: moved.map((row) => row.grant_id) };
      });
    },

    async deleteByUser(userKey) {
      const result = await db.deleteFrom('sessions').where('user_key', '=', userKey).executeTakeFirst();
      return affected(result.numDeletedRows);
    },

    async purge(before) {
      const cutoff = toMs(before);
      const result = await db
        .deleteFrom('sessions')
        .where((eb) => eb.or([eb('expires_at', '<', cutoff), eb('ended_at', '<', cutoff)]))
        .executeTakeFirst();
      return affected(result.numDeletedRows);
    },
  };
}

function fromRow(row: Selectable<SessionTable>): Session {
  return {
    sessionId: row.session_id,
    userKey: row.user_key,
    createdAt: fromMs(row.created_at),
    authenticatedAt: fromMs(row.authenticated_at ?? row.created_at),
    ...optionalList('amr', row.amr),
    ...(row.acr === null ? {} : { acr: row.acr }),
    expiresAt: fromMs(row.expires_at),
    endedAt: fromMsOrNull(row.ended_at),
  };
}
