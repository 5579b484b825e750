import { ClientCredentialsGrant, parseParameters } from '../params.js';
import type { GrantHandler } from './handler.js';

/** RFC 6749 §4.4: a token for the client itself (optionally narrower: `scope`, RFC 8707's `resource`). */
export const clientCredentialsGrant: GrantHandler = {
  grantType: 'client_credentials',
  handle(gatehouse, client, form) {
    const params = parseParameters(ClientCredentialsGrant, form);
    return gatehouse.clientCredentials({ client, scope: params.scope, resource: params.resource });
  },
};
