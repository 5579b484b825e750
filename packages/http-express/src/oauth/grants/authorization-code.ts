import { AuthorizationCodeGrant, parseParameters } from '../params.js';
import type { GrantHandler } from './handler.js';

/** RFC 6749 §4.1.3: a code for tokens (with PKCE's verifier, RFC 7636 §4.5, and RFC 8707's `resource`). */
export const authorizationCodeGrant: GrantHandler = {
  grantType: 'authorization_code',
  handle(gatehouse, client, form) {
    const params = parseParameters(AuthorizationCodeGrant, form);
    return gatehouse.exchangeCode({ client, code: params.code, redirectUri: params.redirect_uri, codeVerifier: params.code_verifier, resource: params.resource });
  },
};
