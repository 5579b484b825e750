import { OAuthError, type Client, type ClientCredentialsTokenResponse, type RequestScopedGatehouse, type TokenResponse } from '@gatehouse/core';
import type { Request, Response } from 'express';
import type { FormFields } from '../security/form-body.js';
import { authenticateClientOf } from './client-auth.js';
import type { OAuthContext } from './context.js';
import { GRANT_TYPES } from './grant-types.js';
import { sendJsonFailure } from './json-errors.js';
import { sendNoStoreJson } from './no-store-json.js';
import { AuthorizationCodeGrant, ClientCredentialsGrant, RefreshTokenGrant, parseParameters } from './params.js';
import { gatehouseFor } from '../request-scope.js';

/**
 * POST /oauth/token (RFC 6749 §4.1.3, §4.4 and §6). The client is authenticated before any grant
 * parameter is looked at; the answer is JSON whatever `Accept` says, and never cached (§5.1).
 */
export function tokenEndpoint(ctx: OAuthContext) {
  return async (req: Request, res: Response): Promise<void> => {
    try {
      const client = await authenticateClientOf(ctx, req, res);
      if (!client) return;
      const tokens = await grant(gatehouseFor(ctx.gatehouse, res), client, req.body as FormFields);
      sendNoStoreJson(res, 200, tokens);
    } catch (error) {
      // invalid_grant and the other grant errors never count toward the rate limit (docs/security.md "Rate limits", decision 0023).
      sendJsonFailure(res, ctx.logger, error);
    }
  };
}

async function grant(gatehouse: RequestScopedGatehouse, client: Client, form: FormFields): Promise<TokenResponse | ClientCredentialsTokenResponse> {
  const grantType = form.grant_type;
  if (grantType === undefined) throw new OAuthError('invalid_request', 'grant_type is required.');
  if (grantType === 'authorization_code') {
    const params = parseParameters(AuthorizationCodeGrant, form);
    return gatehouse.exchangeCode({ client, code: params.code, redirectUri: params.redirect_uri, codeVerifier: params.code_verifier });
  }
  if (grantType === 'refresh_token') {
    const params = parseParameters(RefreshTokenGrant, form);
    return gatehouse.refresh({ client, refreshToken: params.refresh_token, scope: params.scope });
  }
  if (grantType === 'client_credentials') {
    const params = parseParameters(ClientCredentialsGrant, form);
    return gatehouse.clientCredentials({ client, scope: params.scope });
  }
  throw new OAuthError('unsupported_grant_type', `Only the ${GRANT_TYPES.slice(0, -1).join(', ')} and ${GRANT_TYPES.at(-1)} grants are supported.`);
}
