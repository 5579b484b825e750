import type { Client, ClientCredentialsTokenResponse, CodeReadAhead, GrantType, RefreshReadAhead, RequestScopedGatehouse, TokenResponse } from '@gatehouse/core';
import type { FormFields } from '../../security/form-body.js';

/**
 * One grant of the token endpoint (RFC 6749 §4.1.3, §6, §4.4): its `grant_type` value, and how an
 * authenticated client's form becomes the core's call. One module per grant, as oidc-provider keeps
 * them; the endpoint looks the handler up by `grant_type` (`GRANT_HANDLERS`).
 */
export interface GrantHandler {
  grantType: GrantType;
  /**
   * Starts, before the client is authenticated, a read the grant will need whatever the client
   * (only a read: nothing is decided before `handle`), so that it overlaps the rate limiter's
   * (docs/decisions/0172-code-exchange-in-two-round-trips.md, 0168). Its result is `handle`'s `ahead`.
   */
  readAhead?(gatehouse: RequestScopedGatehouse, form: FormFields): GrantReadAhead;
  /** Reads the grant's parameters from the form (valibot at the edge) and calls the core. */
  handle(gatehouse: RequestScopedGatehouse, client: Client, form: FormFields, ahead?: GrantReadAhead): Promise<TokenResponse | ClientCredentialsTokenResponse>;
}

/** What a grant's `readAhead` started: the authorization code's read, the refresh token's, or nothing. */
export type GrantReadAhead = CodeReadAhead | RefreshReadAhead | undefined;
