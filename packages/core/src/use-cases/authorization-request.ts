import type { Prompt } from './prompt.js';

/** An authorization request that passed its checks (RFC 6749 §4.1.1): what a code is issued for. */
export interface AuthorizationRequest {
  clientId: string;
  /** The redirect URI the response goes to: the one sent, or the client's only registered one. */
  redirectUri: string;
  /**
   * False when the request sent no `redirect_uri` (RFC 6749 §3.1.2.3): its code then lets the token
   * request omit it too (RFC 6749 §4.1.3; docs/decisions/0182). Absent means true.
   */
  redirectUriIncluded?: boolean;
  scopes: string[];
  /** The resources (RFC 8707 §2.1, configured URIs in canonical form) the tokens may be for; absent: none named. */
  resources?: string[];
  state: string | undefined;
  codeChallenge: string | undefined;
  /** The `prompt` values (`none`, `login`, `consent`); absent or empty is none of them. */
  prompts?: readonly Prompt[];
  /** OIDC Core §3.1.2.1 `max_age`: the user must have authenticated at most this many seconds ago. */
  maxAge?: number;
  /** OIDC Core §3.1.2.1 `login_hint`: who the client thinks is signing in (pre-fills the login page). */
  loginHint?: string;
  /**
   * False when a remembered consent must not skip the consent page: a public client whose
   * redirect URI any program on the user's device could receive (RFC 8252 §8.6;
   * docs/decisions/0109-no-silent-consent-for-loopback-public-clients.md). Absent means true.
   */
  consentMayBeRemembered?: boolean;
  /**
   * False when the client registered itself (RFC 7591, a Client ID Metadata Document): nothing
   * vouches for its redirect URI, so nothing goes there before the user has signed in, not even
   * `prompt=none`'s `login_required` (RFC 9700 §4.11.2; docs/decisions/0184-silent-requests-never-an-open-redirect.md).
   * Absent means true.
   */
  redirectUriVouched?: boolean;
  /**
   * Present for an OpenID Connect request (`openid` among the scopes; OIDC Core §3.1.2.1): what it
   * adds. Without it, the request is an OAuth one and nothing OpenID applies.
   */
  openid?: OpenIdRequest;
}

/** What an OpenID Connect authorization request adds (docs/decisions/0134-openid-request-parameters.md). */
export interface OpenIdRequest {
  /** OIDC Core §3.1.2.1 `nonce`: echoed in the ID token of the code. */
  nonce?: string;
  /** The `sub` of a valid `id_token_hint`: only this user may be signed in (else `login_required`). */
  expectedUserKey?: string;
  /** OIDC Core §3.1.2.1 `ui_locales`: the languages the client prefers, for the host's login page. */
  uiLocales?: string[];
}
