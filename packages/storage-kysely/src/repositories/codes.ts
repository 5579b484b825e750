import type { AuthorizationCode, AuthorizationCodeRepository } from '@gatehouse/core';
import type { Kysely, Selectable } from 'kysely';
import { affected, fromJson, fromMs, fromMsOrNull, openIdField, optionalList, toFlag, toJson, toMs, toMsOrNull, toOpenIdJson, toOptionalListJson } from '../encoding.js';
import type { StorageDialect } from '../dialect.js';
import { pointRead } from '../point-reads.js';
import { param, reusableQuery } from '../reusable-query.js';
import type { AuthorizationCodeTable, Database } from '../schema.js';

// RFC 6749 §4.1.2: single use is this one conditional write; the database lets exactly one writer
// see `consumed_at IS NULL` (a row lock on PostgreSQL, the write lock on SQLite).
// The code's sign-in session comes back for the exchange's session check (grants.ts).
export const consumeCode = reusableQuery((db: Kysely<Database>) => consumeUnusedCode(db).returning(['code_hash', 'session_id']));

/** The conditional consume's statement, values `at`, `grantId` and `codeHash`, for `consumeCode` and the write thread's variant (grants.ts). */
export function consumeUnusedCode(db: Kysely<Database>) {
  return db
    .updateTable('authorization_codes')
    .set({ consumed_at: param<number>('at'), grant_id: param('grantId') })
    .where('code_hash', '=', param('codeHash'))
    .where('consumed_at', 'is', null);
}

/**
 * The codes on `db`. `userTables` false (a database without Gatehouse's own users,
 * docs/decisions/0146) leaves out `findByHashWithOwnerEmail`, which joins the users table.
 */
export function createAuthorizationCodeRepository(db: Kysely<Database>, dialect: StorageDialect, options: { userTables?: boolean } = {}): AuthorizationCodeRepository {
  // The exchange's reads, batched where the dialect batches reads (docs/decisions/0175).
  const findCode = pointRead(db, dialect, { query: (db) => db.selectFrom('authorization_codes').selectAll(), keyColumn: 'code_hash', keyOf: (row) => row.code_hash });
  // With Gatehouse's own users: the owner's e-mail joined in, one round trip instead of two on
  // PostgreSQL (docs/decisions/0172-code-exchange-in-two-round-trips.md).
  const findCodeWithOwnerEmail = pointRead(db, dialect, {
    query: (db) => db.selectFrom('authorization_codes').leftJoin('users', 'users.user_key', 'authorization_codes.user_key').selectAll('authorization_codes').select('users.email as owner_email'),
    keyColumn: 'authorization_codes.code_hash',
    keyOf: (row) => row.code_hash,
  });
  const repository: AuthorizationCodeRepository = {
    async save(code) {
      await db.insertInto('authorization_codes').values(toRow(code)).execute();
    },

    async findByHash(codeHash) {
      const row = await findCode(codeHash);
      return row && fromRow(row);
    },

    async findByHashWithOwnerEmail(codeHash) {
      const row = await findCodeWithOwnerEmail(codeHash);
      if (row === undefined) return undefined;
      const { owner_email: ownerEmail, ...code } = row;
      return { code: fromRow(code), ownerEmail: ownerEmail ?? undefined };
    },

    async deleteUnused(userKey, clientId) {
      // docs/decisions/0105: the exchange's conditional consume (`consumed_at IS NULL` on a row that
      // is gone) then changes nothing, whichever of the two commits first.
      let query = db.deleteFrom('authorization_codes').where('user_key', '=', userKey).where('consumed_at', 'is', null);
      if (clientId !== undefined) query = query.where('client_id', '=', clientId);
      return affected((await query.executeTakeFirst()).numDeletedRows);
    },

    async purge(expiredBefore) {
      // Consumed codes go with their grant (ON DELETE CASCADE), so only unused expired ones remain to delete.
      const result = await db
        .deleteFrom('authorization_codes')
        .where('consumed_at', 'is', null)
        .where('expires_at', '<', toMs(expiredBefore))
        .executeTakeFirst();
      return affected(result.numDeletedRows);
    },
  };
  if (options.userTables === false) delete repository.findByHashWithOwnerEmail;
  return repository;
}

function toRow(code: AuthorizationCode): AuthorizationCodeTable {
  return {
    code_hash: code.codeHash,
    client_id: code.clientId,
    user_key: code.userKey,
    redirect_uri: code.redirectUri,
    redirect_uri_included: toFlag(code.redirectUriIncluded !== false),
    scopes: toJson(code.scopes),
    resources: toOptionalListJson(code.resources),
    code_challenge: code.codeChallenge,
    session_id: code.sessionId,
    openid: toOpenIdJson(code.openid),
    created_at: toMs(code.createdAt),
    expires_at: toMs(code.expiresAt),
    consumed_at: toMsOrNull(code.consumedAt),
    grant_id: code.grantId,
  };
}

function fromRow(row: Selectable<AuthorizationCodeTable>): AuthorizationCode {
  return {
    codeHash: row.code_hash,
    clientId: row.client_id,
    userKey: row.user_key,
    redirectUri: row.redirect_uri,
    // Absent means included (docs/decisions/0182).
    ...(Number(row.redirect_uri_included) === 0 ? { redirectUriIncluded: false } : {}),
    scopes: fromJson<string[]>(row.scopes),
    ...optionalList('resources', row.resources),
    codeChallenge: row.code_challenge,
    sessionId: row.session_id,
    ...openIdField(row.openid),
    createdAt: fromMs(row.created_at),
    expiresAt: fromMs(row.expires_at),
    consumedAt: fromMsOrNull(row.consumed_at),
    grantId: row.grant_id,
  };
}
