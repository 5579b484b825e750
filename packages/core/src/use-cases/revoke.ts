import type { Client, Grant, RefreshToken } from '../domain/model.js';
import type { Deps } from '../deps.js';
import { OAuthError } from '../errors.js';
import { storedSecretHash } from '../domain/time-ordered-secret.js';
import type { AccessTokenClaims } from '../tokens/access-token-claims.js';
import { verifySignedClaims } from '../tokens/access-token.js';

export type TokenTypeHint = 'access_token' | 'refresh_token';

export type FoundToken =
  | { kind: 'refresh_token'; grant: Grant; refreshToken: RefreshToken }
  | { kind: 'access_token'; grant: Grant; accessTokenClaims: AccessTokenClaims };

/**
 * Finds the grant behind a refresh token or an access token of `client`. A token of another
 * client, an unknown or an invalid token all give undefined — except an access token whose `aud`
 * is one of `servedAudiences`, the resources `client` serves as a resource server (RFC 7662 §2.1,
 * introspection only; docs/decisions/0112-introspection-by-resource-servers.md).
 */
export async function findGrantOfToken(
  deps: Pick<Deps, 'repos' | 'clock' | 'settings' | 'keys'>,
  client: Client,
  token: string,
  hint: string | undefined,
  servedAudiences: readonly string[] = [],
): Promise<FoundToken | undefined> {
  // RFC 7009 §2.1: the hint only orders the look-ups; an unknown hint is ignored.
  const order: TokenTypeHint[] = hint === 'access_token' ? ['access_token', 'refresh_token'] : ['refresh_token', 'access_token'];
  for (const kind of order) {
    if (kind === 'refresh_token') {
      const stored = await deps.repos.refreshTokens.findByHash(storedSecretHash(token));
      if (!stored) continue;
      const grant = await deps.repos.grants.findById(stored.grantId);
      if (!grant || grant.clientId !== client.clientId) return undefined;
      return { grant, kind, refreshToken: stored };
    }
    if (!token.includes('.')) continue;
    const claims = await verifySignedClaims(deps, token).catch(() => undefined);
    if (!claims) continue;
    const grant = await deps.repos.grants.findById(claims.gid);
    if (!grant || grant.clientId !== claims.client_id) return undefined;
    if (grant.clientId !== client.clientId && !servedAudiences.includes(claims.aud)) return undefined;
    return { grant, kind, accessTokenClaims: claims };
  }
  return undefined;
}

/**
 * RFC 7009: revokes the grant behind a refresh token or an access token, with all its tokens.
 * Unknown tokens and other clients' tokens are ignored (§2.2: the answer is 200 either way).
 *
 * @example
 * await revokeToken(deps, { client, token: refreshToken, tokenTypeHint: 'refresh_token' });
 */
export async function revokeToken(
  deps: Pick<Deps, 'repos' | 'clock' | 'settings' | 'keys' | 'audit'>,
  input: { client: Client; token: string; tokenTypeHint: string | undefined },
): Promise<void> {
  if (input.token === '') throw new OAuthError('invalid_request', 'The token parameter is required.');
  const found = await findGrantOfToken(deps, input.client, input.token, input.tokenTypeHint);
  if (!found || found.grant.revokedAt) return;
  const now = deps.clock.now();
  if (await deps.repos.grants.revoke(found.grant.grantId, now)) {
    deps.audit.record({ type: 'grant.revoked', at: now, clientId: input.client.clientId, ...(found.grant.userKey === null ? {} : { userKey: found.grant.userKey }), grantIds: [found.grant.grantId], reason: `revocation of ${found.kind}` });
  }
}
