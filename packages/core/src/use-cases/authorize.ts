import { clientOrigin } from '../clients/client-origin.js';
import { findAuthorizingClient } from '../clients/metadata-document-clients.js';
import { isPublicClient } from '../domain/grant-types.js';
import type { Client } from '../domain/model.js';
import { findRegisteredRedirectUri, isLocalAppRedirectUri } from '../domain/redirect-uri.js';
import { isOpenIdConnectScope, OPENID_SCOPE } from '../domain/openid-scopes.js';
import { isCataloguedScope, isValidScopeToken, parseScope } from '../domain/scopes.js';
import type { Deps } from '../deps.js';
import { OAuthError } from '../errors.js';
import { issueAuthorizationCode, rememberConsent } from './authorization-code.js';
import { authorizationResponseUrl } from './authorization-response.js';
import { asksToSelectAccount, checkOpenIdRequest } from './openid-request.js';
import { parsePrompt } from './prompt.js';
import { authorizationTarget } from './resource-indicators.js';
import { isUnvouchedClient } from '../registration-settings.js';

/** Query parameters as the HTTP adapter parsed them; a repeated parameter arrives as an array. */
export type RawParameters = Record<string, string | string[] | undefined>;

/** A validated authorization request (RFC 6749 §4.1.1, RFC 7636 §4.3). */
import type { AuthorizationRequest } from './authorization-request.js';

export type { AuthorizationRequest };

export type AuthorizationRequestCheck =
  | { kind: 'valid'; request: AuthorizationRequest; client: Client }
  /**
   * The client or redirect URI cannot be trusted, or nobody vouches for it (a client that
   * registered itself: docs/decisions/0198): show an error page, never redirect (RFC 6749 §4.1.2.1).
   */
  | { kind: 'show-error'; error: OAuthError }
  /**
   * Any other error goes back to the client's redirect URI, but only once the user is
   * authenticated (RFC 9700 §4.11.2: the AS MUST authenticate the user before redirecting, or
   * whoever registers a client has an open redirector): the adapter sends a signed-out user to
   * sign in first and checks the request again afterwards.
   */
  | {
      kind: 'redirect-error';
      error: OAuthError;
      redirectTo: string;
      /** The client and its checked redirect URI: the sign-in page may name the app, and its "Cancel" go back to it (docs/decisions/0156). */
      client: Client;
      redirectUri: string;
      state: string | undefined;
    };

/** What the adapter decides while a request is checked. */
export interface AuthorizationCheckOptions {
  /**
   * Asked just before the request's Client ID Metadata Document would be fetched (a client id URL
   * not stored, or stored with an expired document): `false` refuses the fetch, and the request is
   * a `show-error` (docs/decisions/0166-client-metadata-document-fetches-rate-limited.md).
   */
  mayFetchClientMetadataDocument?: (() => Promise<boolean>) | undefined;
}

const OAUTH_PARAMETERS = [
  'client_id',
  'response_type',
  'redirect_uri',
  'state',
  'scope',
  'code_challenge',
  'code_challenge_method',
  'prompt',
  'max_age',
  'login_hint',
] as const;

/** OIDC Core §3.1.2.1 `max_age`: a non-negative whole number of seconds (nine digits at most: over 31 years). */
const MAX_AGE = /^(0|[1-9][0-9]{0,8})$/;
/** A `login_hint` longer than this is refused: it only pre-fills a field. */
const MAX_LOGIN_HINT_LENGTH = 256;

/**
 * RFC 6749 §3.1: "Parameters sent without a value MUST be treated as if they were omitted from the
 * request" (`redirect_uri=` is no redirect URI, `max_age=` no maximum). A repeated parameter stays
 * as it is, to be refused.
 */
function withoutEmptyValues(params: RawParameters): RawParameters {
  // Object.fromEntries defines properties: a parameter named `__proto__` stays a parameter.
  return Object.fromEntries(Object.entries(params).filter(([, value]) => value !== '' && value !== undefined));
}

/** RFC 7636 §4.2: a S256 challenge is the base64url SHA-256 of the verifier, 43 characters. */
const CODE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/**
 * Checks an authorization request. `client_id` and `redirect_uri` come first: while they are
 * not trusted, nothing is redirected (RFC 6749 §4.1.2.1, RFC 9700 §4.11). Unknown parameters are ignored.
 *
 * @example
 * const check = await checkAuthorizationRequest(deps, { client_id: 'abc', response_type: 'code', redirect_uri: 'https://app.example/cb' });
 * if (check.kind === 'valid') showConsent(check.client, check.request.scopes);
 */
