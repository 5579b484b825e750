import type { Client, Grant } from '../domain/model.js';
import type { ResourceDefinition } from '../domain/resources.js';
import { formatScope } from '../domain/scopes.js';
import type { Deps } from '../deps.js';
import { OAuthError } from '../errors.js';
import { issueAccessToken } from '../tokens/access-token.js';
import { issueIdToken } from '../tokens/id-token.js';
import { userDirectoryOf } from './user-directory.js';

/**
 * RFC 6749 §5.1 token response, with the owner's `principal` (openapi.yaml `TokenResponse`), and
 * for an OpenID Connect grant the ID token (OIDC Core §3.1.3.3).
 */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  /**
   * Absent for a client not registered for the `refresh_token` grant: it could not use one
   * (RFC 6749 §1.5, §5.1; docs/decisions/0188-refresh-tokens-only-for-refresh-clients.md).
   */
  refresh_token?: string;
  expires_in: number;
  scope: string;
  principal: string;
  /** OIDC Core §3.1.3.3 and §12.2: present when the grant is an OpenID Connect one and `openid` is among the scopes asked for. */
  id_token?: string;
}

/**
 * The ID token a response carries (OIDC Core §3.1.3.3, §12.2): for which client, with the
 * authorization request's `nonce` (a code exchange; never a refresh).
 */
export interface IdTokenRequest {
  client: Pick<Client, 'clientId' | 'idTokenSignedResponseAlg'>;
  nonce?: string | undefined;
}

/**
 * The response for a grant: reads the owner, signs the access token (for `resource`, RFC 8707, or
 * the default audience) and, with `idToken` and an OpenID Connect grant, the ID token.
 */
export async function buildTokenResponse(
  deps: Pick<Deps, 'repos' | 'clock' | 'ids' | 'settings' | 'keys' | 'signer' | 'userDirectory'>,
  grant: Grant,
  scopes: readonly string[],
  refreshToken: string | undefined,
  resource?: ResourceDefinition,
  idToken?: IdTokenRequest,
): Promise<TokenResponse> {
  return tokenResponseFor(deps, grant, scopes, refreshToken, await principalOf(deps, grant), resource, idToken);
}

/** The e-mail of the grant's owner, the response's `principal`; `invalid_grant` when the owner is gone. */
export async function principalOf(deps: Pick<Deps, 'repos' | 'userDirectory'>, grant: Grant): Promise<string> {
  const user = grant.userKey === null ? undefined : await userDirectoryOf(deps).findByKey(grant.userKey);
  return principalOrGone(user?.email, grant);
}

/** The owner's e-mail already read (undefined: the owner is gone), as `principalOf` answers it. */
export function principalOrGone(email: string | undefined, grant: Pick<Grant, 'userKey'>): string {
  if (email === undefined || grant.userKey === null) throw new OAuthError('invalid_grant', 'The grant is no longer valid.', { detail: `user ${grant.userKey} is gone` });
  return email;
}

/**
 * The response for an owner already read: signs the access token (for `resource`, or the default
 * audience). `refreshToken` undefined: a response without one (a client that may not refresh).
 */
export async function tokenResponseFor(
  deps: Pick<Deps, 'clock' | 'ids' | 'settings' | 'keys' | 'signer'>,
  grant: Grant,
  scopes: readonly string[],
  refreshToken: string | undefined,
  principal: string,
  resource?: ResourceDefinition,
  idToken?: IdTokenRequest,
): Promise<TokenResponse> {
  const { token, expiresIn } = await issueAccessToken(deps, grant, principal, scopes, resource);
  const response: TokenResponse = {
    access_token: token,
    token_type: 'Bearer',
    ...(refreshToken === undefined ? {} : { refresh_token: refreshToken }),
    expires_in: expiresIn,
    scope: formatScope(scopes),
    principal,
  };
  if (idToken === undefined || grant.openid === undefined || grant.userKey === null) return response;
  // OIDC Core §3.1.3.3: the ID token of the user's sign-in, its at_hash binding the access token beside it.
  response.id_token = await issueIdToken(deps, {
    client: idToken.client,
    userKey: grant.userKey,
    authentication: grant.openid,
    nonce: idToken.nonce,
    sessionId: grant.sessionId,
    accessToken: token,
  });
  return response;
}
