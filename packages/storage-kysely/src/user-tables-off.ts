import { ABSENT_REPOSITORY } from '@gatehouse/core';

/**
 * Thrown by the user repositories of a storage opened without `userTables`: the call needs
 * Gatehouse-owned users (its login page without a `userDirectory`, the portal, the product APIs),
 * whose tables this database does not have (docs/decisions/0146-only-the-tables-a-host-uses.md).
 */
export class UserTablesOffError extends Error {
  constructor(repository: string, method: string) {
    super(
      `${repository}.${method}: this storage has no tables of Gatehouse-owned users (users, accounts, attributes, messages). ` +
        'Give createGatehouse a userDirectory of your own users, or open the storage with userTables: true (migrate() then creates them).',
    );
    this.name = 'UserTablesOffError';
  }
}

/**
 * A repository whose every method rejects with `UserTablesOffError`, naming the call: what a
 * storage without the user tables puts in their place, so that a use fails with what to change
 * rather than with "no such table".
 */
export function userTablesOff<T extends object>(repository: string): T {
  return new Proxy({} as T, {
    get(_target, method) {
      // Marked absent: createGatehouse counts it as no repository (docs/decisions/0201).
      if (method === ABSENT_REPOSITORY) return true;
      // Not a thenable, and not a method of Object.prototype by mistake.
      if (typeof method !== 'string' || method === 'then' || method === 'toJSON') return undefined;
      return () => Promise.reject(new UserTablesOffError(repository, method));
    },
  });
}
