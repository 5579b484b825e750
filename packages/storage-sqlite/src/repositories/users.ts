import { DomainError, type User, type UserRepository } from '@gatehouse/core';
import type { Kysely, Selectable } from 'kysely';
import type { StorageDialect } from '../dialect.js';
import { changed, fold } from '../encoding.js';
import { param, reusableQuery } from '../reusable-query.js';
import type { Database, UserTable } from '../schema.js';

const findUser = reusableQuery((db: Kysely<Database>) => db.selectFrom('users').selectAll().where('user_key', '=', param('userKey')));

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

    async findByEmail(email) {
      const row = await db.selectFrom('users').selectAll().where('email_folded', '=', fold(email)).executeTakeFirst();
      return row && fromRow(row);
    },

    async updatePasswordHash(userKey, passwordHash) {
      const result = await db.updateTable('users').set({ password_hash: passwordHash }).where('user_key', '=', userKey).executeTakeFirst();
      return changed(result.numUpdatedRows);
    },

    async addPhoneNumber(userKey, phoneNumber) {
      await db
        .insertInto('user_phone_numbers')
        .values({ user_key: userKey, phone_number: phoneNumber })
        .onConflict((conflict) => conflict.columns(['user_key', 'phone_number']).doNothing())
        .execute();
    },

    async listPhoneNumbers(userKey) {
      const rows = await db.selectFrom('user_phone_numbers').select('phone_number').where('user_key', '=', userKey).orderBy('phone_number').execute();
      return rows.map((row) => row.phone_number);
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
  };
}
