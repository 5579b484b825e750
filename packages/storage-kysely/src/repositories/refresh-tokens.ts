import type { RefreshToken, RefreshTokenRepository } from '@gatehouse/core';
import type { Kysely, Selectable } from 'kysely';
import type { StorageDialect } from '../dialect.js';
import { fromMs, fromMsOrNull, toMs, toMsOrNull } from '../encoding.js';
import { pointRead } from '../point-reads.js';
import { inTransaction, param, reusableQuery } from '../reusable-query.js';
import type { Database, RefreshTokenTable } from '../schema.js';
import { fromRow as grantFromRow } from './grant-rows.js';

export const insertRefreshToken = reusableQuery((db: Kysely<Database>) =>
  db.insertInto('refresh_tokens').values({
    token_hash: param('tokenHash'),
    grant_id: param('grantId'),
    created_at: param<number>('createdAt'),
    last_used_at: param<number>('lastUsedAt'),
    rotated_at: param<number | null>('rotatedAt'),
    superseded_at: param<number | null>('supersededAt'),
  }),
);
/** The token's columns, then its grant's (`grant_`-named where both tables have the column). */
function tokensWithGrants(db: Kysely<Database>) {
  return db
    .selectFrom('refresh_tokens')
    .innerJoin('grants', 'grants.grant_id', 'refresh_tokens.grant_id')
    .selectAll('refresh_tokens')
    .select(['grants.client_id', 'grants.user_key', 'grants.scopes', 'grants.resources', 'grants.session_id', 'grants.openid', 'grants.created_at as grant_created_at', 'grants.revoked_at']);
}
const touchRefreshToken = reusableQuery((db: Kysely<Database>) =>
  db.updateTable('refresh_tokens').set({ last_used_at: param<number>('at') }).where('token_hash', '=', param('tokenHash')),
);

/**
 * The refresh tokens on `db`. `userTables` false (a database without Gatehouse's own users,
 * docs/decisions/0146) leaves out `findWithGrantAndOwnerEmail`, which joins the users table.
 */
