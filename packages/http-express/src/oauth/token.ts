import { OAuthError, type Client, type ClientCredentialsTokenResponse, type RequestScopedGatehouse, type TokenResponse } from '@gatehouse/core';
import type { FormFields } from '../security/form-body.js';
import { clientEndpoint } from './client-endpoint.js';
import type { OAuthContext } from './context.js';
import { GRANT_TYPES } from './grant-types.js';
import { AuthorizationCodeGrant, ClientCredentialsGrant, RefreshTokenGrant, parseParameters } from './params.js';

/**
 * POST /oauth/token (RFC 6749 §4.1.3, §4.4 and §6; RFC 8707 §2.2 `resource`). The client is
 * authenticated before any grant parameter is looked at; the answer is JSON whatever `Accept` says, and never cached (§5.1).
 * invalid_grant and the other grant errors never count toward the rate limit (docs/security.md
 * "Rate limits", decision 0023): only client authentication records failures.
 */
export function tokenEndpoint(ctx: OAuthContext) {
  return clientEndpoint(ctx, ({ client, form, gatehouse }) => grant(gatehouse, client, form));
}

async function grant(gatehouse: RequestScopedGatehouse, client: Client, form: FormFields): Promise<TokenResponse | ClientCredentialsTokenResponse> {
  const grantType = form.grant_type;
  if (grantType === undefined) throw new OAuthError('invalid_request', 'grant_type is required.');
  if (grantType === 'authorization_code') {
    const params = parseParameters(AuthorizationCodeGrant, form);
    return gatehouse.exchangeCode({ client, code: params.code, redirectUri: params.redirect_uri, codeVerifier: params.code_verifier, resource: params.resource });
  }
  if (grantType === 'refresh_token') {
    const params = parseParameters(RefreshTokenGrant, form);
    return gatehouse.refresh({ client, refreshToken: params.refresh_token, scope: params.scope, resource: params.resource });
  }
  if (grantType === 'client_credentials') {
    const params = parseParameters(ClientCredentialsGrant, form);
    return gatehouse.clientCredentials({ client, scope: params.scope, resource: params.resource });
  }
  throw new OAuthError('unsupported_grant_type', `Only the ${GRANT_TYPES.slice(0, -1).join(', ')} and ${GRANT_TYPES.at(-1)} grants are supported.`);
}
