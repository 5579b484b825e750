import type { Deps } from '../deps.js';
import type { Grant, Session, User } from '../domain/model.js';
import { DomainError } from '../errors.js';
import type { DeletedUserRecords } from '../ports/repositories.js';
import { deleteAuthorizationRecords, type ForgottenUser } from './forget-user.js';

/**
 * The operator's views and actions on users, sessions and grants (`gatehouse users list`,
 * `sessions list|end`, `grants list|revoke`; docs/operations.md "Command line for operators").
 * Every change is an audit event with `reason: 'by the operator'`.
 */

/** The most users one page lists. */
export const MAX_USERS_PAGE = 1000;

/**
 * A page of users by e-mail, without their password hashes.
 *
 * @example
 * const first = await listUsers(deps, { limit: 100, offset: 0 });
 */
export async function listUsers(deps: Pick<Deps, 'repos'>, page: { limit: number; offset: number }): Promise<Array<Omit<User, 'passwordHash'>>> {
  if (!Number.isInteger(page.limit) || page.limit < 1 || page.limit > MAX_USERS_PAGE) throw new DomainError('invalid', `The page size must be a whole number from 1 to ${MAX_USERS_PAGE}.`);
  if (!Number.isInteger(page.offset) || page.offset < 0) throw new DomainError('invalid', 'The offset must be a whole number, 0 or more.');
  // Never the password hash past the core.
  return (await deps.repos.users.list(page)).map(({ passwordHash: _omitted, ...visible }) => visible);
}

/**
 * The user's live sessions (neither ended nor expired), newest first.
 *
 * @example
 * const sessions = await listUserSessions(deps, 'u-1');
 */
export async function listUserSessions(deps: Pick<Deps, 'repos' | 'clock'>, userKey: string): Promise<Session[]> {
  return deps.repos.sessions.listActiveByUser(userKey, deps.clock.now());
}

/**
 * Ends one session and revokes the grants made under it, as the user's logout would
 * (docs/decisions/0005); an unknown or ended session is `not_found`.
 *
 * @example
 * const { revokedGrantIds } = await endSession(deps, sessionId);
 */
export async function endSession(deps: Pick<Deps, 'repos' | 'clock' | 'audit'>, sessionId: string): Promise<{ userKey: string; revokedGrantIds: string[] }> {
  const session = await deps.repos.sessions.findById(sessionId);
  const now = deps.clock.now();
  if (!session || session.endedAt !== null || session.expiresAt <= now) throw new DomainError('not_found', 'No such live session.');
  const { ended, revokedGrantIds } = await deps.repos.sessions.endWithGrants(sessionId, now);
  if (!ended) throw new DomainError('not_found', 'No such live session.');
  deps.audit.record({ type: 'logout', at: now, userKey: session.userKey, grantIds: revokedGrantIds, reason: 'session ended by the operator' });
  return { userKey: session.userKey, revokedGrantIds };
}

/**
 * The live grants of a user or of a client (exactly one), newest first.
 *
 * @example
 * const grants = await listGrants(deps, { clientId: 'c-1' });
 */
export async function listGrants(deps: Pick<Deps, 'repos'>, of: { userKey: string } | { clientId: string }): Promise<Grant[]> {
  return 'userKey' in of ? deps.repos.grants.listActiveByUser(of.userKey) : deps.repos.grants.listActiveByClient(of.clientId);
}

/**
 * Revokes one grant (`grantId`), every live grant of a user (`userKey`), of a user for one client
 * (`userKey` and `clientId`) or of a client (`clientId`): their access and refresh tokens stop
 * working at once. The consents stay remembered (the user is not asked again on the next
 * sign-in); withdrawing an app for a user is the user's "Authorized apps" page.
 *
 * @example
 * const { revokedGrantIds } = await revokeGrants(deps, { userKey: 'u-1', clientId: 'c-1' });
 */
