import type { Membership, User } from '../domain/model.js';
import type { Clock } from '../ports/clock.js';
import type { AccountRepository, UserRepository } from './ports.js';
import { createReadThroughCache, type ReadThroughCacheOptions } from '../caching/read-through-cache.js';

/** `ttlMs`: how long a user and their memberships read from the repository are served from memory; `maxEntries`: at most this many users are kept. */
export type UserCacheOptions = ReadThroughCacheOptions;

/** The bound of the reference server (docs/decisions/0079-current-user-cached-in-memory.md). */
export const DEFAULT_USER_CACHE: UserCacheOptions = { ttlMs: 5_000, maxEntries: 10_000 };

type UserWithMemberships = { user: User; memberships: Membership[] };

/**
 * Wraps the users and accounts repositories so that `users.findWithMemberships` (what
 * `GET /identity/v1/Users/me` shows, read on every call) serves a user it read for `ttlMs`
 * (docs/decisions/0079-current-user-cached-in-memory.md). Every other read goes to the repository,
 * and nothing of a token's validity is cached: the bearer check still reads the grant each time.
 *
 * A change made through the returned repositories (a membership added or its role changed, a
 * password or phone number changed) drops that user's entry, and a read that was under way while a
 * change was made is not kept: **the instance that made a change sees it at once**. A change made
 * elsewhere (another instance, the CLI in another process) is seen within `ttlMs`. An unknown user
 * is never cached. The values served are frozen, so no caller can change what the next one sees.
 *
 * @example
 * const { users, accounts } = cachedUserRepositories(storage.repositories, systemClock, DEFAULT_USER_CACHE);
 * const repositories = { ...storage.repositories, users, accounts };
 * const product = createProductApi({ gatehouse: createGatehouse({ repositories, settings, clock }), repositories });
 * await product.currentUser(userKey); // read from the repository
 * await product.currentUser(userKey); // from memory for 5 s, unless changed through `users` or `accounts`
 */
export function cachedUserRepositories(
  repositories: { users: UserRepository; accounts: AccountRepository },
  clock: Clock,
  options: UserCacheOptions,
): { users: UserRepository; accounts: AccountRepository } {
  const { users, accounts } = repositories;
  const cache = createReadThroughCache<UserWithMemberships>(clock, options, frozen);
  return {
    users: {
      findWithMemberships: (userKey) => cache.read(userKey, () => users.findWithMemberships(userKey)),
      create: (user) => cache.change(user.userKey, () => users.create(user)),
      updatePasswordHash: (userKey, passwordHash, updateOptions) => cache.change(userKey, () => users.updatePasswordHash(userKey, passwordHash, updateOptions)),
      addPhoneNumber: (userKey, phoneNumber) => cache.change(userKey, () => users.addPhoneNumber(userKey, phoneNumber)),
      findByKey: (userKey) => users.findByKey(userKey),
      findByEmail: (email) => users.findByEmail(email),
      list: (page) => users.list(page),
      setDisabled: (userKey, at) => cache.change(userKey, () => users.setDisabled(userKey, at)),
      delete: (userKey) => cache.change(userKey, () => users.delete(userKey)),
      findByPhoneNumber: (phoneNumber) => users.findByPhoneNumber(phoneNumber),
      listPhoneNumbers: (userKey) => users.listPhoneNumbers(userKey),
    },
    accounts: {
      setMembership: (accountKey, userKey, role) => cache.change(userKey, () => accounts.setMembership(accountKey, userKey, role)),
      create: (account) => accounts.create(account),
      findByKey: (accountKey) => accounts.findByKey(accountKey),
      findRole: (accountKey, userKey) => accounts.findRole(accountKey, userKey),
    },
  };
}

/** A value shared between requests: frozen, so that no caller can change what the next one sees. */
function frozen(value: UserWithMemberships): UserWithMemberships {
  for (const membership of value.memberships) {
    Object.freeze(membership.account);
    Object.freeze(membership);
  }
  Object.freeze(value.memberships);
  Object.freeze(value.user);
  return Object.freeze(value);
}
