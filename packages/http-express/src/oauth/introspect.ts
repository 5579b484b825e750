import { clientEndpoint } from './client-endpoint.js';
import type { OAuthContext } from './context.js';
import { TokenParameters, parseParameters } from './params.js';

/**
 * POST /oauth/introspect (RFC 7662). Client-authenticated (§2.1); a client sees only its own
 * tokens as active, anything else is `{ "active": false }` (§2.2).
 */
export function introspectionEndpoint(ctx: OAuthContext) {
  return clientEndpoint(ctx, ({ client, form, gatehouse }) => {
    const params = parseParameters(TokenParameters, form);
    return gatehouse.introspectToken({ client, token: params.token, tokenTypeHint: params.token_type_hint });
  });
}
