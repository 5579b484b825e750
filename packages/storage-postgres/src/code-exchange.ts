import { StorageUnavailableError, type GrantRepository } from '@gatehouse/core';
import { batchPerTurn, codeExchangeValues, param, reusableQuery, type CodeExchange, type Database } from '@gatehouse/storage-kysely';
import { sql, type Kysely } from 'kysely';

/**
 * "The code is unused", written so that PostgreSQL finds the code by its primary key. With
 * `consumed_at IS NULL` the planner may pick a partial index of the unused codes (the purge's, the
 * withdrawal's) when its statistics say there are few, and then reads every unused code to find one
 * hash: 23 ms for 100,000 unused codes inserted after the last ANALYZE, 0.08 ms by the key. A
 * consumption time is never negative, so this is the same condition.
 */
const codeIsUnused = sql<boolean>`coalesce(${sql.ref('consumed_at')}, -1) = -1`;

/**
 * `createFromCode` as one statement, PostgreSQL's form of the code exchange's write
 * (docs/decisions/0073-postgresql-exchange-in-one-statement.md, 0162): one round trip instead of
 * six (BEGIN, four statements, COMMIT), the rules of the shared kysely transaction. The code's
 * session is read `FOR SHARE` and the code is consumed only while that session is live (and found by
 * its key: `codeIsUnused`); the grant
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
        .where(codeIsUnused)
        .where((eb) => eb.or([eb('session_id', 'is', null), eb('session_id', 'in', eb.selectFrom('live_session').select('live_session.session_id'))]))
        .returning('code_hash'),
    )
    .with('new_grant', (db) =>
      db
        .insertInto('grants')
        .columns(['grant_id', 'client_id', 'user_key', 'scopes', 'resources', 'session_id', 'openid', 'created_at', 'revoked_at', 'refreshable'])
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
              eb.cast<0 | 1>(eb.val(param<0 | 1>('refreshable')), 'integer').as('refreshable'),
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
            ])
            // An exchange without a refresh token (docs/decisions/0188): its values are null.
            .where(eb.cast<string | null>(eb.val(param<string | null>('tokenHash')), 'text'), 'is not', null),
        ),
    )
    .selectFrom('consumed')
    .select('consumed.code_hash'),
);

/**
 * The same rules for several exchanges in one statement (docs/decisions/0175-one-statement-per-turn-on-postgresql.md):
 * the exchanges of one turn of the event loop go out together, one round trip and one commit
 * (one WAL flush) for all. `exchange` holds one row per exchange (the arrays, element by element);
 * each code is consumed by its own exchange's grant id, and the grant and the refresh token are
 * inserted only for the codes consumed. Two exchanges of one code in a batch: PostgreSQL updates
 * the code's row once, by one of them, whose grant id alone comes back (RFC 6749 §4.1.2: one
 * grant per code). Answers the grant ids that were written.
 */
const exchangesInOneStatement = reusableQuery((db: Kysely<Database>) =>
  db
    .with('exchange', (db) =>
      db.selectNoFrom([
        sql<string>`unnest(${param<string[]>('codeHashes')}::text[])`.as('code_hash'),
        sql<string>`unnest(${param<string[]>('grantIds')}::text[])`.as('grant_id'),
        sql<string>`unnest(${param<string[]>('clientIds')}::text[])`.as('client_id'),
        sql<string>`unnest(${param<string[]>('userKeys')}::text[])`.as('user_key'),
        sql<string>`unnest(${param<string[]>('scopes')}::text[])`.as('scopes'),
        sql<string>`unnest(${param<string[]>('resources')}::text[])`.as('resources'),
        sql<string | null>`unnest(${param<Array<string | null>>('sessionIds')}::text[])`.as('session_id'),
        sql<string | null>`unnest(${param<Array<string | null>>('openids')}::text[])`.as('openid'),
        sql<number>`unnest(${param<number[]>('createdAts')}::bigint[])`.as('created_at'),
        sql<number | null>`unnest(${param<Array<number | null>>('revokedAts')}::bigint[])`.as('revoked_at'),
        sql<0 | 1>`unnest(${param<Array<0 | 1>>('refreshables')}::integer[])`.as('refreshable'),
        sql<string>`unnest(${param<Array<string | null>>('tokenHashes')}::text[])`.as('token_hash'),
        sql<number>`unnest(${param<Array<number | null>>('tokenCreatedAts')}::bigint[])`.as('token_created_at'),
        sql<number>`unnest(${param<Array<number | null>>('lastUsedAts')}::bigint[])`.as('last_used_at'),
        sql<number | null>`unnest(${param<Array<number | null>>('rotatedAts')}::bigint[])`.as('rotated_at'),
      ]),
    )
    .with('live_session', (db) =>
      db
        .selectFrom('authorization_codes as code')
        .innerJoin('sessions as session', 'session.session_id', 'code.session_id')
        .select('session.session_id')
        .where('code.code_hash', 'in', (eb) => eb.selectFrom('exchange').select('exchange.code_hash'))
        .where('session.ended_at', 'is', null)
        .forShare('session'),
    )
    .with('consumed', (db) =>
      db
        .updateTable('authorization_codes')
        .from('exchange')
        .set((eb) => ({ consumed_at: eb.ref('exchange.created_at'), grant_id: eb.ref('exchange.grant_id') }))
        .whereRef('authorization_codes.code_hash', '=', 'exchange.code_hash')
        .where(codeIsUnused)
        .where((eb) => eb.or([eb('authorization_codes.session_id', 'is', null), eb('authorization_codes.session_id', 'in', eb.selectFrom('live_session').select('live_session.session_id'))]))
        .returning('authorization_codes.grant_id'),
    )
    .with('new_grant', (db) =>
      db
        .insertInto('grants')
        .columns(['grant_id', 'client_id', 'user_key', 'scopes', 'resources', 'session_id', 'openid', 'created_at', 'revoked_at', 'refreshable'])
        .expression((eb) =>
          eb
            .selectFrom('exchange')
            .innerJoin('consumed', 'consumed.grant_id', 'exchange.grant_id')
            .select(['exchange.grant_id', 'exchange.client_id', 'exchange.user_key', 'exchange.scopes', 'exchange.resources', 'exchange.session_id', 'exchange.openid', 'exchange.created_at', 'exchange.revoked_at', 'exchange.refreshable']),
        ),
    )
    .with('new_refresh_token', (db) =>
      db
        .insertInto('refresh_tokens')
        .columns(['token_hash', 'grant_id', 'created_at', 'last_used_at', 'rotated_at'])
        .expression((eb) =>
          eb
            .selectFrom('exchange')
            .innerJoin('consumed', 'consumed.grant_id', 'exchange.grant_id')
            .select(['exchange.token_hash', 'exchange.grant_id', 'exchange.token_created_at', 'exchange.last_used_at', 'exchange.rotated_at'])
            // An exchange without a refresh token (docs/decisions/0188): its values are null.
            .where('exchange.token_hash', 'is not', null),
        ),
    )
    .selectFrom('consumed')
    .select('consumed.grant_id'),
);

