import { attributeNameKey, type AttributeRepository, type CreateAttributeResult, type RenameAttributeResult } from '@gatehouse/core';
import type { Kysely } from 'kysely';
import type { StorageDialect } from '../dialect.js';
import { changed } from '../encoding.js';
import { inTransaction, param, reusableQuery } from '../reusable-query.js';
import type { Database } from '../schema.js';

const attributePage = reusableQuery((db: Kysely<Database>) =>
  db
    .selectFrom('attribute_names')
    .select(['attribute_key', 'name'])
    .where('account_key', '=', param('accountKey'))
    .orderBy('position')
    .limit(param<number>('limit'))
    .offset(param<number>('offset')),
);
const attributeCount = reusableQuery((db: Kysely<Database>) =>
  db
    .selectFrom('attribute_names')
    .select((eb) => eb.fn.countAll<number | string>().as('total'))
    .where('account_key', '=', param('accountKey')),
);

/** The attribute key, if `key` names an attribute of the account. */
const findAttributeKey = reusableQuery((db: Kysely<Database>) =>
  db.selectFrom('attribute_names').select('attribute_key').where('account_key', '=', param('accountKey')).where('attribute_key', '=', param('key')),
);
const deleteUserValue = reusableQuery((db: Kysely<Database>) =>
  db
    .deleteFrom('user_attribute_values')
    .where('account_key', '=', param('accountKey'))
    .where('user_key', '=', param('userKey'))
    .where('attribute_key', '=', param('key')),
);
const upsertUserValue = reusableQuery((db: Kysely<Database>) =>
  db
    .insertInto('user_attribute_values')
    .values({ account_key: param('accountKey'), user_key: param('userKey'), attribute_key: param('key'), value: param('value') })
    .onConflict((conflict) => conflict.columns(['account_key', 'user_key', 'attribute_key']).doUpdateSet({ value: param('value') })),
);

export function createAttributeRepository(db: Kysely<Database>, dialect: StorageDialect): AttributeRepository {
  const nameTaken = async (accountKey: string, folded: string): Promise<boolean> =>
    (await db
      .selectFrom('attribute_names')
      .select('attribute_key')
      .where('account_key', '=', accountKey)
      .where('name_folded', '=', folded)
      .executeTakeFirst()) !== undefined;

  return {
    async create(accountKey, attribute, maxPerAccount): Promise<CreateAttributeResult> {
      const folded = attributeNameKey(attribute.name);
      try {
        // Uniqueness, the limit and the insert in one transaction, under the account's write lock.
        return await inTransaction(db, async (trx): Promise<CreateAttributeResult> => {
          await dialect.lock(trx, `attributes:${accountKey}`);
          const names = trx.selectFrom('attribute_names').where('account_key', '=', accountKey);
          if (await names.select('attribute_key').where('name_folded', '=', folded).executeTakeFirst()) return 'duplicate-name';
          const { total, last } = await names
            .select((eb) => [eb.fn.countAll<number | string>().as('total'), eb.fn.max<number | null>('position').as('last')])
            .executeTakeFirstOrThrow();
          if (Number(total) >= maxPerAccount) return 'limit-reached';
          await trx
            .insertInto('attribute_names')
            .values({ account_key: accountKey, attribute_key: attribute.key, name: attribute.name, name_folded: folded, position: Number(last ?? 0) + 1 })
            .execute();
          return 'created';
        });
      } catch (error) {
        // A concurrent rename took the name between the check and the insert: the unique index said no.
        if (dialect.isUniqueViolation(error) && (await nameTaken(accountKey, folded))) return 'duplicate-name';
        throw error;
      }
    },

    async list(accountKey, page) {
      const [{ rows }, count] = await Promise.all([
        attributePage(db, { accountKey, limit: page.limit, offset: page.offset }),
        attributeCount(db, { accountKey }),
      ]);
      return { results: rows.map((row) => ({ key: row.attribute_key, name: row.name })), total: Number(count.rows[0]?.total ?? 0) };
    },

    async find(accountKey, key) {
      const row = await db
        .selectFrom('attribute_names')
        .select(['attribute_key', 'name'])
        .where('account_key', '=', accountKey)
        .where('attribute_key', '=', key)
        .executeTakeFirst();
      return row && { key: row.attribute_key, name: row.name };
    },

    async rename(accountKey, key, name): Promise<RenameAttributeResult> {
      const folded = attributeNameKey(name);
      try {
        const result = await db
          .updateTable('attribute_names')
          .set({ name, name_folded: folded })
          .where('account_key', '=', accountKey)
          .where('attribute_key', '=', key)
          .executeTakeFirst();
        return changed(result.numUpdatedRows) ? 'renamed' : 'not-found';
      } catch (error) {
        // The unique index on (account, folded name) refuses a name another attribute has.
        if (dialect.isUniqueViolation(error)) return 'duplicate-name';
        throw error;
      }
    },

    async delete(accountKey, key) {
      return inTransaction(db, async (trx) => {
        await dialect.lock(trx, `attributes:${accountKey}`);
        await trx.deleteFrom('user_attribute_values').where('account_key', '=', accountKey).where('attribute_key', '=', key).execute();
        const result = await trx.deleteFrom('attribute_names').where('account_key', '=', accountKey).where('attribute_key', '=', key).executeTakeFirst();
        return changed(result.numDeletedRows);
      });
    },

    async setUserValues(accountKey, userKey, changes) {
      if (changes.length === 0) return { unknownKeys: [] };
      // SQLite's storage puts its synchronous transaction in this one's place when the connection
      // is free (docs/decisions/0067-synchronous-sqlite-transactions.md, 0162).
      return inTransaction(db, async (trx) => {
        await dialect.lock(trx, `attributes:${accountKey}`);
        const keys = [...new Set(changes.map((change) => change.key))];
        const known = new Set(
          (await trx.selectFrom('attribute_names').select('attribute_key').where('account_key', '=', accountKey).where('attribute_key', 'in', keys).execute()).map(
            (row) => row.attribute_key,
          ),
        );
        const unknownKeys = changes.map((change) => change.key).filter((changeKey) => !known.has(changeKey));
        // All or nothing: an unknown key means no write at all.
        if (unknownKeys.length > 0) return { unknownKeys };
        for (const { key, value } of changes) {
          if (value === null) await deleteUserValue(trx, { accountKey, userKey, key });
          else await upsertUserValue(trx, { accountKey, userKey, key, value });
        }
        return { unknownKeys: [] };
      });
    },

    async listUserValues(accountKey, userKey) {
      const rows = await db
        .selectFrom('user_attribute_values as v')
        .innerJoin('attribute_names as n', (join) => join.onRef('n.account_key', '=', 'v.account_key').onRef('n.attribute_key', '=', 'v.attribute_key'))
        .select(['n.attribute_key', 'n.name', 'v.value'])
        .where('v.account_key', '=', accountKey)
        .where('v.user_key', '=', userKey)
        .orderBy('n.position')
        .execute();
      return rows.map((row) => ({ key: row.attribute_key, name: row.name, value: row.value }));
    },
  };
}

/**
 * `setUserValues`'s statements, for a dialect's own form of it (SQLite's synchronous transaction,
 * docs/decisions/0067): values `{ accountKey, key }` (`findAttributeKey`), `{ accountKey, userKey,
 * key }` (`deleteUserValue`), and `value` too (`upsertUserValue`).
 */
export const attributeValueQueries = { findAttributeKey, deleteUserValue, upsertUserValue };
