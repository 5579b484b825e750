import type { RefreshToken, RefreshTokenRepository } from '@gatehouse/core';
import type { Kysely, Selectable } from 'kysely';
import { fromMs, fromMsOrNull, toMs, toMsOrNull } from '../encoding.js';
import type { Database, RefreshTokenTable } from '../schema.js';

export function createRefreshTokenRepository(db: Kysely<Database>): RefreshTokenRepository {
  return {
    async save(token) {
      await db
        .insertInto('refresh_tokens')
        .values({
          token_hash: token.tokenHash,
          grant_id: token.grantId,
          created_at: toMs(token.createdAt),
          last_used_at: toMs(token.lastUsedAt),
          rotated_at: toMsOrNull(token.rotatedAt),
        })
        .execute();
    },

    async findByHash(tokenHash) {
      const row = await db.selectFrom('refresh_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
      return row && fromRow(row);
    },

    async markRotated(tokenHash, at) {
      // RFC 9700 §4.14.2: one conditional write decides which request rotated the token.
      const won = await db
        .updateTable('refresh_tokens')
        .set({ rotated_at: toMs(at) })
        .where('token_hash', '=', tokenHash)
        .where('rotated_at', 'is', null)
        .returning('token_hash')
        .executeTakeFirst();
      return won !== undefined;
    },

    async touch(tokenHash, at) {
      await db.updateTable('refresh_tokens').set({ last_used_at: toMs(at) }).where('token_hash', '=', tokenHash).execute();
    },
  };
}

function fromRow(row: Selectable<RefreshTokenTable>): RefreshToken {
  return {
    tokenHash: row.token_hash,
    grantId: row.grant_id,
    createdAt: fromMs(row.created_at),
    lastUsedAt: fromMs(row.last_used_at),
    rotatedAt: fromMsOrNull(row.rotated_at),
  };
}
