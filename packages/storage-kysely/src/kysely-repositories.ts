import type { Repositories } from '@gatehouse/core';
import type { Kysely } from 'kysely';
import type { StorageDialect } from './dialect.js';
import { createAccountRepository } from './repositories/accounts.js';
import { createAttributeRepository } from './repositories/attributes.js';
import { createClientRepository } from './repositories/clients.js';
import { createAuthorizationCodeRepository } from './repositories/codes.js';
import { createConsentRepository } from './repositories/consents.js';
import { createGrantRepository } from './repositories/grants.js';
import { createInteractionRepository } from './repositories/interactions.js';
import { createMessageRepository } from './repositories/messages.js';
import { createRefreshTokenRepository } from './repositories/refresh-tokens.js';
import { createSessionRepository } from './repositories/sessions.js';
import { createSigningKeyRepository } from './repositories/signing-keys.js';
import { createUserRepository } from './repositories/users.js';
import type { Database } from './schema.js';
import { encryptSigningKeys } from './key-encryption.js';
import { userTablesOff } from './user-tables-off.js';

/** What the storages' options change in the repositories. */
export interface KyselyRepositoryOptions {
  /**
   * Private signing keys are stored encrypted under this secret (`encryptSigningKeys`); without it
   * they are stored as JWK, and an encrypted one fails to load with an error naming `signingKeySecretName`.
   */
  signingKeySecret?: string | undefined;
  /** How errors name the secret (default `signingKeySecret`; the reference server: `GATEHOUSE_KEY_SECRET`). */
  signingKeySecretName?: string | undefined;
  /**
   * False when the database has no user tables (`migrateToLatest`'s `userTables`): the users,
   * accounts, attributes and messages repositories then reject every call with `UserTablesOffError`.
   */
  userTables?: boolean | undefined;
}

/**
 * Every repository of the core on a kysely database, for any dialect that has the schema of
 * `migrateToLatest`. Only `dialect` differs between SQLite and PostgreSQL.
 *
 * @example
 * const repositories = createKyselyRepositories(db, sqliteDialect, { signingKeySecret: process.env.SIGNING_KEY_SECRET });
 */
export function createKyselyRepositories(db: Kysely<Database>, dialect: StorageDialect, options: KyselyRepositoryOptions = {}): Repositories {
  const userTables = options.userTables !== false;
  return {
    clients: createClientRepository(db, dialect),
    users: userTables ? createUserRepository(db, dialect) : userTablesOff('users'),
    accounts: userTables ? createAccountRepository(db) : userTablesOff('accounts'),
    codes: createAuthorizationCodeRepository(db, dialect, { userTables }),
    grants: createGrantRepository(db, dialect),
    refreshTokens: createRefreshTokenRepository(db, dialect, { userTables }),
    sessions: createSessionRepository(db),
    interactions: createInteractionRepository(db, dialect),
    consents: createConsentRepository(db),
    attributes: userTables ? createAttributeRepository(db, dialect) : userTablesOff('attributes'),
    messages: userTables ? createMessageRepository(db) : userTablesOff('messages'),
    signingKeys: encryptSigningKeys(createSigningKeyRepository(db), options.signingKeySecret, options.signingKeySecretName === undefined ? {} : { secretName: options.signingKeySecretName }),
  };
}
