import type { User } from '../domain/model.js';
import { DomainError } from '../errors.js';
import type { ForgottenUser } from '../use-cases/forget-user.js';
import type { ProductDeps } from './deps.js';
import type { DeletedUserRecords } from './ports.js';

/**
 * The operator's views and actions on Gatehouse's own users (`gatehouse users list|disable|enable|delete`;
 * docs/operations.md "Command line for operators"). Every change is an audit event with
 * `reason: 'by the operator'`. What a user's sessions and grants become is the OAuth part's
 * (`gatehouse.endUserAccess`; docs/decisions/0161).
 */

/** The most users one page lists. */
export const MAX_USERS_PAGE = 1000;

/**
 * A page of users by e-mail, without their password hashes.
 *
 * @example
 * const first = await listUsers(deps, { limit: 100, offset: 0 });
 */
export async function listUsers(deps: Pick<ProductDeps, 'repos'>, page: { limit: number; offset: number }): Promise<Array<Omit<User, 'passwordHash'>>> {
  if (!Number.isInteger(page.limit) || page.limit < 1 || page.limit > MAX_USERS_PAGE) throw new DomainError('invalid', `The page size must be a whole number from 1 to ${MAX_USERS_PAGE}.`);
  if (!Number.isInteger(page.offset) || page.offset < 0) throw new DomainError('invalid', 'The offset must be a whole number, 0 or more.');
  // Never the password hash past the core.
  return (await deps.repos.users.list(page)).map(({ passwordHash: _omitted, ...visible }) => visible);
}

/**
 * Disables a user (docs/decisions/0153): they can no longer sign in (password or host login), every
 * session of theirs ends, their unused codes are deleted and every grant is revoked, so their
 * access tokens are refused at once and their refresh tokens stop. Disabling a disabled user
 * changes nothing more.
 *
 * @example
 * const { endedSessionIds, revokedGrantIds } = await disableUser(deps, 'u-1');
 */
export async function disableUser(deps: Pick<ProductDeps, 'repos' | 'clock' | 'gatehouse'>, userKey: string): Promise<{ endedSessionIds: string[]; revokedGrantIds: string[] }> {
  const user = await deps.repos.users.findByKey(userKey);
  if (!user) throw new DomainError('not_found', 'No such user.');
  // Disabled first: a sign-in racing this call is refused from here on.
  if (user.disabledAt === undefined) await deps.repos.users.setDisabled(userKey, deps.clock.now());
  // Then the OAuth part ends the sessions, deletes the codes in flight and revokes every grant (docs/decisions/0005, 0105).
  return deps.gatehouse.endUserAccess(userKey, { type: 'user.disabled', reason: 'by the operator' });
}

/**
 * Enables a disabled user again: they may sign in (their ended sessions and revoked grants stay so).
 *
 * @example
 * await enableUser(deps, 'u-1');
 */
export async function enableUser(deps: Pick<ProductDeps, 'repos' | 'clock' | 'audit'>, userKey: string): Promise<void> {
  const user = await deps.repos.users.findByKey(userKey);
  if (!user) throw new DomainError('not_found', 'No such user.');
  if (user.disabledAt === undefined) return;
  await deps.repos.users.setDisabled(userKey, null);
  deps.audit.record({ type: 'user.enabled', at: deps.clock.now(), userKey, reason: 'by the operator' });
}

/** What `deleteUser` deleted: the user tables' records, the authorization records, the clients. */
export interface DeletedUser extends DeletedUserRecords, ForgottenUser {
  /** The ids of the clients the user had registered (deleted only with `deleteOwnedClients`). */
  clientIds: string[];
}

/**
 * Deletes a user for good (docs/decisions/0158-deleting-a-user.md): their row with their phone
 * numbers, memberships, attribute values and messages (one transaction), then everything
 * `forgetUser` deletes (sessions, grants with their tokens, codes, consents, login and consent
 * requests), so their tokens are refused at once. A user who registered clients in the portal is
 * refused (`conflict`, field `clients`, naming them) unless `deleteOwnedClients`: other people's
 * grants hang on those clients, so the operator decides. The clients and the authorization records
 * are the OAuth part's: deleted through the gatehouse (docs/decisions/0161).
 *
 * @example
 * const deleted = await deleteUser(deps, 'u-1'); // { phoneNumbers: 1, memberships: 2, …, sessions: 1, grants: 3, clientIds: [] }
 */
export async function deleteUser(
  deps: Pick<ProductDeps, 'repos' | 'gatehouse'>,
  userKey: string,
  options: { deleteOwnedClients?: boolean } = {},
): Promise<DeletedUser> {
  const user = await deps.repos.users.findByKey(userKey);
  if (!user) throw new DomainError('not_found', 'No such user.');
  const clientIds = (await deps.gatehouse.listClients(userKey)).map((client) => client.clientId);
  if (clientIds.length > 0 && options.deleteOwnedClients !== true) {
    throw new DomainError('conflict', `The user owns ${clientIds.length} client(s): ${clientIds.join(', ')}. Delete them first, or delete them with the user.`, { field: 'clients' });
  }
  // The row first: from here no sign-in finds the user, so no session starts after the deletions below.
  const records = await deps.repos.users.delete(userKey);
  if (!records) throw new DomainError('not_found', 'No such user.');
  for (const clientId of clientIds) await deps.gatehouse.deleteClient({ ownerUserKey: null, clientId });
  const forgotten = await deps.gatehouse.forgetUser(userKey, { type: 'user.deleted', reason: 'by the operator' });
  return { ...records, ...forgotten, clientIds };
}
