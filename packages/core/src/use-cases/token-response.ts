import type { Grant } from '../domain/model.js';
import type { ResourceDefinition } from '../domain/resources.js';
import { formatScope } from '../domain/scopes.js';
import type { Deps } from '../deps.js';
import { OAuthError } from '../errors.js';
import { issueAccessToken } from '../tokens/access-token.js';
import { userDirectoryOf } from './user-directory.js';

/** RFC 6749 §5.1 token response, with the owner's `principal` (openapi.yaml `TokenResponse`). */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  refresh_token: string;
  expires_in: number;
  scope: string;
  principal: string;
}

/** The response for a grant: reads the owner, signs the access token (for `resource`, RFC 8707, or the default audience). */
export async function buildTokenResponse(
  deps: Pick<Deps, 'repos' | 'clock' | 'ids' | 'settings' | 'keys' | 'signer' | 'userDirectory'>,
  grant: Grant,
  scopes: readonly string[],
  refreshToken: string,
  resource?: ResourceDefinition,
): Promise<TokenResponse> {
  return tokenResponseFor(deps, grant, scopes, refreshToken, await principalOf(deps, grant), resource);
}

/** The e-mail of the grant's owner, the response's `principal`; `invalid_grant` when the owner is gone. */
export async function principalOf(deps: Pick<Deps, 'repos' | 'userDirectory'>, grant: Grant): Promise<string> {
  const user = grant.userKey === null ? undefined : await userDirectoryOf(deps).findByKey(grant.userKey);
  if (!user) throw new OAuthError('invalid_grant', 'The grant is no longer valid.', { detail: `user ${grant.userKey} is gone` });
  return user.email;
}

/** The response for an owner already read: signs the access token (for `resource`, or the default audience). */
export async function tokenResponseFor(
  deps: Pick<Deps, 'clock' | 'ids' | 'settings' | 'keys' | 'signer'>,
  grant: Grant,
  scopes: readonly string[],
  refreshToken: string,
  principal: string,
  resource?: ResourceDefinition,
): Promise<TokenResponse> {
  const { token, expiresIn } = await issueAccessToken(deps, grant, principal, scopes, resource);
  return {
    access_token: token,
    token_type: 'Bearer',
    refresh_token: refreshToken,
    expires_in: expiresIn,
    scope: formatScope(scopes),
    principal,
  };
}
