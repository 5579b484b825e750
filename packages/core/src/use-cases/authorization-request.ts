import type { Prompt } from './prompt.js';

/** An authorization request that passed its checks (RFC 6749 §4.1.1): what a code is issued for. */
export interface AuthorizationRequest {
  clientId: string;
  /** The redirect URI the response goes to: the one sent, or the client's only registered one. */
  redirectUri: string;
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
}
