import * as v from 'valibot';
import { parseParameters, RefreshTokenGrant } from '../params.js';
import type { GrantHandler } from './handler.js';

/** RFC 6749 §6: a refresh token for a new access token, optionally narrower (`scope`, RFC 8707's `resource`). */
export const refreshTokenGrant: GrantHandler = {
  grantType: 'refresh_token',
  // The token's read overlaps the rate limiter's (docs/decisions/0168); a form without a usable
  // refresh token starts nothing, and `handle` refuses it as before.
  readAhead(gatehouse, form) {
    const parsed = v.safeParse(RefreshTokenGrant, form);
    return parsed.success ? gatehouse.readRefreshTokenAhead(parsed.output.refresh_token) : undefined;
  },
  handle(gatehouse, client, form, ahead) {
    const params = parseParameters(RefreshTokenGrant, form);
    return gatehouse.refresh({ client, refreshToken: params.refresh_token, scope: params.scope, resource: params.resource, readAhead: ahead !== undefined && 'refreshToken' in ahead ? ahead : undefined });
  },
};
