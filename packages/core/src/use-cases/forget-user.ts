import type { AuditEventType } from '../ports/services.js';
import type { Deps } from '../deps.js';
import { DomainError } from '../errors.js';

/** How many records of each kind `forgetUser` deleted. */
export interface ForgottenUser {
  /** Sign-in sessions, live or ended. */
  sessions: number;
  /** Grants, live or revoked (their refresh tokens and consumed codes went with them). */
  grants: number;
  /** Codes not exchanged yet. */
  codes: number;
  /** Clients whose remembered consent was forgotten. */
  consents: number;
  /** Login and consent requests made for the user. */
  interactions: number;
}

/**
 * Forgets a user everywhere Gatehouse keeps them, for a host that deleted (or disabled) the user
 * in its own directory (docs/decisions/0140-forgetting-a-user.md): every sign-in session, every
 * grant with its refresh tokens (so the user's access tokens are refused at once: the bearer
 * check finds no grant), the codes in flight, the remembered consents and the login and consent
 * requests. Call it after the user is gone from the directory, so no new sign-in starts; calling
 * it again deletes nothing more. Clients the user owns (the portal's) are not touched.
 *
 * @example
 * await db.users.delete(userId);
 * await gatehouse.forgetUser(userId); // { sessions: 2, grants: 3, codes: 0, consents: 1, interactions: 0 }
 */
export async function forgetUser(
  deps: Pick<Deps, 'repos' | 'clock' | 'audit'>,
  userKey: string,
  because: { type: AuditEventType; reason?: string } = { type: 'user.forgotten' },
): Promise<ForgottenUser> {
  const { forgotten, grantIds } = await deleteAuthorizationRecords(deps, userKey);
  // The product part names its own event (`user.deleted`, docs/decisions/0161); a host's call is `user.forgotten`.
  deps.audit.record({ type: because.type, at: deps.clock.now(), userKey, grantIds, ...(because.reason === undefined ? {} : { reason: because.reason }) });
  return forgotten;
}

/**
 * `forgetUser`'s deletions without its audit event: the counts, and the ids of the deleted grants.
 */
export async function deleteAuthorizationRecords(deps: Pick<Deps, 'repos'>, userKey: string): Promise<{ forgotten: ForgottenUser; grantIds: string[] }> {
  // '' is no user's key: it marks the client-credentials grants, which are no user's.
  if (userKey === '') throw new DomainError('invalid', 'A user key is required.', { field: 'userKey' });
  const { repos } = deps;
  // Codes first, then grants (docs/decisions/0105): an exchange that won before made a grant the
  // deletion below finds; a later one finds no code, so no grant is made after the deletion.
  const codes = await repos.codes.deleteUnused(userKey);
  const grantIds = await repos.grants.deleteByUser(userKey);
  const sessions = await repos.sessions.deleteByUser(userKey);
  const consents = await repos.consents.forgetByUser(userKey);
  const interactions = await repos.interactions.deleteByUser(userKey);
  return { forgotten: { sessions, grants: grantIds.length, codes, consents, interactions }, grantIds };
}