export async function checkAuthorizationRequest(
  deps: Pick<Deps, 'repos' | 'settings' | 'clock' | 'keys' | 'clientMetadataDocuments'>,
  params: RawParameters,
  options: AuthorizationCheckOptions = {},
): Promise<AuthorizationRequestCheck> {
  params = withoutEmptyValues(params);
  const clientId = params.client_id;
  if (Array.isArray(clientId) || Array.isArray(params.redirect_uri)) {
    return showError('client_id and redirect_uri must not be repeated.');
  }
  if (!clientId) return showError('The request has no client_id.');
  // A registered client, or the client of a Client ID Metadata Document (docs/decisions/0117).
  const found = await findAuthorizingClient(deps, clientId, { mayFetch: options.mayFetchClientMetadataDocument });
  if ('problem' in found) return showError(found.problem, found.detail);
  const { client } = found;

  let redirectUri: string;
  const redirectUriIncluded = params.redirect_uri !== undefined;
  if (params.redirect_uri === undefined) {
    if (client.redirectUris.length === 0) return showError('The client has no redirect URI registered.', `client ${clientId}`);
    // OIDC Core §3.1.2.1: redirect_uri is REQUIRED in an OpenID Connect request; never redirected
    // to a defaulted one (RFC 6749 §4.1.2.1; docs/decisions/0182-redirect-uri-at-the-token-endpoint.md).
    // "section", not "§": a description is ASCII (RFC 6749 §4.1.2.1, `errorDescriptionText`).
    if (settingsOfferOpenId(deps.settings) && asksForOpenId(params.scope)) {
      return showError('redirect_uri is required in an OpenID Connect request (OpenID Connect Core 1.0, section 3.1.2.1).', `client ${clientId}`);
    }
    if (client.redirectUris.length !== 1) {
      return showError('The request must name a redirect_uri: the client has registered several.');
    }
    redirectUri = client.redirectUris[0] as string;
  } else {
    // RFC 9700 §4.1.3: exact string comparison against a registered URI, the port of a loopback
    // IP redirect URI aside (RFC 8252 §7.3).
    if (findRegisteredRedirectUri(client.redirectUris, params.redirect_uri) === undefined) {
      return showError('The redirect_uri is not registered for this client.', `client ${clientId}`);
    }
    redirectUri = params.redirect_uri;
  }

  const state = typeof params.state === 'string' ? params.state : undefined;
  const fail = (code: ConstructorParameters<typeof OAuthError>[0], description: string): AuthorizationRequestCheck => {
    const error = new OAuthError(code, description);
    // RFC 9700 §4.11.2: nothing goes back automatically to a redirect URI nobody vouches for (a
    // client that registered itself), signed in or not: the error page says it
    // (docs/decisions/0198-no-error-redirects-to-unvouched-clients.md).
    if (clientOrigin(client).registration !== 'static') return { kind: 'show-error', error };
    return { kind: 'redirect-error', error, redirectTo: authorizationResponseUrl(deps.settings.issuer, redirectUri, { error: code, error_description: error.description, state }), client, redirectUri, state };
  };

  const repeated = OAUTH_PARAMETERS.find((name) => Array.isArray(params[name]));
  if (repeated) return fail('invalid_request', `The parameter ${repeated} is repeated.`);
  // RFC 6749 §4.1.2.1: a client not registered for the code flow (docs/decisions/0028-grant-types-per-client.md).
  if (!client.grantTypes.includes('authorization_code')) {
    return fail('unauthorized_client', 'This client may not use the authorization code grant.');
  }

  const responseType = params.response_type as string | undefined;
  if (!responseType) return fail('invalid_request', 'The request has no response_type.');
  if (responseType !== 'code') return fail('unsupported_response_type', 'Only response_type=code is supported.');

  const scopeParameter = params.scope as string | undefined;
  // OIDC Core §3.1.2.1: an OpenID Connect request is one whose scope has openid (never a defaulted scope).
  const openidRequested = settingsOfferOpenId(deps.settings) && asksForOpenId(scopeParameter);
  if (openidRequested && asksToSelectAccount(params.prompt)) return fail('account_selection_required', 'Choosing an account is not supported: the user signs in with one account.');
  const prompt = parsePrompt(params.prompt as string | undefined);
  if ('problem' in prompt) return fail('invalid_request', prompt.problem);
  const maxAgeParameter = params.max_age as string | undefined;
  if (maxAgeParameter !== undefined && !MAX_AGE.test(maxAgeParameter)) return fail('invalid_request', 'max_age must be a whole number of seconds.');
  const loginHint = params.login_hint as string | undefined;
  if (loginHint !== undefined && loginHint.length > MAX_LOGIN_HINT_LENGTH) return fail('invalid_request', `login_hint must be at most ${MAX_LOGIN_HINT_LENGTH} characters.`);

  let scopes: string[];
  if (scopeParameter === undefined || scopeParameter.trim() === '') {
    // No scope parameter means all of the client's registered scopes that the catalogue still
    // offers (docs/decisions/0015-scopes-are-configuration.md), OpenID Connect's aside: a request
    // without openid in its scope parameter is an OAuth request (docs/decisions/0130).
    scopes = client.scopes.filter((scope) => isCataloguedScope(deps.settings.scopes, scope) && !isOpenIdConnectScope(scope));
  } else {
    const parsed = parseScope(scopeParameter);
    // OIDC Core §3.1.2.1: in an OpenID Connect request, scope values the server does not know are
    // ignored (a relying party may send another provider's); an OAuth request naming one is refused,
    // a mistake to see at once (docs/decisions/0206).
    const requested = openidRequested ? parsed.filter((scope) => !isValidScopeToken(scope) || isCataloguedScope(deps.settings.scopes, scope)) : parsed;
    const unknown = requested.find((scope) => !isValidScopeToken(scope) || !isCataloguedScope(deps.settings.scopes, scope));
    if (unknown !== undefined) return fail('invalid_scope', `The scope ${JSON.stringify(unknown)} is not available to this client.`);
    // RFC 6749 §3.3: the server may grant fewer scopes than asked. A client nobody vouched for had
    // its registration's scopes narrowed to those it may have (docs/decisions/0196, 0117), and asks
    // again for what it asked at registration (an MCP client: every scope the resource lists): its
    // request is narrowed the same way, and the token response's `scope` says what it got. Any
    // other client asking for a scope it is not registered for is refused, a mistake to see at once.
    scopes = isUnvouchedClient(client) ? requested.filter((scope) => client.scopes.includes(scope)) : requested;
    const bad = scopes.length === 0 ? requested[0] : scopes.find((scope) => !client.scopes.includes(scope));
    if (bad !== undefined) return fail('invalid_scope', `The scope ${JSON.stringify(bad)} is not available to this client.`);
  }
  if (scopes.length === 0) return fail('invalid_scope', 'The client has no scopes to request.');
  // RFC 8707 §2.1: the resources the tokens may be for, several allowed (docs/decisions/0110-resource-indicators.md).
  const target = authorizationTarget(deps.settings, params.resource, scopes, scopeParameter === undefined || scopeParameter.trim() === '');
  if ('problem' in target) return fail('invalid_target', target.problem);
  // A client nobody vouched for gets tokens only for the resources the host offers such clients
  // (docs/decisions/0115-dynamic-client-registration.md).
  const { anonymousResources } = deps.settings.registration;
  if (anonymousResources !== null && isUnvouchedClient(client)) {
    if (target.resources.length === 0) return fail('invalid_target', 'This client must name the resource it wants tokens for (RFC 8707 resource parameter).');
    const refused = target.resources.find((resource) => !anonymousResources.includes(resource.resource));
    if (refused !== undefined) return fail('invalid_target', `The resource ${refused.resource} is not offered to clients that registered themselves.`);
  }

  const challenge = params.code_challenge as string | undefined;
  const method = params.code_challenge_method as string | undefined;
  if (challenge === undefined) {
    if (method !== undefined) return fail('invalid_request', 'code_challenge_method was sent without code_challenge.');
    if (client.pkceRequired) return fail('invalid_request', 'This client must send a PKCE code_challenge (S256).');
    // RFC 9700 §2.1.1: a public client must use PKCE (its code is bound to nothing else).
    if (isPublicClient(client)) return fail('invalid_request', 'A public client must send a PKCE code_challenge (S256).');
  } else {
    // RFC 9700 §2.1.1: plain is refused; S256 must be named (RFC 7636 §4.3 defaults to plain).
    if (method !== 'S256') return fail('invalid_request', 'code_challenge_method must be S256.');
    if (!CODE_CHALLENGE.test(challenge)) return fail('invalid_request', 'code_challenge is not a S256 challenge.');
  }

  // OIDC Core §3.1.2.1: the OpenID Connect parameters, only for an OpenID Connect request.
  let maxAge = maxAgeParameter === undefined ? undefined : Number(maxAgeParameter);
  let openid: AuthorizationRequest['openid'];
  if (openidRequested) {
    const checked = await checkOpenIdRequest(deps, params, client, maxAge);
    if ('error' in checked) return fail(checked.error, checked.problem);
    ({ openid, maxAge } = checked);
  }

  return {
    kind: 'valid',
    client,
    request: {
      clientId,
      redirectUri,
      // RFC 6749 §4.1.3: a request that sent none lets the token request omit it (docs/decisions/0182).
      ...(redirectUriIncluded ? {} : { redirectUriIncluded: false }),
      scopes: target.scopes,
      state,
      codeChallenge: challenge,
      prompts: prompt.prompts,
      ...(maxAge === undefined ? {} : { maxAge }),
      ...(loginHint === undefined || loginHint === '' ? {} : { loginHint }),
      // RFC 8252 §8.6: a public client's loopback or private-use redirect URI proves nothing about
      // which app receives the code, so its remembered consent never skips the page (docs/decisions/0109).
      consentMayBeRemembered: !(isPublicClient(client) && isLocalAppRedirectUri(redirectUri)),
      // A client that registered itself vouches for nothing (docs/decisions/0184).
      ...(clientOrigin(client).registration === 'static' ? {} : { redirectUriVouched: false }),
      ...(target.resources.length === 0 ? {} : { resources: target.resources.map((resource) => resource.resource) }),
      ...(openid === undefined ? {} : { openid }),
    },
  };
}

