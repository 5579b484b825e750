import type { GrantRepository } from '@gatehouse/core';
import type { Kysely } from 'kysely';
import { toMs } from '../encoding.js';
import { param, reusableQuery } from '../reusable-query.js';
import type { Database, GrantTable } from '../schema.js';
import { consumeCode, consumeUnusedCode } from './codes.js';
import { toRow } from './grant-rows.js';
import { insertRefreshToken, refreshTokenValues } from './refresh-tokens.js';

/** What `grants.createFromCode` is given. */
export type CodeExchange = Parameters<GrantRepository['createFromCode']>[0];

export const insertGrant = reusableQuery((db: Kysely<Database>) =>
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
    refreshable: param<0 | 1>('refreshable'),
  }),
);
/** The code's sign-in session, if it has not ended (product logout). */
export const findLiveSession = reusableQuery((db: Kysely<Database>) =>
  db.selectFrom('sessions').select('session_id').where('session_id', '=', param('sessionId')).where('ended_at', 'is', null),
);
/** The same, keeping the row from being ended until the transaction ends (dialects with row locks). */
export const lockLiveSession = reusableQuery((db: Kysely<Database>) =>
  db.selectFrom('sessions').select('session_id').where('session_id', '=', param('sessionId')).where('ended_at', 'is', null).forShare(),
);
/**
 * The code's conditional consume with its session's check in the same statement, for a write that
 * cannot read a row back between statements (SQLite's write thread): the code is consumed only
 * while it is unused and its sign-in session, if it has one, has not ended
 * (docs/decisions/0005-codes-die-with-their-session.md). It changes no row otherwise.
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

/**
 * The code exchange's statements (docs/decisions/0062), for the dialects' own forms of
 * `createFromCode` (docs/decisions/0162-one-exchange-write-per-dialect.md): kysely builds and
 * compiles each once (`reusableQuery`), a dialect binds them (`bind`) or runs them. Values: the
 * grant's row (`insertGrant`), `consume` (`consumeCode`, `consumeCodeWhileSessionLive`),
 * `{ sessionId }` (`findLiveSession`, `lockLiveSession`), `refreshToken` (`insertRefreshToken`).
 */
export const codeExchangeQueries = { insertGrant, consumeCode, consumeCodeWhileSessionLive, findLiveSession, lockLiveSession, insertRefreshToken };

/** The values of `codeExchangeQueries` for one exchange. */
export interface CodeExchangeValues {
  /** The grant's row (`insertGrant`). */
  grant: GrantTable;
  /** The code's consume (`consumeCode`, `consumeCodeWhileSessionLive`): at the grant's creation, by it. */
  consume: { at: number; grantId: string; codeHash: string };
  /** The refresh token's values (`insertRefreshToken`); null when the exchange has none (docs/decisions/0188). */
  refreshToken: { tokenHash: string; grantId: string; createdAt: number; lastUsedAt: number; rotatedAt: number | null; supersededAt: number | null } | null;
}

/** The values of `codeExchangeQueries` for one exchange. */
export function codeExchangeValues({ grant, codeHash, refreshToken }: CodeExchange): CodeExchangeValues {
  // A grant made without a refresh token is found by the purge once its access token has expired (docs/decisions/0193).
  return { grant: { ...toRow(grant), refreshable: refreshToken === undefined ? 0 : 1 }, consume: { at: toMs(grant.createdAt), grantId: grant.grantId, codeHash }, refreshToken: refreshToken === undefined ? null : refreshTokenValues(refreshToken) };
}
