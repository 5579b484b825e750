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
}
