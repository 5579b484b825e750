import type { AccountRepository, Role } from '@gatehouse/core';
import type { Kysely } from 'kysely';
import { param, reusableQuery } from '../reusable-query.js';
import type { Database } from '../schema.js';

// A membership cannot outlive its account (foreign key), so no join is needed.
const findRole = reusableQuery((db: Kysely<Database>) =>
  db.selectFrom('memberships').select('role').where('account_key', '=', param('accountKey')).where('user_key', '=', param('userKey')),
);

export function createAccountRepository(db: Kysely<Database>): AccountRepository {
  return {
    async create(account) {
      await db.insertInto('accounts').values({ account_key: account.accountKey, name: account.name }).execute();
    },

    async findByKey(accountKey) {
      const row = await db.selectFrom('accounts').selectAll().where('account_key', '=', accountKey).executeTakeFirst();
      return row && { accountKey: row.account_key, name: row.name };
    },

    async setMembership(accountKey, userKey, role) {
      await db
        .insertInto('memberships')
        .values({ account_key: accountKey, user_key: userKey, role })
        .onConflict((conflict) => conflict.columns(['account_key', 'user_key']).doUpdateSet({ role }))
        .execute();
    },

    async findRole(accountKey, userKey) {
      const [row] = (await findRole(db, { accountKey, userKey })).rows;
      return row?.role as Role | undefined;
    },
  };
}