export function createRefreshTokenRepository(db: Kysely<Database>, dialect: StorageDialect, options: { userTables?: boolean } = {}): RefreshTokenRepository {
  // A refresh's reads, batched where the dialect batches reads (docs/decisions/0175).
  const keyOf = (row: { token_hash: string }) => row.token_hash;
  const findRefreshToken = pointRead(db, dialect, { query: (db) => db.selectFrom('refresh_tokens').selectAll(), keyColumn: 'token_hash', keyOf });
  const findRefreshTokenWithGrant = pointRead(db, dialect, { query: tokensWithGrants, keyColumn: 'refresh_tokens.token_hash', keyOf });
  // With the e-mail of the grant's owner among Gatehouse's own users (docs/decisions/0168).
  const findRefreshTokenWithGrantAndOwner = pointRead(db, dialect, {
    query: (db) => tokensWithGrants(db).leftJoin('users', 'users.user_key', 'grants.user_key').select('users.email as owner_email'),
    keyColumn: 'refresh_tokens.token_hash',
    keyOf,
  });
  const repository: RefreshTokenRepository = {
    async save(token) {
      await insertRefreshToken(db, refreshTokenValues(token));
    },

    async findByHash(tokenHash) {
      const row = await findRefreshToken(tokenHash);
      return row && fromRow(row);
    },

    async findWithGrant(tokenHash) {
      const row = await findRefreshTokenWithGrant(tokenHash);
      if (!row) return undefined;
      // The grant's columns are the row's, but for its creation time (`created_at` is the token's).
      const grant = grantFromRow({ ...row, created_at: row.grant_created_at });
      return { token: fromRow(row), grant };
    },

    async findWithGrantAndOwnerEmail(tokenHash) {
      const row = await findRefreshTokenWithGrantAndOwner(tokenHash);
      if (!row) return undefined;
      const { owner_email: ownerEmail, ...rest } = row;
      return { token: fromRow(rest), grant: grantFromRow({ ...rest, created_at: rest.grant_created_at }), ownerEmail: ownerEmail ?? undefined };
    },

    async rotate({ tokenHash, next, at, graceSince }) {
      const when = toMs(at);
      return inTransaction(db, async (trx) => {
        const token = await trx.selectFrom('refresh_tokens').select('grant_id').where('token_hash', '=', tokenHash).executeTakeFirst();
        if (!token) return 'reused';
        // The grant's rotations, one at a time: on PostgreSQL its row lock, taken first by every
        // rotation of its tokens, so each later statement (a fresh snapshot under READ COMMITTED)
        // sees the tokens an earlier rotation saved; SQLite's transactions hold its one write lock.
        if (dialect.locksRows) await trx.selectFrom('grants').select('grant_id').where('grant_id', '=', token.grant_id).forUpdate().execute();
        // RFC 9700 §4.14.2: one conditional write decides which request rotated the token.
        const rotated = await trx
          .updateTable('refresh_tokens')
          .set({ rotated_at: when })
          .where('token_hash', '=', tokenHash)
          .where('rotated_at', 'is', null)
          .where('superseded_at', 'is', null)
          .returning('token_hash')
          .executeTakeFirst();
        if (rotated) {
          await insertRefreshToken(trx, refreshTokenValues(next));
          return 'rotated';
        }
        const retried = await trx
          .selectFrom('refresh_tokens')
          .select('token_hash')
          .where('token_hash', '=', tokenHash)
          .where('superseded_at', 'is', null)
          .where('rotated_at', '>=', toMs(graceSince))
          // Its response was lost only if the token it was rotated to was never used: once another
          // token of the grant rotated, the client had it, and this is a replay (RFC 9700 §4.14.2;
          // docs/decisions/0106).
          .where(({ not, exists, selectFrom }) =>
            not(
              exists(
                selectFrom('refresh_tokens as later')
                  .select('later.token_hash')
                  .whereRef('later.grant_id', '=', 'refresh_tokens.grant_id')
                  .whereRef('later.token_hash', '<>', 'refresh_tokens.token_hash')
                  .whereRef('later.rotated_at', '>=', 'refresh_tokens.rotated_at'),
              ),
            ),
          )
          .executeTakeFirst();
        if (!retried) return 'reused';
        // A retry within the grace: the token it replaces (the live one of the grant) is superseded,
        // so the grant keeps one live refresh token (docs/decisions/0106).
        await trx
          .updateTable('refresh_tokens')
          .set({ superseded_at: when })
          .where('grant_id', '=', token.grant_id)
          .where('rotated_at', 'is', null)
          .where('superseded_at', 'is', null)
          .execute();
        await insertRefreshToken(trx, refreshTokenValues(next));
        return 'replaced';
      });
    },

    async touch(tokenHash, at) {
      await touchRefreshToken(db, { at: toMs(at), tokenHash });
    },
  };
  if (options.userTables === false) delete repository.findWithGrantAndOwnerEmail;
  return repository;
}

/**
 * The values of `insertRefreshToken` for `token`: its columns, times as epoch milliseconds, for a
 * dialect's own statements (PostgreSQL's one-statement rotation).
 *
 * @example
 * const { tokenHash, grantId, createdAt } = refreshTokenValues(next); // createdAt: 1700000000000
 */
export function refreshTokenValues(token: RefreshToken): { tokenHash: string; grantId: string; createdAt: number; lastUsedAt: number; rotatedAt: number | null; supersededAt: number | null } {
  return {
    tokenHash: token.tokenHash,
    grantId: token.grantId,
    createdAt: toMs(token.createdAt),
    lastUsedAt: toMs(token.lastUsedAt),
    rotatedAt: toMsOrNull(token.rotatedAt),
    supersededAt: toMsOrNull(token.supersededAt),
  };
}

function fromRow(row: Selectable<RefreshTokenTable>): RefreshToken {
  return {
    tokenHash: row.token_hash,
    grantId: row.grant_id,
    createdAt: fromMs(row.created_at),
    lastUsedAt: fromMs(row.last_used_at),
    rotatedAt: fromMsOrNull(row.rotated_at),
    supersededAt: fromMsOrNull(row.superseded_at),
  };
}
