import type { Session, SessionRepository } from '@gatehouse/core';
import type { Kysely, Selectable } from 'kysely';
import { affected, fromMs, fromMsOrNull, optionalList, toMs, toMsOrNull, toOptionalListJson } from '../encoding.js';
import type { Database, SessionTable } from '../schema.js';

/** Ends the session if it is live, in `trx`; true when this call ended it. */
async function endLiveSession(trx: Kysely<Database>, sessionId: string, when: number): Promise<boolean> {
  const ended = await trx.updateTable('sessions').set({ ended_at: when }).where('session_id', '=', sessionId).where('ended_at', 'is', null).returning('session_id').executeTakeFirst();
  return ended !== undefined;
}

/** An update of the session's live grants, in `trx` (its `set` is the caller's). */
function liveGrantsOf(trx: Kysely<Database>, sessionId: string) {
  return trx.updateTable('grants').where('session_id', '=', sessionId).where('revoked_at', 'is', null);
}

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
        const ended = await endLiveSession(trx, sessionId, when);
        const revoked = await liveGrantsOf(trx, sessionId).set({ revoked_at: when }).returning('grant_id').execute();
        return { ended, revokedGrantIds: revoked.map((row) => row.grant_id) };
      });
    },

    async handOver(sessionId, nextSessionId, at) {
      return db.transaction().execute(async (trx) => {
        // The session row first, as in endWithGrants: an exchange that holds the session commits
        // first and its grant is moved; one that comes after finds the session ended and writes
        // nothing: its codes die with it (docs/decisions/0194). A session this call did not end
        // (a logout came first) has no live grant left to move.
        if (!(await endLiveSession(trx, sessionId, toMs(at)))) return { ended: false, movedGrantIds: [] };
        const moved = await liveGrantsOf(trx, sessionId).set({ session_id: nextSessionId }).returning('grant_id').execute();
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
