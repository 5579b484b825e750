import type { User } from '../domain/model.js';
import type { Deps } from '../deps.js';
import type { UserRepository } from '../ports/repositories.js';
import type { UserDirectory, UserProfile } from '../ports/users.js';

/** The profile part of a Gatehouse-owned user (never its password hash). */
export function profileOf(user: Pick<User, 'userKey' | 'email' | 'givenName' | 'familyName'>): UserProfile {
  return { userKey: user.userKey, email: user.email, givenName: user.givenName, familyName: user.familyName };
}

/**
 * The default `UserDirectory`: Gatehouse's own users repository, logins being e-mail addresses
 * (compared ignoring case).
 *
 * @example
 * const directory = ownUserDirectory(repositories.users);
 * await directory.findByLogin('ada@example.com'); // { userKey, email, givenName, familyName }
 */
export function ownUserDirectory(users: Pick<UserRepository, 'findByKey' | 'findByEmail'>): UserDirectory {
  return {
    findByKey: async (userKey) => {
      const user = await users.findByKey(userKey);
      return user && profileOf(user);
    },
    findByLogin: async (login) => {
      const user = await users.findByEmail(login);
      return user && profileOf(user);
    },
  };
}

/** The user directory of `deps`: the embedder's, or Gatehouse's own users. */
export function userDirectoryOf(deps: Pick<Deps, 'repos' | 'userDirectory'>): UserDirectory {
  return deps.userDirectory ?? ownUserDirectory(deps.repos.users);
}
