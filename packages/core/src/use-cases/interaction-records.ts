import type { Interaction } from '../domain/model.js';
import type { Deps } from '../deps.js';
import { secondsAfter } from '../domain/time.js';
import { DomainError } from '../errors.js';
import { sha256 } from '../crypto.js';

/** Interaction ids are random alphanumerics (43 for 256 bits); anything else is not looked up. */
export const INTERACTION_ID = /^[A-Za-z0-9]{20,200}$/;

/**
 * The longest authorization request an interaction keeps (its authorize path and query): what one
 * request of a browser that is not signed in may store (docs/decisions/0108-anonymous-requests-store-bounded-state.md).
 */
export const MAX_RETURN_TO_LENGTH = 4096;

/**
 * Stores a new interaction (only the hash of its random id is kept) and returns the id. One made
 * for nobody (a browser that is not signed in) counts against `settings.maxAnonymousInteractions`:
 * at the cap, expired ones are deleted first, and if the cap still holds, it is refused with
 * `DomainError('unavailable')` (docs/decisions/0108).
 */
export async function createInteraction(
  deps: Pick<Deps, 'repos' | 'clock' | 'ids' | 'settings'>,
  input: Pick<Interaction, 'kind' | 'returnTo' | 'userKey' | 'sessionId'>,
): Promise<string> {
  // The browser is later sent to `returnTo`: only a path of this origin, never `//host` or a backslash after the slash.
  if (!/^\/(?![/\\])/.test(input.returnTo)) throw new DomainError('invalid', 'returnTo must be a path of this origin.', { field: 'returnTo' });
  if (input.returnTo.length > MAX_RETURN_TO_LENGTH) throw new DomainError('invalid', 'The authorization request is too long.', { field: 'returnTo' });
  const id = deps.ids.secret();
  const now = deps.clock.now();
  const interaction = { interactionHash: sha256(id), ...input, createdAt: now, expiresAt: secondsAfter(now, deps.settings.interactionTtlSeconds), consumedAt: null };
  if (interaction.userKey === null) await createAnonymous(deps, { ...interaction, userKey: null }, now);
  else await deps.repos.interactions.create(interaction);
  return id;
}

/**
 * Stores an interaction of nobody under the cap: once it is reached, the expired ones are deleted
 * (the table stays bounded even where nobody runs `purgeExpired`), and if that freed no room, the
 * new one is refused.
 */
async function createAnonymous(deps: Pick<Deps, 'repos' | 'settings'>, interaction: Interaction & { userKey: null }, now: Date): Promise<void> {
  const cap = deps.settings.maxAnonymousInteractions;
  if (await deps.repos.interactions.createAnonymous(interaction, cap)) return;
  await deps.repos.interactions.purge(now);
  if (await deps.repos.interactions.createAnonymous(interaction, cap)) return;
  throw new DomainError('unavailable', 'Too many sign-ins are in progress. Please try again in a few minutes.');
}
