import { isPublicClient } from '../domain/grant-types.js';
import type { Client, Grant, RefreshToken } from '../domain/model.js';
import { secondsAfter } from '../domain/time.js';
import type { GatehouseSettings } from '../settings.js';

/**
 * What the refresh grant does with a stored refresh token, before any write:
 * - `refused`: `invalid_grant`, nothing written (`detail` for the logs);
 * - `reused`: `invalid_grant`, and the grant is revoked (RFC 9700 §4.14.2);
 * - `usable`: the refresh goes on; `rotate` says whether it rotates the token (the rotation's one
 *   conditional write then has the last word: a concurrent use may still make it a reuse) or
 *   returns the same one.
 */
export type RefreshTokenVerdict =
  | { kind: 'refused'; detail: string }
  | { kind: 'reused'; detail: 'superseded refresh token reused' | 'rotated refresh token reused' }
  | { kind: 'usable'; rotate: boolean };

/**
 * The one rule for a refresh token's state, which the refresh grant acts on and introspection
 * reports (RFC 7662 §2.2: `active` only for a token the refresh grant would accept), so the two
 * never disagree (docs/decisions/0179-refresh-token-state-decided-once.md). Owner checks (a user
 * gone) and the request's own parameters (scope, resource) are not the token's state and stay
 * with their callers.
 *
 * A token's rotation marks (`rotatedAt`, `supersededAt`) count whatever the settings are now: a
 * token rotated out while rotation was on stays rotated out after an operator turns rotation off.
 *
 * @example
 * const verdict = judgeRefreshToken(deps.settings.refreshToken, client, { token, grant }, now);
 * if (verdict.kind !== 'usable') return { active: false };
 */
export function judgeRefreshToken(
  settings: GatehouseSettings['refreshToken'],
  client: Pick<Client, 'clientId' | 'clientSecretHash' | 'grantTypes'>,
  found: { token: RefreshToken; grant: Grant },
  now: Date,
): RefreshTokenVerdict {
  const { token, grant } = found;
  if (grant.revokedAt) return { kind: 'refused', detail: 'grant revoked' };
  // A client no longer registered for the refresh_token grant cannot use its refresh tokens (the
  // grant answers unauthorized_client first, RFC 6749 §5.2): introspection says so too (RFC 7662 §2.2).
  if (!client.grantTypes.includes('refresh_token')) return { kind: 'refused', detail: `client ${client.clientId} may not use the refresh_token grant` };
  // RFC 6749 §6: the refresh token was issued to the authenticated client.
  if (grant.clientId !== client.clientId) return { kind: 'refused', detail: `refresh token of ${grant.clientId} presented by ${client.clientId}` };
  const { idleTtlSeconds, absoluteTtlSeconds } = settings;
  if (absoluteTtlSeconds !== null && now.getTime() >= grant.createdAt.getTime() + absoluteTtlSeconds * 1000) return { kind: 'refused', detail: 'absolute lifetime over' };
  if (idleTtlSeconds !== null && now.getTime() >= token.lastUsedAt.getTime() + idleTtlSeconds * 1000) return { kind: 'refused', detail: 'idle lifetime over' };
  // RFC 9700 §4.14.2 / docs/decisions/0106: a superseded token gets no grace; a rotated one only
  // until the grace is over (the bound `refreshTokens.rotate` is given).
  if (token.supersededAt) return { kind: 'reused', detail: 'superseded refresh token reused' };
  if (token.rotatedAt && token.rotatedAt < rotationGraceSince(settings, now)) return { kind: 'reused', detail: 'rotated refresh token reused' };
  // A public client's tokens always rotate (RFC 9700 §4.14.2, docs/decisions/0027); a token rotated
  // within the grace is a retry of its rotation and is answered by the rotation (0106), even after
  // rotation was turned off, so that the grant keeps one live token (docs/decisions/0179).
  return { kind: 'usable', rotate: settings.rotate || isPublicClient(client) || token.rotatedAt !== null };
}

/** Later than any time a token is rotated at: with no grace, no rotated token is within it. */
const NO_GRACE = new Date(8.64e15);

/**
 * The grace's start: a token rotated at or after it may be presented again as a retry (RFC 9700
 * §4.14.2, docs/decisions/0106); `refreshTokens.rotate`'s `graceSince`. With no grace
 * (`reuseGraceSeconds: 0`) none may: not even one rotated in the same millisecond, or by a
 * concurrent request whose clock read came a moment after this one's (another worker's).
 */
export function rotationGraceSince(settings: Pick<GatehouseSettings['refreshToken'], 'reuseGraceSeconds'>, now: Date): Date {
  return settings.reuseGraceSeconds === 0 ? NO_GRACE : secondsAfter(now, -settings.reuseGraceSeconds);
}
