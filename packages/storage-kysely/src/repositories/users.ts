import { DomainError, type Membership, type Role, type User, type UserRepository } from '@gatehouse/core';
import type { Kysely, Selectable } from 'kysely';
import type { StorageDialect } from '../dialect.js';
import { affected, changed, fold, fromMs, toMs } from '../encoding.js';
import { param, reusableQuery } from '../reusable-query.js';
import type { Database, UserTable } from '../schema.js';

const findUser = reusableQuery((db: Kysely<Database>) => db.selectFrom('users').selectAll().where('user_key', '=', param('userKey')));
/** One row per membership (or one with null membership columns): the user's columns, then the account's and the role. */
const findUserWithMemberships = reusableQuery((db: Kysely<Database>) =>
  db
    .selectFrom('users')
    .leftJoin('memberships', 'memberships.user_key', 'users.user_key')
    .leftJoin('accounts', 'accounts.account_key', 'memberships.account_key')
    .selectAll('users')
    .select(['accounts.account_key as membership_account_key', 'accounts.name as membership_account_name', 'memberships.role as membership_role'])
    .where('users.user_key', '=', param('userKey'))
    .orderBy('accounts.account_key'),
);

export function createUserRepository(db: Kysely<Database>, dialect: StorageDialect): UserRepository {
  return {
    async create(user) {
      try {
        await db
          .insertInto('users')
          .values({
            user_key: user.userKey,
            email: user.email,
            email_folded: fold(user.email),
            given_name: user.givenName,
            family_name: user.familyName,
            locale: user.locale,
            password_hash: user.passwordHash,
            disabled_at: user.disabledAt === undefined ? null : toMs(user.disabledAt),
          })
          .execute();
      } catch (error) {
        // The unique index on the folded e-mail decides, so two concurrent sign-ups cannot both win.
        if (dialect.isUniqueViolation(error)) throw new DomainError('conflict', 'A user with this e-mail exists.', { field: 'email', cause: error });
        throw error;
      }
    },

    async findByKey(userKey) {
      const [row] = (await findUser(db, { userKey })).rows;
      return row && fromRow(row);
    },

    async findWithMemberships(userKey) {
      const { rows } = await findUserWithMemberships(db, { userKey });
      const [first] = rows;
      if (!first) return undefined;
      const memberships: Membership[] = [];
      for (const row of rows) {
        // A membership cannot outlive its account (foreign key): an account key means a membership.
        if (row.membership_account_key !== null && row.membership_account_name !== null && row.membership_role !== null) {
          memberships.push({ account: { accountKey: row.membership_account_key, name: row.membership_account_name }, role: row.membership_role as Role });
        }
      }
      return { user: fromRow(first), memberships };
    },

    async findByEmail(email) {
      const row = await db.selectFrom('users').selectAll().where('email_folded', '=', fold(email)).executeTakeFirst();
      return row && fromRow(row);
    },

    async setDisabled(userKey, at) {
      const result = await db.updateTable('users').set({ disabled_at: at === null ? null : toMs(at) }).where('user_key', '=', userKey).executeTakeFirst();
      return changed(result.numUpdatedRows);
    },

    async list({ limit, offset }) {
      const rows = await db.selectFrom('users').selectAll().orderBy('email_folded').orderBy('user_key').limit(limit).offset(offset).execute();
      return rows.map(fromRow);
    },

    async updatePasswordHash(userKey, passwordHash, options = {}) {
      let update = db.updateTable('users').set({ password_hash: passwordHash }).where('user_key', '=', userKey);
      if (options.ifCurrent !== undefined) update = update.where('password_hash', '=', options.ifCurrent);
      const result = await update.executeTakeFirst();
      return changed(result.numUpdatedRows);
    },

    async addPhoneNumber(userKey, phoneNumber) {
      try {
        await db
          .insertInto('user_phone_numbers')
          .values({ user_key: userKey, phone_number: phoneNumber })
          .onConflict((conflict) => conflict.columns(['user_key', 'phone_number']).doNothing())
          .execute();
      } catch (error) {
        // The unique index on the number alone (docs/decisions/0006-one-owner-per-phone-number.md)
        // decides, so two users claiming one number at once cannot both have it.
        if (dialect.isUniqueViolation(error)) throw new DomainError('conflict', 'The phone number belongs to another user.', { field: 'phone', cause: error });
        throw error;
      }
    },

    async findByPhoneNumber(phoneNumber) {
      const row = await db
        .selectFrom('user_phone_numbers')
        .innerJoin('users', 'users.user_key', 'user_phone_numbers.user_key')
        .selectAll('users')
        .where('user_phone_numbers.phone_number', '=', phoneNumber)
        .executeTakeFirst();
      return row && fromRow(row);
    },

    async listPhoneNumbers(userKey) {
      const rows = await db.selectFrom('user_phone_numbers').select('phone_number').where('user_key', '=', userKey).orderBy('phone_number').execute();
      return rows.map((row) => row.phone_number);
    },

    async delete(userKey) {
      // One transaction: the user's rows in the user tables go together or not at
      // all (docs/decisions/0158-deleting-a-user.md). Each is deleted by name, not left to the
      // foreign keys' cascades, so the counts are exact and a connection without them keeps the rule.
      return db.transaction().execute(async (trx) => {
        const numbers = trx.selectFrom('user_phone_numbers').select('phone_number').where('user_key', '=', userKey);
        // The messages first, while the user's numbers still name them.
        const messages = await trx
          .deleteFrom('messages')
          .where((eb) => eb.or([eb('author_user_key', '=', userKey), eb('owner_phone_number', 'in', numbers)]))
          .executeTakeFirst();
        const attributeValues = await trx.deleteFrom('user_attribute_values').where('user_key', '=', userKey).executeTakeFirst();
        const memberships = await trx.deleteFrom('memberships').where('user_key', '=', userKey).executeTakeFirst();
        const phoneNumbers = await trx.deleteFrom('user_phone_numbers').where('user_key', '=', userKey).executeTakeFirst();
        const user = await trx.deleteFrom('users').where('user_key', '=', userKey).executeTakeFirst();
        if (affected(user.numDeletedRows) === 0) return undefined;
        return {
          phoneNumbers: affected(phoneNumbers.numDeletedRows),
          memberships: affected(memberships.numDeletedRows),
          attributeValues: affected(attributeValues.numDeletedRows),
          messages: affected(messages.numDeletedRows),
        };
      });
    },
  };
}

function fromRow(row: Selectable<UserTable>): User {
  return {
    userKey: row.user_key,
    email: row.email,
    givenName: row.given_name,
    familyName: row.family_name,
    locale: row.locale,
    passwordHash: row.password_hash,
    ...(row.disabled_at === null || row.disabled_at === undefined ? {} : { disabledAt: fromMs(row.disabled_at) }),
  };
}
