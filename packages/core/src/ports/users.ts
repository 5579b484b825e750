/**
 * What Gatehouse needs to know of a user: who (`userKey`, the `sub` of tokens), the login name
 * shown on its pages and carried as `principal` (an e-mail address for Gatehouse's own users),
 * and names.
 */
export interface UserProfile {
  userKey: string;
  /** The login name: an e-mail address for Gatehouse's own users, whatever the host uses otherwise. */
  email: string;
  givenName: string;
  familyName: string;
}

/**
 * Where Gatehouse finds users (docs/decisions/0091). By default its own users repository; an
 * application with users of its own provides this instead, and Gatehouse then need not own
 * passwords. Records Gatehouse keeps (sessions, codes, grants) refer to users by `userKey`: when
 * the host deletes a user, it calls `gatehouse.forgetUser(userKey)` once the directory no longer
 * finds them, so their access tokens stop at once and those records go (docs/decisions/0140).
 *
 * @example
 * const userDirectory: UserDirectory = {
 *   findByKey: async (userKey) => toProfile(await db.users.byId(userKey)),
 *   findByLogin: async (login) => toProfile(await db.users.byEmail(login)),
 * };
 * createGatehouse({ repositories, settings, clock, userDirectory, passwordCheck });
 */
export interface UserDirectory {
  findByKey(userKey: string): Promise<UserProfile | undefined>;
  /** The user who signs in as `login` (the login form's `email` field). */
  findByLogin(login: string): Promise<UserProfile | undefined>;
  /**
   * Optional, for OpenID Connect (SPEC §9; docs/decisions/0130): the user's standard claims (OIDC
   * Core §5.1) for the scopes granted (`profile`, `email`, `phone`, `address`), as the host knows
   * them; undefined when the user is gone. Gatehouse keeps only the claims those scopes allow
   * (§5.4) and sets `sub` itself (the `userKey`). Say `email_verified: true` only for an address
   * the host has verified. Without it, `profile` gives the names of `findByKey` and `email` its
   * login name when that is an e-mail address.
   *
   * @example
   * claimsFor: async (userKey, scopes) => {
   *   const user = await db.users.byId(userKey);
   *   return user && { name: user.fullName, email: user.email, email_verified: user.emailConfirmed, locale: user.language };
   * },
   */
  claimsFor?(userKey: string, scopes: readonly string[]): Promise<StandardClaims | undefined>;
}

/** OIDC Core §5.1.1: a postal address. */
export interface AddressClaim {
  formatted?: string;
  street_address?: string;
  locality?: string;
  region?: string;
  postal_code?: string;
  country?: string;
}

/**
 * OIDC Core §5.1 standard claims (all optional; `sub` is Gatehouse's). Dates as §5.1 says:
 * `birthdate` `YYYY-MM-DD`, `updated_at` seconds since the epoch.
 */
export interface StandardClaims {
  name?: string;
  given_name?: string;
  family_name?: string;
  middle_name?: string;
  nickname?: string;
  preferred_username?: string;
  profile?: string;
  picture?: string;
  website?: string;
  gender?: string;
  birthdate?: string;
  zoneinfo?: string;
  locale?: string;
  updated_at?: number;
  email?: string;
  email_verified?: boolean;
  phone_number?: string;
  phone_number_verified?: boolean;
  address?: AddressClaim;
}

/**
 * Checks a password for Gatehouse's login page: the user's key when `password` is right for
 * `login`, undefined otherwise (whichever was wrong). Should take as long for an unknown login as
 * for a known one. By default Gatehouse's own users repository and password hasher.
 *
 * @example
 * const passwordCheck: PasswordCheck = {
 *   verify: async (login, password) => {
 *     const user = await db.users.byEmail(login);
 *     return (await bcrypt.compare(password, user?.hash ?? DECOY_HASH)) && user ? user.id : undefined;
 *   },
 * };
 */
export interface PasswordCheck {
  verify(login: string, password: string): Promise<string | undefined>;
}
