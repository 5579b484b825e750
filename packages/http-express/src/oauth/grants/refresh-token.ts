import { parseParameters, RefreshTokenGrant } from '../params.js';
import type { GrantHandler } from './handler.js';

/** RFC 6749 §6: a refresh token for a new access token, optionally narrower (`scope`, RFC 8707's `resource`). */
export const refreshTokenGrant: GrantHandler = {
  grantType: 'refresh_token',
  handle(gatehouse, client, form) {
    const params = parseParameters(RefreshTokenGrant, form);
    return gatehouse.refresh({ client, refreshToken: params.refresh_token, scope: params.scope, resource: params.resource });
  },
};
