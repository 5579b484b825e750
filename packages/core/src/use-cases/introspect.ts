import type { Client } from '../domain/model.js';
import { formatScope } from '../domain/scopes.js';
import type { Deps } from '../deps.js';
import { epochSeconds } from '../domain/time.js';
import { OAuthError } from '../errors.js';
import { findGrantOfToken } from './revoke.js';
import { userDirectoryOf } from './user-directory.js';

/** RFC 7662 §2.2 response. */
export type IntrospectionResponse =
  | { active: false }
  | {
      active: true;
      scope: string;
      client_id: string;
      username: string;
      token_type: 'Bearer' | 'refresh_token';
      sub: string;
      iss: string;
      aud?: string;
      exp?: number;
      iat?: number;
      jti?: string;
    };

/**
 * RFC 7662: tells a client whether one of its own tokens is active. Another client's token,
 * an unknown, expired or revoked one are all `{ active: false }` (§2.2).
 */
export async function introspectToken(
  deps: Pick<Deps, 'repos' | 'clock' | 'settings' | 'keys' | 'userDirectory'>,
  input: { client: Client; token: string; tokenTypeHint: string | undefined },
): Promise<IntrospectionResponse> {
  if (input.token === '') throw new OAuthError('invalid_request', 'The token parameter is required.');
  const found = await findGrantOfToken(deps, input.client, input.token, input.tokenTypeHint);
  if (!found || found.grant.revokedAt) return { active: false };
  const { grant } = found;
  const now = deps.clock.now();
  const { absoluteTtlSeconds } = deps.settings.refreshToken;
  const user = await userDirectoryOf(deps).findByKey(grant.userKey);
  if (!user) return { active: false };

  if (found.kind === 'access_token') {
    const claims = found.accessTokenClaims;
    return {
      active: true,
      scope: claims.scope,
      client_id: claims.client_id,
      username: user.email,
      token_type: 'Bearer',
      sub: claims.sub,
      iss: claims.iss,
      aud: claims.aud,
      exp: claims.exp,
      iat: claims.iat,
      jti: claims.jti,
    };
  }
  const { idleTtlSeconds, rotate, reuseGraceSeconds } = deps.settings.refreshToken;
  const { refreshToken } = found;
  if (absoluteTtlSeconds !== null && now.getTime() >= grant.createdAt.getTime() + absoluteTtlSeconds * 1000) return { active: false };
  if (idleTtlSeconds !== null && now.getTime() >= refreshToken.lastUsedAt.getTime() + idleTtlSeconds * 1000) return { active: false };
  if (rotate && refreshToken.rotatedAt && now.getTime() > refreshToken.rotatedAt.getTime() + reuseGraceSeconds * 1000) return { active: false };
  return {
    active: true,
    scope: formatScope(grant.scopes),
    client_id: grant.clientId,
    username: user.email,
    token_type: 'refresh_token',
    sub: grant.userKey,
    iss: deps.settings.issuer,
    iat: epochSeconds(grant.createdAt),
    ...(absoluteTtlSeconds !== null ? { exp: epochSeconds(grant.createdAt) + absoluteTtlSeconds } : {}),
  };
}
