import type { Client, ClientCredentialsTokenResponse, GrantType, RequestScopedGatehouse, TokenResponse } from '@gatehouse/core';
import type { FormFields } from '../../security/form-body.js';

/**
 * One grant of the token endpoint (RFC 6749 §4.1.3, §6, §4.4): its `grant_type` value, and how an
 * authenticated client's form becomes the core's call. One module per grant, as oidc-provider keeps
 * them; the endpoint looks the handler up by `grant_type` (`GRANT_HANDLERS`).
 */
export interface GrantHandler {
  grantType: GrantType;
  /** Reads the grant's parameters from the form (valibot at the edge) and calls the core. */
  handle(gatehouse: RequestScopedGatehouse, client: Client, form: FormFields): Promise<TokenResponse | ClientCredentialsTokenResponse>;
}
