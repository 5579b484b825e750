import type { RefreshTokenRepository } from '@gatehouse/core';
import { batchPerTurn, param, refreshTokenValues, reusableQuery, type Database } from '@gatehouse/storage-kysely';
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
 * A rotation's usual outcome in one statement (docs/decisions/0175): the grant's row locked
 * `FOR UPDATE` first, as every rotation of its tokens takes it (docs/decisions/0106), then the one
 * conditional write that decides which request rotated the token (RFC 9700 §4.14.2), then the next
 * token inserted only if that write changed the row. After waiting for the grant's lock the write
 * re-reads the token's row as it is now (PostgreSQL re-checks an updated row's conditions), so a
 * token rotated or superseded meanwhile is not rotated twice. Answers the grant id when rotated.
 */
const rotateInOneStatement = reusableQuery((db: Kysely<Database>) =>
  db
    .with('locked_grant', (db) =>
      db
        .selectFrom('grants')
        .select('grants.grant_id')
        .where('grants.grant_id', '=', (eb) => eb.selectFrom('refresh_tokens').select('refresh_tokens.grant_id').where('refresh_tokens.token_hash', '=', param('tokenHash')))
        .forUpdate(),
    )
    .with('rotated', (db) =>
      db
        .updateTable('refresh_tokens')
        .set({ rotated_at: param<number>('at') })
        .where('token_hash', '=', param('tokenHash'))
        .where('rotated_at', 'is', null)
        .where('superseded_at', 'is', null)
        .where('grant_id', 'in', (eb) => eb.selectFrom('locked_grant').select('locked_grant.grant_id'))
        .returning('refresh_tokens.grant_id'),
    )
    .with('next_token', (db) =>
      db
        .insertInto('refresh_tokens')
        .columns(['token_hash', 'grant_id', 'created_at', 'last_used_at', 'rotated_at', 'superseded_at'])
        .expression((eb) =>
          eb
            .selectFrom('rotated')
            .select([
              eb.cast<string>(eb.val(param('nextTokenHash')), 'text').as('token_hash'),
              eb.cast<string>(eb.val(param('nextGrantId')), 'text').as('grant_id'),
              eb.cast<number>(eb.val(param<number>('nextCreatedAt')), 'bigint').as('created_at'),
              eb.cast<number>(eb.val(param<number>('nextLastUsedAt')), 'bigint').as('last_used_at'),
              eb.cast<number | null>(eb.val(param<number | null>('nextRotatedAt')), 'bigint').as('rotated_at'),
              eb.cast<number | null>(eb.val(param<number | null>('nextSupersededAt')), 'bigint').as('superseded_at'),
            ]),
        ),
    )
    .selectFrom('rotated')
    .select('rotated.grant_id'),
);

/**
 * The refresh tokens with PostgreSQL's own writes (docs/decisions/0175): the touches of one turn of
 * the event loop in one statement (a refresh's write when tokens do not rotate), and a rotation in
 * one statement when it rotates, as it does but for a retry or a replay; those, and a token that is
 * gone, take the shared repository's transaction, which tells them apart.
 */
export function withRefreshTokenWrites(refreshTokens: RefreshTokenRepository, db: Kysely<Database>): RefreshTokenRepository {
  const touch = batchPerTurn(async (touches: ReadonlyArray<{ tokenHash: string; at: Date }>) => {
    // A token touched twice in the turn: its latest use (one row of `touch` per token, so that
    // PostgreSQL does not pick one of two for the same row).
    const latest = new Map<string, number>();
    for (const { tokenHash, at } of touches) latest.set(tokenHash, Math.max(latest.get(tokenHash) ?? Number.NEGATIVE_INFINITY, at.getTime()));
    await touchRefreshTokens(db, { tokenHashes: [...latest.keys()], lastUsedAts: [...latest.values()] });
    return touches.map(() => undefined);
  });
  return {
    ...refreshTokens,
    touch: (tokenHash, at) => touch({ tokenHash, at }),
    async rotate(input) {
      const next = refreshTokenValues(input.next);
      const { rows } = await rotateInOneStatement(db, {
        tokenHash: input.tokenHash,
        at: input.at.getTime(),
        nextTokenHash: next.tokenHash,
        nextGrantId: next.grantId,
        nextCreatedAt: next.createdAt,
        nextLastUsedAt: next.lastUsedAt,
        nextRotatedAt: next.rotatedAt,
        nextSupersededAt: next.supersededAt,
      });
      return rows.length === 1 ? 'rotated' : refreshTokens.rotate(input);
    },
  };
}
