import type { SigningKey, SigningKeyRepository } from '@gatehouse/core';
import type { Kysely, Selectable } from 'kysely';
import { affected, fromJson, fromMs, fromMsOrNull, toJson, toMs, toMsOrNull } from '../encoding.js';
import type { Database, SigningKeyTable } from '../schema.js';

export function createSigningKeyRepository(db: Kysely<Database>): SigningKeyRepository {
  return {
    async list() {
      const rows = await db.selectFrom('signing_keys').selectAll().orderBy('created_at').orderBy('kid').execute();
      return rows.map(fromRow);
    },

    async save(key) {
      await db
        .insertInto('signing_keys')
        .values({
          kid: key.kid,
          alg: key.alg,
          public_jwk: toJson(key.publicJwk),
          private_jwk: toJson(key.privateJwk),
          created_at: toMs(key.createdAt),
          retired_at: toMsOrNull(key.retiredAt),
        })
        .execute();
    },

    async retire(kid, at) {
      await db.updateTable('signing_keys').set({ retired_at: toMs(at) }).where('kid', '=', kid).where('retired_at', 'is', null).execute();
    },

    async purgeRetiredBefore(before) {
      const result = await db.deleteFrom('signing_keys').where('retired_at', '<', toMs(before)).executeTakeFirst();
      return affected(result.numDeletedRows);
    },
  };
}

function fromRow(row: Selectable<SigningKeyTable>): SigningKey {
  return {
    kid: row.kid,
    alg: row.alg as SigningKey['alg'],
    publicJwk: fromJson<Record<string, unknown>>(row.public_jwk),
    privateJwk: fromJson<Record<string, unknown>>(row.private_jwk),
    createdAt: fromMs(row.created_at),
    retiredAt: fromMsOrNull(row.retired_at),
  };
}
