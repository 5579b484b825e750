import type { User } from '../domain/model.js';
import type { Deps } from '../deps.js';
import type { UserRepository } from '../product/ports.js';
import type { StandardClaims, UserDirectory, UserProfile } from '../ports/users.js';

/** The profile part of a Gatehouse-owned user (never its password hash). */
export function profileOf(user: Pick<User, 'userKey' | 'email' | 'givenName' | 'familyName'>): UserProfile {
  return { userKey: user.userKey, email: user.email, givenName: user.givenName, familyName: user.familyName };
}

/**
 * The default `UserDirectory`: Gatehouse's own users repository, logins being e-mail addresses
 * (compared ignoring case). Its OpenID Connect claims (docs/decisions/0130): `profile` gives
 * `name`, `given_name`, `family_name` and `locale`; `email` the e-mail address, not said to be
 * verified (Gatehouse does not verify addresses); `phone` the user's first phone number, when the
 * repository lists them.
 *
 * @example
 * const directory = ownUserDirectory(repositories.users);
 * await directory.findByLogin('ada@example.com'); // { userKey, email, givenName, familyName }
 */
export function ownUserDirectory(users: Pick<UserRepository, 'findByKey' | 'findByEmail'> & Partial<Pick<UserRepository, 'listPhoneNumbers'>>): UserDirectory {
  return {
    // A disabled user is no longer in the directory (docs/decisions/0153): no host login, no claims.
    claimsFor: async (userKey, scopes) => {
      const user = await users.findByKey(userKey);
      if (!user || user.disabledAt !== undefined) return undefined;
      const phone = scopes.includes('phone') && users.listPhoneNumbers ? (await users.listPhoneNumbers(userKey))[0] : undefined;
      return { ...claimsOfProfile(profileOf(user), user.locale), email: user.email, ...(phone === undefined ? {} : { phone_number: phone }) };
    },
    findByKey: async (userKey) => {
      const user = await users.findByKey(userKey);
      return user && user.disabledAt === undefined ? profileOf(user) : undefined;
    },
    findByLogin: async (login) => {
      const user = await users.findByEmail(login);
      return user && user.disabledAt === undefined ? profileOf(user) : undefined;
    },
  };
}

/** The user directory of `deps`: the embedder's, or Gatehouse's own users. */
export function userDirectoryOf(deps: Pick<Deps, 'repos' | 'userDirectory'>): UserDirectory {
  return deps.userDirectory ?? ownUserDirectory(ownUsersOf(deps));
}

/**
 * Gatehouse's own users, which a gatehouse without a `userDirectory` has (`createGatehouse` checks
 * it; docs/decisions/0161).
 */
export function ownUsersOf(deps: Pick<Deps, 'repos'>): UserRepository {
  if (deps.repos.users === undefined) throw new Error('This gatehouse has no users repository: it was given a userDirectory.');
  return deps.repos.users;
}

/** A loose check that a login name is an e-mail address (it is then the `email` claim of a directory without `claimsFor`). */
const EMAIL_ADDRESS = /^[^\s@]+@[^\s@]+$/;

/**
 * The claims a user profile gives (OIDC Core §5.1): names, `locale` when known, and the login name
 * as `email` when it is an e-mail address (never `email_verified`). What a directory without
 * `claimsFor` answers.
 *
 * @example
 * claimsOfProfile({ userKey: 'u1', email: 'ada@example.com', givenName: 'Ada', familyName: 'Lovelace' });
 * // { name: 'Ada Lovelace', given_name: 'Ada', family_name: 'Lovelace', email: 'ada@example.com' }
 */
export function claimsOfProfile(profile: UserProfile, locale?: string): StandardClaims {
  const name = `${profile.givenName} ${profile.familyName}`.trim();
  return {
    ...(name === '' ? {} : { name }),
    ...(profile.givenName === '' ? {} : { given_name: profile.givenName }),
    ...(profile.familyName === '' ? {} : { family_name: profile.familyName }),
    ...(locale === undefined || locale === '' ? {} : { locale }),
    ...(EMAIL_ADDRESS.test(profile.email) ? { email: profile.email } : {}),
  };
}
