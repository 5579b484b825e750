import type { Interaction } from '../domain/model.js';
import type { Deps } from '../deps.js';
import { secondsAfter } from '../domain/time.js';
import { DomainError } from '../errors.js';
import { sha256 } from '../crypto.js';

/** Interaction ids are random alphanumerics (43 for 256 bits); anything else is not looked up. */
export const INTERACTION_ID = /^[A-Za-z0-9]{20,200}$/;

/** Stores a new interaction (only the hash of its random id is kept) and returns the id. */
export async function createInteraction(
  deps: Pick<Deps, 'repos' | 'clock' | 'ids' | 'settings'>,
  input: Pick<Interaction, 'kind' | 'returnTo' | 'userKey' | 'sessionId'>,
): Promise<string> {
  // The browser is later sent to `returnTo`: only a path of this origin, never `//host` or a backslash after the slash.
  if (!/^\/(?![/\\])/.test(input.returnTo)) throw new DomainError('invalid', 'returnTo must be a path of this origin.', { field: 'returnTo' });
  const id = deps.ids.secret();
  const now = deps.clock.now();
  await deps.repos.interactions.create({
    interactionHash: sha256(id),
    ...input,
    createdAt: now,
    expiresAt: secondsAfter(now, deps.settings.interactionTtlSeconds),
    consumedAt: null,
  });
  return id;
}
