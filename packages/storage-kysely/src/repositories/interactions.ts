import type { Interaction, InteractionRepository } from '@gatehouse/core';
import type { Kysely, Selectable } from 'kysely';
import { affected, fromMs, fromMsOrNull, toMs, toMsOrNull } from '../encoding.js';
import type { StorageDialect } from '../dialect.js';
import type { Database, InteractionTable } from '../schema.js';

/** Login and consent requests handed to the host application (docs/decisions/0091). */
export function createInteractionRepository(db: Kysely<Database>, dialect: StorageDialect): InteractionRepository {
  return {
    async create(interaction) {
      await db
        .insertInto('interactions')
        .values({
          interaction_hash: interaction.interactionHash,
          kind: interaction.kind,
          return_to: interaction.returnTo,
          user_key: interaction.userKey,
          session_id: interaction.sessionId,
          created_at: toMs(interaction.createdAt),
          expires_at: toMs(interaction.expiresAt),
          consumed_at: toMsOrNull(interaction.consumedAt),
        })
        .execute();
    },

    async findByHash(interactionHash) {
      const row = await db.selectFrom('interactions').selectAll().where('interaction_hash', '=', interactionHash).executeTakeFirst();
      return row && fromRow(row);
    },

    async consume(interactionHash, kind, at) {
      // Single use by the database: one conditional UPDATE, never a read then a write.
      const row = await db
        .updateTable('interactions')
        .set({ consumed_at: toMs(at) })
        .where('interaction_hash', '=', interactionHash)
        .where('kind', '=', kind)
        .where('consumed_at', 'is', null)
        .where('expires_at', '>', toMs(at))
        .returningAll()
        .executeTakeFirst();
      return row && fromRow(row);
    },

    async createAnonymous(interaction, cap) {
      // One statement, in a transaction holding a lock every such insert takes (PostgreSQL: READ COMMITTED would let
      // concurrent inserts each count the rows before the others'): the row goes in only while
      // fewer than `cap` rows of nobody are there.
      const result = await db.transaction().execute(async (trx) => {
        await dialect.lock(trx, 'interactions:anonymous');
        return trx
          .insertInto('interactions')
          .columns(['interaction_hash', 'kind', 'return_to', 'user_key', 'session_id', 'created_at', 'expires_at', 'consumed_at'])
          .expression(
            trx
              .selectNoFrom((eb) => [
                eb.cast<string>(eb.val(interaction.interactionHash), 'text').as('interaction_hash'),
                eb.cast<Interaction['kind']>(eb.val(interaction.kind), 'text').as('kind'),
                eb.cast<string>(eb.val(interaction.returnTo), 'text').as('return_to'),
                eb.cast<null>(eb.val(null), 'text').as('user_key'),
                eb.cast<null>(eb.val(null), 'text').as('session_id'),
                eb.cast<number>(eb.val(toMs(interaction.createdAt)), 'bigint').as('created_at'),
                eb.cast<number>(eb.val(toMs(interaction.expiresAt)), 'bigint').as('expires_at'),
                eb.cast<number | null>(eb.val(toMsOrNull(interaction.consumedAt)), 'bigint').as('consumed_at'),
              ])
              .where((eb) => eb(eb.selectFrom('interactions').select((count) => count.fn.countAll().as('count')).where('user_key', 'is', null), '<', cap)),
          )
          .executeTakeFirst();
      });
      return affected(result.numInsertedOrUpdatedRows) === 1;
    },

    async deleteByUser(userKey) {
      // An interaction of nobody (`user_key` null) is never the user's.
      const result = await db.deleteFrom('interactions').where('user_key', '=', userKey).executeTakeFirst();
      return affected(result.numDeletedRows);
    },

    async purge(expiredBefore) {
      const result = await db.deleteFrom('interactions').where('expires_at', '<', toMs(expiredBefore)).executeTakeFirst();
      return affected(result.numDeletedRows);
    },
  };
}

function fromRow(row: Selectable<InteractionTable>): Interaction {
  return {
    interactionHash: row.interaction_hash,
    kind: row.kind,
    returnTo: row.return_to,
    userKey: row.user_key,
    sessionId: row.session_id,
    createdAt: fromMs(row.created_at),
    expiresAt: fromMs(row.expires_at),
    consumedAt: fromMsOrNull(row.consumed_at),
  };
}
