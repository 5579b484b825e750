import { isPublicClient } from '../domain/grant-types.js';
import type { Client } from '../domain/model.js';
import { formatScope } from '../domain/scopes.js';
import type { Deps } from '../deps.js';
import { epochSeconds } from '../domain/time.js';
import { findResource } from '../domain/resources.js';
import { OAuthError } from '../errors.js';
import { judgeRefreshToken } from './refresh-token-state.js';
import { findGrantOfToken } from './revoke.js';
import { userDirectoryOf } from './user-directory.js';

/** RFC 7662 §2.2 response. */
export type IntrospectionResponse =
  | { active: false }
  | {
      active: true;
      scope: string;
      client_id: string;
      /** The user's e-mail; absent for a client-credentials token (no user). */
      username?: string;
      /** RFC 7662 §2.2 / RFC 6749 §7.1: an access token's type; absent for a refresh token. */
      token_type?: 'Bearer';
      sub: string;
      iss: string;
      aud?: string;
      exp?: number;
      iat?: number;
      jti?: string;
    };

/**
 * RFC 7662: tells a client whether one of its own tokens is active. Another client's token,
 * an unknown, expired or revoked one are all `{ active: false }` (§2.2). Introspection is for
 * confidential clients (resource servers, §2.1): a public client is `invalid_client`. A client
 * marked as the resource server of configured resources (`resourceServerFor`) also sees the
 * access tokens whose `aud` is one of them, whoever they were issued to; a revoked one is
 * inactive at once (docs/decisions/0112-introspection-by-resource-servers.md).
 *
 * @example
 * const answer = await introspectToken(deps, { client, token, tokenTypeHint: 'access_token' });
 * if (answer.active) answer.scope;
 */
export async function introspectToken(
  deps: Pick<Deps, 'repos' | 'clock' | 'settings' | 'keys' | 'userDirectory'>,
  input: { client: Client; token: string; tokenTypeHint: string | undefined },
): Promise<IntrospectionResponse> {
  // RFC 7662 §2.1 / docs/decisions/0027-public-clients.md: a public client cannot authenticate, so it does not introspect.
  if (isPublicClient(input.client)) throw new OAuthError('invalid_client', 'Introspection is for confidential clients.', { detail: `public client ${input.client.clientId}` });
  if (input.token === '') throw new OAuthError('invalid_request', 'The token parameter is required.');
  // The resources it serves that are still configured (the configuration may have changed since).
  const served = (input.client.resourceServerFor ?? []).filter((resource) => findResource(deps.settings.resources, resource) !== undefined);
  const found = await findGrantOfToken(deps, input.client, input.token, input.tokenTypeHint, served);
  if (!found || found.grant.revokedAt) return { active: false };
  const { grant } = found;
  const now = deps.clock.now();
  const { absoluteTtlSeconds } = deps.settings.refreshToken;
  // A client-credentials grant has no user (RFC 6749 §4.4).
  const user = grant.userKey === null ? null : await userDirectoryOf(deps).findByKey(grant.userKey);
  if (user === undefined) return { active: false };

  if (found.kind === 'access_token') {
    const claims = found.accessTokenClaims;
    return {
      active: true,
      scope: claims.scope,
      client_id: claims.client_id,
      ...(user === null ? {} : { username: user.email }),
      token_type: 'Bearer',
      sub: claims.sub,
      iss: claims.iss,
      aud: claims.aud,
      exp: claims.exp,
      iat: claims.iat,
      jti: claims.jti,
    };
  }
  const { refreshToken } = found;
  if (user === null) return { active: false };
  // RFC 7662 §2.2: active only when the refresh grant would accept the token, by its own rule
  // (docs/decisions/0179-refresh-token-state-decided-once.md).
  if (judgeRefreshToken(deps.settings.refreshToken, input.client, { token: refreshToken, grant }, now).kind !== 'usable') return { active: false };
  // RFC 7662 §2.2: token_type is an access token's type (RFC 6749 §7.1); a refresh token has none.
  return {
    active: true,
    scope: formatScope(grant.scopes),
    client_id: grant.clientId,
    username: user.email,
    sub: user.userKey,
    iss: deps.settings.issuer,
    iat: epochSeconds(grant.createdAt),
    ...(absoluteTtlSeconds !== null ? { exp: epochSeconds(grant.createdAt) + absoluteTtlSeconds } : {}),
  };
}
