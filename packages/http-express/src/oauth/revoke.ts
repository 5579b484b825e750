import { clientEndpoint } from './client-endpoint.js';
import type { OAuthContext } from './context.js';
import { TokenParameters, parseParameters } from './params.js';

/**
 * POST /oauth/revoke (RFC 7009). Revoking either token of a grant revokes the grant. RFC 7009 §2.2:
 * 200 with an empty body, also for an unknown token or another client's (nothing is revealed).
 */
export function revocationEndpoint(ctx: OAuthContext) {
  return clientEndpoint(ctx, async ({ client, form, gatehouse }) => {
    const params = parseParameters(TokenParameters, form);
    await gatehouse.revokeToken({ client, token: params.token, tokenTypeHint: params.token_type_hint });
    return undefined;
  });
}