/** Whether the deployment is an OpenID Provider (`settings.openid`); without it, `openid` is not even a scope. */
function settingsOfferOpenId(settings: Pick<Deps['settings'], 'openid'>): boolean {
  return settings.openid === true;
}

/**
 * Whether a `scope` parameter asks for OpenID Connect (`openid` among its values), a repeated one
 * included: before the parameters are checked, a request that looks like an OpenID one is treated as one.
 */
function asksForOpenId(scope: RawParameters[string]): boolean {
  return [scope ?? []].flat().some((value) => parseScope(value).includes(OPENID_SCOPE));
}

export { authorizationResponseUrl };

function showError(description: string, detail?: string): AuthorizationRequestCheck {
  return { kind: 'show-error', error: new OAuthError('invalid_request', description, detail === undefined ? {} : { detail }) };
}

/**
 * The user pressed Allow: remembers the consent (docs/decisions/0095-remembered-consent.md), then
 * issues a single-use code bound to client, user, redirect URI, scopes, PKCE challenge and sign-in
 * session, and returns where to send the browser.
 *
 * @example
 * const { redirectTo } = await approveAuthorization(deps, { request, userKey: 'u-1', sessionId: 's-1' });
 */
export async function approveAuthorization(
  deps: Pick<Deps, 'repos' | 'clock' | 'ids' | 'settings' | 'audit'>,
  input: { request: AuthorizationRequest; userKey: string; sessionId: string | null },
): Promise<{ redirectTo: string }> {
  await rememberConsent(deps, input);
  return issueAuthorizationCode(deps, input, 'given');
}

