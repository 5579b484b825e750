import { assertGrantType } from '../domain/grant-types.js';
import type { Client, Grant } from '../domain/model.js';
import { OPENID_SCOPE } from '../domain/openid-scopes.js';
import { isCataloguedScope, isValidScopeToken, type ScopeCatalogue, parseScope } from '../domain/scopes.js';
import type { Deps } from '../deps.js';
import { mayBeDropped } from './may-be-dropped.js';
import { OAuthError } from '../errors.js';
import { storedSecretHash, timeOrderedSecret } from '../domain/time-ordered-secret.js';
import { tokenTarget } from './resource-indicators.js';
import { readRefreshTokenForUse, type RefreshReadAhead } from './refresh-read.js';
import { judgeRefreshToken, rotationGraceSince } from './refresh-token-state.js';
import { principalOf, principalOrGone, tokenResponseFor, type TokenResponse } from './token-response.js';

const INVALID_REFRESH = 'The refresh token is invalid, expired or revoked.';

/**
 * RFC 6749 §6: a refresh token buys a new access token, optionally for fewer scopes.
 * With rotation on (RFC 9700 §4.14.2), each use returns a new refresh token and the grant keeps
 * one live refresh token: a rotated token presented again within the grace period gets a new one
 * that replaces the one issued before it, and after the grace, like a replaced one, revokes the
 * whole grant, even once rotation is turned off (docs/decisions/0179). A public client's
 * refresh tokens always rotate (RFC 9700 §4.14.2: they are not sender-constrained). `resource`
 * (RFC 8707 §2.2) narrows the access token to one of the grant's resources, never wider
 * (docs/decisions/0110-resource-indicators.md).
 *
 * @example
 * const tokens = await refresh(deps, { client, refreshToken, scope: 'messaging.v1.read' });
 */
export async function refresh(
  deps: Pick<Deps, 'repos' | 'clock' | 'ids' | 'settings' | 'keys' | 'signer' | 'audit' | 'userDirectory'>,
  input: { client: Client; refreshToken: string; scope: string | undefined; resource?: string | undefined; readAhead?: RefreshReadAhead | undefined },
): Promise<TokenResponse> {
  assertGrantType(input.client, 'refresh_token');
  const now = deps.clock.now();
  const tokenHash = storedSecretHash(input.refreshToken);
  // The read started beside the client's authentication, when it is of this token (docs/decisions/0168).
  const { found, owner } = input.readAhead?.refreshToken === input.refreshToken ? await input.readAhead.reading : await readRefreshTokenForUse(deps, tokenHash);
  if (!found) throw new OAuthError('invalid_grant', INVALID_REFRESH, { detail: 'unknown refresh token' });
  const { grant } = found;
  // The token's state, by the one rule introspection reports too (docs/decisions/0179).
  const verdict = judgeRefreshToken(deps.settings.refreshToken, input.client, found, now);
  if (verdict.kind === 'refused') throw new OAuthError('invalid_grant', INVALID_REFRESH, { detail: verdict.detail });
  // RFC 9700 §4.14.2: a token rotated out (past the grace) or superseded is a reuse whatever the
  // rotation setting is now; its state only moves on, so the rotation's write would say the same.
  if (verdict.kind === 'reused') return revokeForReuse(deps, grant, now, verdict.detail);

  // The client's registration bounds every token it gets: a scope taken from the client since the
  // grant (an edit in the portal, RFC 7592) is left out (RFC 6749 §6 lets a refresh narrow;
  // docs/decisions/0204-a-clients-scopes-bound-its-next-tokens.md).
  const stillAllowed = grant.scopes.filter((scope) => input.client.scopes.includes(scope));
  if (stillAllowed.length === 0) throw new OAuthError('invalid_grant', INVALID_REFRESH, { detail: `client ${input.client.clientId} may no longer have any scope of grant ${grant.grantId}` });
  const narrowed = narrowScopes(deps.settings.scopes, stillAllowed, input.scope);
  const { scopes, resource } = tokenTarget(deps.settings, grant.resources ?? [], input.resource, narrowed);
  // OIDC Core §12.2: an OpenID Connect grant refreshed with `openid` gets a new ID token (same
  // sub, the original auth_time, no nonce); the access token's resource does not matter.
  const idToken = grant.openid !== undefined && narrowed.includes(OPENID_SCOPE) ? { client: input.client } : undefined;

  // The owner before any write: a refresh for a user who is gone writes nothing. The response is
  // then signed while the write runs, and sent only once it succeeded (docs/decisions/0168).
  const principal = owner === undefined ? await principalOf(deps, grant) : principalOrGone(owner.email, grant);

  if (!verdict.rotate) {
    // The seed: the refresh token stays valid until logout, so the same one is returned.
    const response = tokenResponseFor(deps, grant, scopes, input.refreshToken, principal, resource, idToken);
    const [answer] = await Promise.all([response, deps.settings.refreshToken.idleTtlSeconds === null ? undefined : deps.repos.refreshTokens.touch(tokenHash, now)]);
    return answer;
  }

  const next = timeOrderedSecret(now, deps.ids);
  const response = mayBeDropped(tokenResponseFor(deps, grant, scopes, next, principal, resource, idToken));
  // RFC 9700 §4.14.2: the grant keeps one live refresh token. A retry of a rotated token within
  // the grace (a lost response) gets a new one that supersedes the one issued before, never a
  // second branch; any other reuse revokes the grant (docs/decisions/0106).
  const outcome = await deps.repos.refreshTokens.rotate({
    tokenHash,
    next: { tokenHash: storedSecretHash(next), grantId: grant.grantId, createdAt: now, lastUsedAt: now, rotatedAt: null, supersededAt: null },
    at: now,
    graceSince: rotationGraceSince(deps.settings.refreshToken, now),
  });
  // Rotated or superseded by a concurrent use since the read.
  if (outcome === 'reused') return revokeForReuse(deps, grant, now, 'refresh token reused during its rotation');
  return response;
}

/** RFC 9700 §4.14.2: a reused refresh token revokes its whole grant (docs/decisions/0003, 0106). */
async function revokeForReuse(deps: Pick<Deps, 'repos' | 'audit'>, grant: Grant, now: Date, detail: string): Promise<never> {
  await deps.repos.grants.revoke(grant.grantId, now);
  deps.audit.record({ type: 'refresh_token.reused', at: now, clientId: grant.clientId, ...(grant.userKey === null ? {} : { userKey: grant.userKey }), grantIds: [grant.grantId] });
  throw new OAuthError('invalid_grant', INVALID_REFRESH, { detail });
}

/** RFC 6749 §6: the requested scope must not include any scope not originally granted. */
function narrowScopes(catalogue: ScopeCatalogue, granted: readonly string[], requested: string | undefined): string[] {
  if (requested === undefined || requested.trim() === '') return [...granted];
  const scopes = parseScope(requested);
  const extra = scopes.find((scope) => !isValidScopeToken(scope) || !isCataloguedScope(catalogue, scope) || !granted.includes(scope));
  if (extra !== undefined) throw new OAuthError('invalid_scope', `The scope ${JSON.stringify(extra)} was not granted.`);
  return scopes;
}
