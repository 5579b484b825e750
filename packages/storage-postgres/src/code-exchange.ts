import type { GrantRepository } from '@gatehouse/core';
import { codeExchangeValues, param, reusableQuery, type Database } from '@gatehouse/storage-kysely';
import type { Kysely } from 'kysely';

/**
 * `createFromCode` as one statement, PostgreSQL's form of the code exchange's write
 * (docs/decisions/0073-postgresql-exchange-in-one-statement.md, 0162): one round trip instead of
 * six (BEGIN, four statements, COMMIT), the rules of the shared kysely transaction. The code's
 * session is read `FOR SHARE` and the code is consumed only while that session is live; the grant
 * and the refresh token are inserted from the consumed row, so a code that is already consumed, or
 * whose session ended, writes nothing and returns no row. The foreign keys of the code and the
 * token on the grant are checked at the end of the statement, when the grant is there.
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

/** The grants repository with PostgreSQL's `createFromCode`, in place of the shared kysely transaction. */
export function withExchangeInOneStatement(grants: GrantRepository, db: Kysely<Database>): GrantRepository {
  return {
    ...grants,
    async createFromCode(exchange) {
      const { grant, consume, refreshToken } = codeExchangeValues(exchange);
      // The grant's columns by name (the code is consumed at the grant's creation, by it), the refresh token's in camelCase.
      return (await exchangeInOneStatement(db, { ...grant, ...refreshToken, codeHash: consume.codeHash })).rows.length === 1;
    },
  };
}
