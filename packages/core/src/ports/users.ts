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
 * passwords. Records Gatehouse keeps (sessions, codes, grants) refer to users by `userKey`.
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