/** The user pressed Deny: RFC 6749 §4.1.2.1 `access_denied` goes back to the client. */
/**
 * The user chose "Cancel" on the sign-in page of an authorization request
 * (docs/decisions/0156-a-way-back-from-the-sign-in-page.md): RFC 6749 §4.1.2.1 `access_denied`,
 * with the request's `state`, to its redirect URI, once the client and redirect URI are checked
 * (`valid` or `redirect-error`: never to an untrusted URI). Undefined when the request cannot be
 * answered (`show-error`). Recorded as a denied consent, without a user (nobody signed in).
 *
 * @example
 * const cancelled = await cancelAuthorization(deps, parametersOf(returnTo));
 * if (cancelled) res.redirect(303, cancelled.redirectTo); // https://app.example/cb?error=access_denied&…&state=…&iss=…
 */
export async function cancelAuthorization(
  deps: Pick<Deps, 'repos' | 'settings' | 'clock' | 'keys' | 'clientMetadataDocuments' | 'audit'>,
  params: RawParameters,
): Promise<{ redirectTo: string } | undefined> {
  const check = await checkAuthorizationRequest(deps, params);
  if (check.kind === 'show-error') return undefined;
  const { redirectUri, state } = check.kind === 'valid' ? check.request : check;
  deps.audit.record({ type: 'consent.denied', at: deps.clock.now(), clientId: check.client.clientId, reason: 'cancelled at sign-in' });
  return { redirectTo: authorizationResponseUrl(deps.settings.issuer, redirectUri, { error: 'access_denied', error_description: 'The user cancelled the sign-in.', state }) };
}

export function denyAuthorization(
  deps: Pick<Deps, 'clock' | 'settings' | 'audit'>,
  input: { request: AuthorizationRequest; userKey: string },
): { redirectTo: string } {
  deps.audit.record({ type: 'consent.denied', at: deps.clock.now(), userKey: input.userKey, clientId: input.request.clientId });
  return {
    redirectTo: authorizationResponseUrl(deps.settings.issuer, input.request.redirectUri, {
      error: 'access_denied',
      error_description: 'The user denied the request.',
      state: input.request.state,
    }),
  };
}
