import { createScryptPasswordHasher, randomIdGenerator } from '../crypto.js';
import type { Gatehouse } from '../gatehouse-api.js';
import type { IdGenerator } from '../ports/ids.js';
import type { AuditLog, MessageTransport, PasswordHasher } from '../ports/services.js';
import * as attributes from './attributes.js';
import type { ProductDeps } from './deps.js';
import * as lookups from './lookups.js';
import * as messages from './messages.js';
import * as operator from './operator.js';
import type { ProductRepositories } from './ports.js';
import type { ProductApi } from './product-api.js';
import * as users from './users.js';

/**
 * What `createProductApi` binds the product use cases to (docs/decisions/0161).
 *
 * @example
 * const options: ProductApiOptions = { gatehouse, repositories: storage.repositories, passwords, audit, transport };
 */
export interface ProductApiOptions {
  /**
   * The OAuth part (`createGatehouse`): its settings and clock are the product's, and what a
   * product decision does to a user's sessions and grants (a password change, a disabled user)
   * goes through it (`endUserAccess`), never straight to the OAuth repositories.
   */
  gatehouse: Gatehouse;
  /** The product part of the storage (a whole `Repositories` will do). */
  repositories: ProductRepositories;
  ids?: IdGenerator;
  /**
   * The password hasher of new passwords: the one given to `createGatehouse`, which checks them
   * at sign-in (default: scrypt, as `createGatehouse`'s).
   */
  passwords?: PasswordHasher;
  /** Where sent messages go; the default records them as SENT without delivering. */
  transport?: MessageTransport;
  /** Where the product's audit events go (`user.enabled`); the one given to `createGatehouse`. Default: none. */
  audit?: AuditLog;
}

/**
 * The product APIs bound to their ports, beside a gatehouse (docs/decisions/0161): users, accounts,
 * phone numbers, attribute names, messages and the operator's commands on users.
 *
 * @example
 * import { createGatehouse, createProductApi } from '@gatehouse/core';
 *
 * const gatehouse = createGatehouse({ repositories: storage.repositories, settings, clock, audit, passwords });
 * const product = createProductApi({ gatehouse, repositories: storage.repositories, audit, passwords, transport });
 * const user = await product.createUser({ email: 'ada@example.com', password: 'correct horse' });
 */
export function createProductApi(options: ProductApiOptions): ProductApi {
  const deps: ProductDeps = {
    repos: options.repositories,
    gatehouse: options.gatehouse,
    settings: options.gatehouse.settings,
    clock: options.gatehouse.clock,
    ids: options.ids ?? randomIdGenerator,
    passwords: options.passwords ?? createScryptPasswordHasher(),
    transport: options.transport ?? { send: async () => 'SENT' },
    audit: options.audit ?? { record: () => undefined },
  };
  return {
    // Users and accounts
    createAccount: (input) => users.createAccount(deps, input),
    createUser: (input) => users.createUser(deps, input),
    changePassword: (input) => users.changePassword(deps, input),
    setMembership: (input) => users.setMembership(deps, input),
    addPhoneNumber: (input) => users.addPhoneNumber(deps, input),
    currentUser: (userKey) => users.currentUser(deps, userKey),
    findUserByEmail: (email) => lookups.findUserByEmail(deps, email),
    findAccount: (accountKey) => lookups.findAccount(deps, accountKey),
    listPhoneNumbers: (userKey) => lookups.listPhoneNumbers(deps, userKey),
    findPhoneNumberOwner: (phoneNumber) => lookups.findPhoneNumberOwner(deps, phoneNumber),
    // Attribute administration
    createAttribute: (input) => attributes.createAttribute(deps, input),
    listAttributes: (input) => attributes.listAttributes(deps, input),
    getAttribute: (input) => attributes.getAttribute(deps, input),
    renameAttribute: (input) => attributes.renameAttribute(deps, input),
    deleteAttribute: (input) => attributes.deleteAttribute(deps, input),
    setUserAttributes: (input) => attributes.setUserAttributes(deps, input),
    getUserAttributes: (input) => attributes.getUserAttributes(deps, input),
    // Messaging
    sendMessage: (userKey, input) => messages.sendMessage(deps, userKey, input),
    listMessages: (userKey, input) => messages.listMessages(deps, userKey, input),
    // The operator's command line
    listUsers: (page) => operator.listUsers(deps, page),
    disableUser: (userKey) => operator.disableUser(deps, userKey),
    enableUser: (userKey) => operator.enableUser(deps, userKey),
    deleteUser: (userKey, options) => operator.deleteUser(deps, userKey, options),
  };
}
