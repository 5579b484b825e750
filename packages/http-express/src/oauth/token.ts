import { OAuthError } from '@gatehouse/core';
import { clientEndpoint } from './client-endpoint.js';
import type { OAuthContext } from './context.js';
import { GRANT_TYPES } from './grant-types.js';
import type { GrantReadAhead } from './grants/handler.js';
import { GRANT_HANDLERS } from './grants/index.js';

/**
 * POST /oauth/token (RFC 6749 §4.1.3, §4.4 and §6; RFC 8707 §2.2 `resource`). The client is
 * authenticated before any grant parameter decides anything (the code's read starts beside the
 * authentication, only a read: decision 0172); the answer is JSON whatever `Accept` says, and never cached (§5.1).
 * invalid_grant and the other grant errors never count toward the rate limit (docs/security.md
 * "Rate limits", decision 0023): only client authentication records failures.
 */
export function tokenEndpoint(ctx: OAuthContext) {
  return clientEndpoint<GrantReadAhead>(
    ctx,
    ({ client, form, gatehouse, ahead }) => {
      const grantType = form.grant_type;
      if (grantType === undefined) throw new OAuthError('invalid_request', 'grant_type is required.');
      // One handler per grant (grants/): the endpoint itself knows none of them.
      const handler = GRANT_HANDLERS.get(grantType);
      if (handler === undefined) throw new OAuthError('unsupported_grant_type', `Only the ${GRANT_TYPES.slice(0, -1).join(', ')} and ${GRANT_TYPES.at(-1)} grants are supported.`);
      return handler.handle(gatehouse, client, form, ahead);
    },
    // A grant's read that does not depend on the client overlaps its authentication (decision 0172).
    ({ form, gatehouse }): GrantReadAhead => (form.grant_type === undefined ? undefined : GRANT_HANDLERS.get(form.grant_type)?.readAhead?.(gatehouse, form)),
  );
}
