import * as v from 'valibot';
import { AuthorizationCodeGrant, parseParameters } from '../params.js';
import type { GrantHandler } from './handler.js';

/** RFC 6749 §4.1.3: a code for tokens (with PKCE's verifier, RFC 7636 §4.5, and RFC 8707's `resource`). */
export const authorizationCodeGrant: GrantHandler = {
  grantType: 'authorization_code',
  // The code's read overlaps the rate limiter's (docs/decisions/0172); a form without a usable
  // code starts nothing, and `handle` refuses it as before.
  readAhead(gatehouse, form) {
    const parsed = v.safeParse(AuthorizationCodeGrant, form);
    return parsed.success ? gatehouse.readCodeAhead(parsed.output.code) : undefined;
  },
  handle(gatehouse, client, form, ahead) {
    const params = parseParameters(AuthorizationCodeGrant, form);
    return gatehouse.exchangeCode({ client, code: params.code, redirectUri: params.redirect_uri, codeVerifier: params.code_verifier, resource: params.resource, readAhead: ahead !== undefined && 'code' in ahead ? ahead : undefined });
  },
};
