import type { Deps } from '../deps.js';
import type { Grant, Session } from '../domain/model.js';
import { DomainError } from '../errors.js';

/**
 * The operator's views and actions on sessions and grants (`gatehouse sessions list|end`,
 * `grants list|revoke`; docs/operations.md "Command line for operators"). The operator's actions on
 * users (`users list|disable|enable`) are the product part's (product/operator.ts, docs/decisions/0161).
 * Every change is an audit event with `reason: 'by the operator'`.
 */

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
