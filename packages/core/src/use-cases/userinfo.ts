import { claimsAllowedBy, OPENID_SCOPE } from '../domain/openid-scopes.js';
import type { Deps } from '../deps.js';
import { OAuthError } from '../errors.js';
import type { StandardClaims } from '../ports/users.js';
import type { VerifiedAccessToken } from '../tokens/access-token.js';
import { claimsOfProfile, userDirectoryOf } from './user-directory.js';

/** OIDC Core §5.3.2: the UserInfo response, `sub` and the claims of the granted scopes. */
export type UserInfo = StandardClaims & { sub: string };

/**
 * OIDC Core §5.3: the claims about the user of a verified access token (docs/decisions/0132-userinfo.md).
 * The token must carry `openid` (else `insufficient_scope`, RFC 6750 §3.1) and be a user's
 * (a client's own token has no user: `invalid_token`); the HTTP adapter accepts only tokens for
 * the default audience (`bearerAuth(gatehouse)`). The claims come from the user directory's
 * `claimsFor` (the host's users carry their own profile), or from its profile without one, and
 * only those the token's scopes allow are answered (OIDC Core §5.4); `sub` is the user key. A user
 * who is no longer in the directory is `invalid_token`.
 *
 * @example
 * const claims = await userInfo(deps, await verifyAccessToken(deps, bearerToken));
 * // { sub: 'u-42', name: 'Ada Lovelace', email: 'ada@example.com' }
 */
export async function userInfo(
  deps: Pick<Deps, 'repos' | 'userDirectory'>,
  token: Pick<VerifiedAccessToken, 'subjectType' | 'userKey' | 'scopes'>,
): Promise<UserInfo> {
  if (!token.scopes.includes(OPENID_SCOPE)) {
    throw new OAuthError('insufficient_scope', 'UserInfo needs an access token with the scope openid.', { scope: OPENID_SCOPE });
  }
  if (token.subjectType !== 'user' || token.userKey === null) throw new OAuthError('invalid_token', 'The access token has no user.');
  const directory = userDirectoryOf(deps);
  let claims: StandardClaims | undefined;
  if (directory.claimsFor) {
    claims = await directory.claimsFor(token.userKey, token.scopes);
  } else {
    const profile = await directory.findByKey(token.userKey);
    claims = profile && claimsOfProfile(profile);
  }
  if (!claims) throw new OAuthError('invalid_token', 'The access token is invalid, expired or revoked.', { detail: `user ${token.userKey} is gone` });
  return { sub: token.userKey, ...onlyAllowed(claims, claimsAllowedBy(token.scopes)) };
}

/** The claims among `allowed` whose value is set (never `sub`, which is Gatehouse's). */
function onlyAllowed(claims: StandardClaims, allowed: readonly string[]): StandardClaims {
  const kept: Record<string, unknown> = {};
  for (const name of allowed) {
    const value = (claims as Record<string, unknown>)[name];
    if (name !== 'sub' && value !== undefined && value !== null && value !== '') kept[name] = value;
  }
  return kept as StandardClaims;
}
