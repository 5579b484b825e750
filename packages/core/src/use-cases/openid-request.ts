import type { Client } from '../domain/model.js';
import type { Deps } from '../deps.js';
import type { OAuthErrorCode } from '../errors.js';
import { verifyIdTokenHint } from '../tokens/id-token.js';
import type { OpenIdRequest } from './authorization-request.js';

/** Query parameters as the HTTP adapter parsed them; a repeated parameter arrives as an array. */
type Parameters = Record<string, string | string[] | undefined>;

/**
 * The OpenID Connect parameters of an authorization request that Gatehouse reads (OIDC Core
 * §3.1.2.1, §6); each may be sent once. `claims` (§5.5) is not one: it is ignored, repeated or
 * not, as an unrecognized parameter is (RFC 6749 §3.1; docs/decisions/0134-openid-request-parameters.md).
 */
const OPENID_PARAMETERS = ['nonce', 'display', 'ui_locales', 'id_token_hint', 'acr_values', 'claims_locales', 'response_mode', 'request', 'request_uri', 'registration'] as const;

/**
 * OIDC Core §3.1.2.6: `prompt=select_account` in an OpenID Connect request, which Gatehouse cannot
 * honour (it has no account chooser): `account_selection_required` (docs/decisions/0134).
 */
export function asksToSelectAccount(prompt: string | string[] | undefined): boolean {
  return typeof prompt === 'string' && prompt.split(' ').includes('select_account');
}

/** A `nonce` longer than this is refused: it is echoed in every ID token of the code. */
export const MAX_NONCE_LENGTH = 512;
/** `ui_locales` and `claims_locales` are short lists of BCP 47 tags. */
const MAX_LOCALES_LENGTH = 256;
const LOCALE = /^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/;
/** An ID token is a few hundred bytes to a few KiB; this bounds the work of checking one. */
const MAX_ID_TOKEN_HINT_LENGTH = 8192;
/** OIDC Core §3.1.2.1 `display` values. */
const DISPLAY_VALUES = ['page', 'popup', 'touch', 'wap'];

/** What an OpenID Connect request adds to a checked authorization request, or why it is refused (an error redirect). */
export type OpenIdRequestCheck = { openid: OpenIdRequest; maxAge: number | undefined } | { error: OAuthErrorCode; problem: string };

/**
 * Checks the OpenID Connect parameters of a request whose `scope` has `openid` (OIDC Core §3.1.2.1;
 * docs/decisions/0134-openid-request-parameters.md):
 * - `request`, `request_uri`, `registration` (§6, §7.2.1) are not supported: their own errors;
 * - `claims` (§5.5) is not supported either, and ignored, well-formed or not (RFC 6749 §3.1:
 *   unrecognized parameters are ignored; Discovery §3: `claims_parameter_supported` false): the ID
 *   token and UserInfo carry the claims of the scopes, as without it (§5.5.1: a claim asked for but
 *   not returned is no error);
 * - `response_mode` only `query`; `display` one of §3.1.2.1's values (every one shows the page);
 * - `nonce` at most 512 characters; `ui_locales` a list of language tags (passed to the host's
 *   login page; Gatehouse's pages are in English);
 * - `id_token_hint` an ID token this server issued to this client (expired ones too): its `sub`
 *   becomes the user the request expects;
 * - `max_age` the request's, else the client's `default_max_age`.
 *
 * @example
 * const check = await checkOpenIdRequest(deps, params, client, maxAgeParameter);
 * if ('error' in check) return fail(check.error, check.problem);
 */
export async function checkOpenIdRequest(
  deps: Pick<Deps, 'clock' | 'settings' | 'keys'>,
  params: Parameters,
  client: Pick<Client, 'clientId' | 'defaultMaxAge'>,
  maxAge: number | undefined,
): Promise<OpenIdRequestCheck> {
  const repeated = OPENID_PARAMETERS.find((name) => Array.isArray(params[name]));
  if (repeated) return { error: 'invalid_request', problem: `The parameter ${repeated} is repeated.` };
  const value = (name: (typeof OPENID_PARAMETERS)[number]): string | undefined => {
    const raw = params[name] as string | undefined;
    // RFC 6749 §3.1: a parameter sent without a value is treated as omitted.
    return raw === '' ? undefined : raw;
  };
  if (value('request') !== undefined) return { error: 'request_not_supported', problem: 'Request objects (the request parameter) are not supported.' };
  if (value('request_uri') !== undefined) return { error: 'request_uri_not_supported', problem: 'The request_uri parameter is not supported.' };
  if (value('registration') !== undefined) return { error: 'registration_not_supported', problem: 'The registration parameter is not supported.' };
  const responseMode = value('response_mode');
  if (responseMode !== undefined && responseMode !== 'query') return { error: 'invalid_request', problem: 'Only response_mode=query is supported.' };
  const display = value('display');
  if (display !== undefined && !DISPLAY_VALUES.includes(display)) return { error: 'invalid_request', problem: 'display must be page, popup, touch or wap.' };

  const nonce = value('nonce');
  if (nonce !== undefined && nonce.length > MAX_NONCE_LENGTH) return { error: 'invalid_request', problem: `nonce must be at most ${MAX_NONCE_LENGTH} characters.` };
  const uiLocales = localesOf(value('ui_locales'));
  if (uiLocales === null) return { error: 'invalid_request', problem: 'ui_locales must be a space-separated list of language tags.' };
  if (localesOf(value('claims_locales')) === null) return { error: 'invalid_request', problem: 'claims_locales must be a space-separated list of language tags.' };

  let expectedUserKey: string | undefined;
  const idTokenHint = value('id_token_hint');
  if (idTokenHint !== undefined) {
    const hint = idTokenHint.length > MAX_ID_TOKEN_HINT_LENGTH ? undefined : await verifyIdTokenHint(deps, idTokenHint);
    // OIDC Core §3.1.2.1: an ID token previously issued by this server, to this client.
    if (!hint?.audiences.includes(client.clientId)) return { error: 'invalid_request', problem: 'id_token_hint is not an ID token this server issued to this client.' };
    expectedUserKey = hint.sub;
  }
  return {
    openid: {
      ...(nonce === undefined ? {} : { nonce }),
      ...(expectedUserKey === undefined ? {} : { expectedUserKey }),
      ...(uiLocales === undefined ? {} : { uiLocales }),
    },
    // OIDC Registration §2: default_max_age applies when the request sends no max_age.
    maxAge: maxAge ?? client.defaultMaxAge,
  };
}

/** A space-separated list of language tags: undefined when absent, null when malformed. */
function localesOf(value: string | undefined): string[] | undefined | null {
  if (value === undefined) return undefined;
  if (value.length > MAX_LOCALES_LENGTH) return null;
  const tags = value.split(' ').filter((tag) => tag !== '');
  return tags.every((tag) => LOCALE.test(tag)) ? tags : null;
}
