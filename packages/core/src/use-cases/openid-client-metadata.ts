import type { Client, IdTokenSigningAlgorithm } from '../domain/model.js';
import { redirectUriProblem } from '../domain/redirect-uri.js';
import { DomainError } from '../errors.js';

/** The OpenID Connect metadata of a client (docs/decisions/0136-openid-client-metadata.md), as registered. */
export type OpenIdClientMetadata = Pick<Client, 'idTokenSignedResponseAlg' | 'postLogoutRedirectUris' | 'defaultMaxAge' | 'requireAuthTime'>;

/** The same, as a registration (the portal, the CLI, dynamic registration) sends it: unchecked. */
export interface OpenIdClientRegistration {
  /** `RS256` (the default) or `ES256`. */
  idTokenSignedResponseAlg?: string | undefined;
  /** RP-Initiated Logout 1.0 §3.1: where logout may send the browser back to (exact match). */
  postLogoutRedirectUris?: readonly string[] | undefined;
  /** OIDC Registration §2 `default_max_age`, in seconds; `null` removes it (an update). */
  defaultMaxAge?: number | null | undefined;
  /** OIDC Registration §2 `require_auth_time`. */
  requireAuthTime?: boolean | undefined;
}

/** The algorithms an ID token may be signed with (Discovery `id_token_signing_alg_values_supported`), the default first. */
export const ID_TOKEN_SIGNING_ALGORITHMS: readonly IdTokenSigningAlgorithm[] = Object.freeze(['RS256', 'ES256']);

/** The same bound as a request's `max_age` (OIDC Core §3.1.2.1): nine digits at most. */
const MAX_DEFAULT_MAX_AGE = 999_999_999;
const MAX_POST_LOGOUT_REDIRECT_URIS = 20;

/**
 * Checks a client's OpenID Connect metadata (`DomainError('invalid')` naming the field) and returns
 * it as stored: each field as given, else as `existing` has it (an update), else absent (an empty
 * list, `false` or a `null` max age remove one). Post-logout
 * redirect URIs follow the rules of redirect URIs (absolute `https`, `http` on loopback, no
 * fragment; RP-Initiated Logout §3.1), trimmed and without repeats.
 *
 * @example
 * openIdClientMetadata({ idTokenSignedResponseAlg: 'ES256', postLogoutRedirectUris: ['https://app.example/signed-out'] });
 * // { idTokenSignedResponseAlg: 'ES256', postLogoutRedirectUris: ['https://app.example/signed-out'] }
 */
export function openIdClientMetadata(input: OpenIdClientRegistration, existing: OpenIdClientMetadata = {}): OpenIdClientMetadata {
  const alg = input.idTokenSignedResponseAlg ?? existing.idTokenSignedResponseAlg;
  if (alg !== undefined && !(ID_TOKEN_SIGNING_ALGORITHMS as readonly string[]).includes(alg)) {
    throw new DomainError('invalid', `The ID token algorithm must be ${ID_TOKEN_SIGNING_ALGORITHMS.join(' or ')}.`, { field: 'idTokenSignedResponseAlg' });
  }
  const given = input.postLogoutRedirectUris ?? existing.postLogoutRedirectUris ?? [];
  if (!Array.isArray(given) || !given.every((uri) => typeof uri === 'string')) {
    throw new DomainError('invalid', 'The post-logout redirect URIs must be a list of URIs.', { field: 'postLogoutRedirectUris' });
  }
  const uris = [...new Set(given.map((uri) => uri.trim()).filter((uri) => uri !== ''))];
  if (uris.length > MAX_POST_LOGOUT_REDIRECT_URIS) throw new DomainError('invalid', `At most ${MAX_POST_LOGOUT_REDIRECT_URIS} post-logout redirect URIs.`, { field: 'postLogoutRedirectUris' });
  for (const uri of uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new DomainError('invalid', `The post-logout redirect URI ${uri} ${problem}.`, { field: 'postLogoutRedirectUris' });
  }
  const maxAge = input.defaultMaxAge === null ? undefined : (input.defaultMaxAge ?? existing.defaultMaxAge);
  if (maxAge !== undefined && (!Number.isSafeInteger(maxAge) || maxAge < 0 || maxAge > MAX_DEFAULT_MAX_AGE)) {
    throw new DomainError('invalid', 'The default max age must be a whole number of seconds (0 or more).', { field: 'defaultMaxAge' });
  }
  const requireAuthTime = input.requireAuthTime ?? existing.requireAuthTime;
  if (requireAuthTime !== undefined && typeof requireAuthTime !== 'boolean') throw new DomainError('invalid', 'require_auth_time must be true or false.', { field: 'requireAuthTime' });
  return {
    ...(alg === undefined ? {} : { idTokenSignedResponseAlg: alg as IdTokenSigningAlgorithm }),
    ...(uris.length === 0 ? {} : { postLogoutRedirectUris: uris }),
    ...(maxAge === undefined ? {} : { defaultMaxAge: maxAge }),
    ...(requireAuthTime === true ? { requireAuthTime } : {}),
  };
}