/** The values of `exchangesInOneStatement`: each column of the `exchange` rows as an array. */
function exchangeArrays(exchanges: readonly CodeExchange[]) {
  const values = exchanges.map(codeExchangeValues);
  return {
    codeHashes: values.map(({ consume }) => consume.codeHash),
    grantIds: values.map(({ grant }) => grant.grant_id),
    clientIds: values.map(({ grant }) => grant.client_id),
    userKeys: values.map(({ grant }) => grant.user_key),
    scopes: values.map(({ grant }) => grant.scopes),
    resources: values.map(({ grant }) => grant.resources),
    sessionIds: values.map(({ grant }) => grant.session_id),
    openids: values.map(({ grant }) => grant.openid),
    createdAts: values.map(({ grant }) => grant.created_at),
    revokedAts: values.map(({ grant }) => grant.revoked_at),
    refreshables: values.map(({ grant }) => grant.refreshable),
    tokenHashes: values.map(({ refreshToken }) => refreshToken?.tokenHash ?? null),
    tokenCreatedAts: values.map(({ refreshToken }) => refreshToken?.createdAt ?? null),
    lastUsedAts: values.map(({ refreshToken }) => refreshToken?.lastUsedAt ?? null),
    rotatedAts: values.map(({ refreshToken }) => refreshToken?.rotatedAt ?? null),
  };
}

/**
 * The grants repository with PostgreSQL's `createFromCode`, in place of the shared kysely
 * transaction: one statement per exchange, or one for the exchanges of a turn (docs/decisions/0175).
 */
/** The refresh token's values of an exchange without one: the statement inserts no token (docs/decisions/0188). */
const NO_REFRESH_TOKEN = { tokenHash: null, grantId: null, createdAt: null, lastUsedAt: null, rotatedAt: null };

export function withExchangeInOneStatement(grants: GrantRepository, db: Kysely<Database>): GrantRepository {
  const exchangeAlone = async (exchange: CodeExchange): Promise<boolean> => {
    const { grant, consume, refreshToken } = codeExchangeValues(exchange);
    // The grant's columns by name (the code is consumed at the grant's creation, by it), the refresh token's in camelCase.
    return (await exchangeInOneStatement(db, { ...grant, ...(refreshToken ?? NO_REFRESH_TOKEN), codeHash: consume.codeHash })).rows.length === 1;
  };
  const exchange = batchPerTurn(async (exchanges: readonly CodeExchange[]): Promise<ReadonlyArray<boolean | Promise<boolean>>> => {
    if (exchanges.length === 1) return [await exchangeAlone(exchanges[0] as CodeExchange)];
    let written: Set<string | null>;
    try {
      written = new Set((await exchangesInOneStatement(db, exchangeArrays(exchanges))).rows.map((row) => row.grant_id));
    } catch (error) {
      // An outage: the outcome may be unknown (a lost commit answer), for each exchange to settle
      // as one alone would (docs/decisions/0167-lost-commit-answers.md).
      if (error instanceof StorageUnavailableError) throw error;
      // Anything else rolled the whole statement back (one exchange's constraint, a deadlock with
      // another instance's batch): each exchange alone, so that each gets its own outcome.
      return exchanges.map(exchangeAlone);
    }
    return exchanges.map(({ grant }) => written.has(grant.grantId));
  });
  return { ...grants, createFromCode: exchange };
}
