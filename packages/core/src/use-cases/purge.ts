import type { Deps } from '../deps.js';
import { longestAccessTokenTtlSeconds } from '../settings.js';

/** How long revoked grants and consumed codes are kept, so late replays are still recognized. */
export const REVOKED_RETENTION_SECONDS = 24 * 3600;

/**
 * Deletes what can no longer be used: expired codes, long-revoked grants with their tokens,
 * ended sessions, expired login and consent requests, retired keys whose tokens expired, and
 * self-registered clients never used within `settings.registration.unusedClientTtlSeconds`. The server calls it on a timer.
 */
export async function purgeExpired(deps: Pick<Deps, 'repos' | 'clock' | 'settings' | 'keys'>): Promise<Record<string, number>> {
  const now = deps.clock.now().getTime();
  // A revoked grant is kept until its last access token expired (a resource's may live longer) and a day more.
  const grantsBefore = new Date(now - (longestAccessTokenTtlSeconds(deps.settings) + REVOKED_RETENTION_SECONDS) * 1000);
  const grants = await deps.repos.grants.purge(grantsBefore);
  const codes = await deps.repos.codes.purge(new Date(now));
  const sessions = await deps.repos.sessions.purge(new Date(now));
  const interactions = await deps.repos.interactions.purge(new Date(now));
  const keys = await deps.keys.purge();
  // Self-registered clients never used (docs/decisions/0119-unused-self-registered-clients.md).
  const { unusedClientTtlSeconds } = deps.settings.registration;
  const unusedClients = unusedClientTtlSeconds === null ? 0 : await deps.repos.clients.purgeUnused(new Date(now - unusedClientTtlSeconds * 1000));
  return { grants, codes, sessions, interactions, keys, unusedClients };
}
