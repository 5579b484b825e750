/**
 * The mark of a repository placeholder whose every call rejects: the user repositories of a storage
 * opened without Gatehouse's own user tables (docs/decisions/0146-only-the-tables-a-host-uses.md).
 * `createGatehouse` counts a `users` so marked as absent, so a gatehouse with neither a
 * `userDirectory` nor Gatehouse's users is refused at start-up instead of failing at the first
 * sign-in (docs/decisions/0201-no-users-refused-at-start-up.md).
 *
 * @example
 * const placeholder = new Proxy({}, { get: (_target, name) => (name === ABSENT_REPOSITORY ? true : () => Promise.reject(new Error('no such table'))) });
 * createGatehouse({ repositories: { ...oauthRepositories, users: placeholder }, settings, clock }); // throws: no users to sign in
 */
export const ABSENT_REPOSITORY: unique symbol = Symbol.for('@gatehouse/absent-repository');

/**
 * Whether `repository` is missing, or a placeholder marked `ABSENT_REPOSITORY`.
 *
 * @example
 * if (isAbsentRepository(storage.repositories.users)) console.warn('no user tables: give createGatehouse a userDirectory');
 */
export function isAbsentRepository(repository: object | undefined): boolean {
  return repository === undefined || (repository as Record<symbol, unknown>)[ABSENT_REPOSITORY] === true;
}