export async function revokeGrants(
  deps: Pick<Deps, 'repos' | 'clock' | 'audit'>,
  which: { grantId: string } | { userKey: string; clientId?: string } | { clientId: string },
): Promise<{ revokedGrantIds: string[] }> {
  const now = deps.clock.now();
  let revokedGrantIds: string[];
  let who: { userKey?: string; clientId?: string } = {};
  if ('grantId' in which) {
    const grant = await deps.repos.grants.findById(which.grantId);
    if (!grant || grant.revokedAt !== null) throw new DomainError('not_found', 'No such live grant.');
    revokedGrantIds = (await deps.repos.grants.revoke(grant.grantId, now)) ? [grant.grantId] : [];
    who = { ...(grant.userKey === null ? {} : { userKey: grant.userKey }), clientId: grant.clientId };
  } else if ('userKey' in which) {
    revokedGrantIds = which.clientId === undefined ? await deps.repos.grants.revokeByUser(which.userKey, now) : await deps.repos.grants.revokeByUserAndClient(which.userKey, which.clientId, now);
    who = { userKey: which.userKey, ...(which.clientId === undefined ? {} : { clientId: which.clientId }) };
  } else {
    revokedGrantIds = [];
    for (const grant of await deps.repos.grants.listActiveByClient(which.clientId)) if (await deps.repos.grants.revoke(grant.grantId, now)) revokedGrantIds.push(grant.grantId);
    who = { clientId: which.clientId };
  }
  deps.audit.record({ type: 'grant.revoked', at: now, ...who, grantIds: revokedGrantIds, reason: 'revoked by the operator' });
  return { revokedGrantIds };
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
export async function disableUser(deps: Pick<Deps, 'repos' | 'clock' | 'audit'>, userKey: string): Promise<{ endedSessionIds: string[]; revokedGrantIds: string[] }> {
  const user = await deps.repos.users.findByKey(userKey);
  if (!user) throw new DomainError('not_found', 'No such user.');
  const now = deps.clock.now();
  // Disabled first: a sign-in racing this call is refused from here on.
  if (user.disabledAt === undefined) await deps.repos.users.setDisabled(userKey, now);
  // Sessions next: once ended, no code of theirs becomes a grant (docs/decisions/0005); then any code outside a session (0105).
  const endedSessionIds = await deps.repos.sessions.endByUser(userKey, now);
  await deps.repos.codes.deleteUnused(userKey);
  const revokedGrantIds = await deps.repos.grants.revokeByUser(userKey, now);
  deps.audit.record({ type: 'user.disabled', at: now, userKey, grantIds: revokedGrantIds, reason: 'by the operator' });
  return { endedSessionIds, revokedGrantIds };
}

/**
 * Enables a disabled user again: they may sign in (their ended sessions and revoked grants stay so).
 *
 * @example
 * await enableUser(deps, 'u-1');
 */
export async function enableUser(deps: Pick<Deps, 'repos' | 'clock' | 'audit'>, userKey: string): Promise<void> {
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
 * grants hang on those clients, so the operator decides.
 *
 * @example
 * const deleted = await deleteUser(deps, 'u-1'); // { phoneNumbers: 1, memberships: 2, …, sessions: 1, grants: 3, clientIds: [] }
 */
export async function deleteUser(
  deps: Pick<Deps, 'repos' | 'clock' | 'audit'>,
  userKey: string,
  options: { deleteOwnedClients?: boolean } = {},
): Promise<DeletedUser> {
  const user = await deps.repos.users.findByKey(userKey);
  if (!user) throw new DomainError('not_found', 'No such user.');
  const owned = await deps.repos.clients.listByOwner(userKey);
  const clientIds = owned.map((client) => client.clientId);
  if (clientIds.length > 0 && options.deleteOwnedClients !== true) {
    throw new DomainError('conflict', `The user owns ${clientIds.length} client(s): ${clientIds.join(', ')}. Delete them first, or delete them with the user.`, { field: 'clients' });
  }
  // The row first: from here no sign-in finds the user, so no session starts after the deletions below.
  const records = await deps.repos.users.delete(userKey);
  if (!records) throw new DomainError('not_found', 'No such user.');
  for (const clientId of clientIds) await deps.repos.clients.delete(clientId);
  const { forgotten, grantIds } = await deleteAuthorizationRecords(deps, userKey);
  deps.audit.record({ type: 'user.deleted', at: deps.clock.now(), userKey, grantIds, reason: 'by the operator' });
  return { ...records, ...forgotten, clientIds };
}
