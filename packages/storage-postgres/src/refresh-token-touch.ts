import type { RefreshTokenRepository } from '@gatehouse/core';
import { batchPerTurn, param, reusableQuery, type Database } from '@gatehouse/storage-kysely';
import { sql, type Kysely } from 'kysely';

/**
 * `refreshTokens.touch` for several tokens in one statement (docs/decisions/0175-one-statement-per-turn-on-postgresql.md):
 * each token's last use set to its own time, as the shared repository's one-token `UPDATE` does.
 */
const touchRefreshTokens = reusableQuery((db: Kysely<Database>) =>
  db
    .updateTable('refresh_tokens')
    .from(
      db
        .selectNoFrom([sql<string>`unnest(${param<string[]>('tokenHashes')}::text[])`.as('token_hash'), sql<number>`unnest(${param<number[]>('lastUsedAts')}::bigint[])`.as('last_used_at')])
        .as('touch'),
    )
    .set((eb) => ({ last_used_at: eb.ref('touch.last_used_at') }))
    .whereRef('refresh_tokens.token_hash', '=', 'touch.token_hash'),
);

/**
 * The refresh tokens with the touches of one turn of the event loop in one statement, a refresh's
 * write when tokens do not rotate: one round trip and one commit for all the refreshes of the turn.
 */
export function withTouchesInOneStatement(refreshTokens: RefreshTokenRepository, db: Kysely<Database>): RefreshTokenRepository {
  const touch = batchPerTurn(async (touches: ReadonlyArray<{ tokenHash: string; at: Date }>) => {
    // A token touched twice in the turn: its latest use (one row of `touch` per token, so that
    // PostgreSQL does not pick one of two for the same row).
    const latest = new Map<string, number>();
    for (const { tokenHash, at } of touches) latest.set(tokenHash, Math.max(latest.get(tokenHash) ?? Number.NEGATIVE_INFINITY, at.getTime()));
    await touchRefreshTokens(db, { tokenHashes: [...latest.keys()], lastUsedAts: [...latest.values()] });
    return touches.map(() => undefined);
  });
  return { ...refreshTokens, touch: (tokenHash, at) => touch({ tokenHash, at }) };
}
