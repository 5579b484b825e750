import { noteFirstUse } from '../clients/first-use.js';
import { formatScope } from '../domain/scopes.js';
import type { Deps } from '../deps.js';
import type { OpenIdAuthentication } from '../domain/model.js';
import { secondsAfter } from '../domain/time.js';
import { storedSecretHash, timeOrderedSecret } from '../domain/time-ordered-secret.js';
import type { AuthorizationRequest } from './authorization-request.js';
import { authorizationResponseUrl } from './authorization-response.js';
import { OAuthError } from '../errors.js';

interface Approval {
  request: AuthorizationRequest;
  userKey: string;
  sessionId: string | null;
}

/**
 * Remembers that the user allowed the client the request's scopes (docs/decisions/0095-remembered-consent.md):
 * at each resource the request named, or for the default audience when it named none
 * (docs/decisions/0200-consent-remembered-per-resource.md).
 */
export async function rememberConsent(deps: Pick<Deps, 'repos' | 'clock'>, input: Approval): Promise<void> {
  const { clientId, scopes, resources = [] } = input.request;
  const grantedAt = deps.clock.now();
  if (resources.length === 0) return deps.repos.consents.remember({ userKey: input.userKey, clientId, scopes: [...scopes], grantedAt });
  await deps.repos.consents.remember({ userKey: input.userKey, clientId, scopes: [], resourceScopes: Object.fromEntries(resources.map((resource) => [resource, [...scopes]])), grantedAt });
}

/**
 * OIDC Core §3.1.2.1 `id_token_hint`: the redirect that refuses a request which expects another
 * user than the one signed in (`login_required`), with its error, or undefined when it expects
 * nobody or this one.
 */
export function unexpectedUser(deps: Pick<Deps, 'settings'>, request: AuthorizationRequest, userKey: string): { redirectTo: string; error: OAuthError } | undefined {
  const expected = request.openid?.expectedUserKey;
  if (expected === undefined || expected === userKey) return undefined;
  const error = new OAuthError('login_required', 'The signed-in user is not the one the app expected (id_token_hint).');
  return { redirectTo: authorizationResponseUrl(deps.settings.issuer, request.redirectUri, { error: error.code, error_description: error.description, state: request.state }), error };
}

/**
 * The sign-in an OpenID Connect code's ID token describes: the session's (when the user proved who
 * they are, how, at which level), or, for an approval outside a session (an embedder's own
 * `approveAuthorization`), now.
 */
async function authenticationFor(deps: Pick<Deps, 'repos'>, sessionId: string | null, now: Date): Promise<OpenIdAuthentication> {
  const session = sessionId === null ? undefined : await deps.repos.sessions.findById(sessionId);
  if (!session) return { authTime: now };
  return {
    authTime: session.authenticatedAt,
    ...(session.amr === undefined || session.amr.length === 0 ? {} : { amr: session.amr }),
    ...(session.acr === undefined ? {} : { acr: session.acr }),
  };
}

/**
 * Issues a single-use code (RFC 6749 §4.1.2) bound to client, user, redirect URI, scopes,
 * resources (RFC 8707), PKCE challenge and sign-in session; only its hash is stored. The audit says whether the user gave
 * consent just now (`consent.granted`) or it was remembered (`consent.remembered`). A code of an
 * OpenID Connect request also keeps its `nonce` and the sign-in (OIDC Core §2), for its ID token;
 * one that expects another user (`id_token_hint`) gets `login_required` instead of a code.
 */
export async function issueAuthorizationCode(
  deps: Pick<Deps, 'repos' | 'clock' | 'ids' | 'settings' | 'audit'>,
  input: Approval,
  consent: 'given' | 'remembered',
): Promise<{ redirectTo: string }> {
  const { request } = input;
  const refused = unexpectedUser(deps, request, input.userKey);
  if (refused) return { redirectTo: refused.redirectTo };
  const now = deps.clock.now();
  const openid = request.openid === undefined ? undefined : { ...(await authenticationFor(deps, input.sessionId, now)), ...(request.openid.nonce === undefined ? {} : { nonce: request.openid.nonce }) };
  const code = timeOrderedSecret(now, deps.ids);
  await deps.repos.codes.save({
    codeHash: storedSecretHash(code),
    clientId: request.clientId,
    userKey: input.userKey,
    redirectUri: request.redirectUri,
    // RFC 6749 §4.1.3: whether the token request must repeat it (docs/decisions/0182).
    ...(request.redirectUriIncluded === false ? { redirectUriIncluded: false } : {}),
    scopes: request.scopes,
    ...(request.resources === undefined || request.resources.length === 0 ? {} : { resources: request.resources }),
    codeChallenge: request.codeChallenge ?? null,
    sessionId: input.sessionId,
    ...(openid === undefined ? {} : { openid }),
    createdAt: now,
    expiresAt: secondsAfter(now, deps.settings.codeTtlSeconds),
    consumedAt: null,
    grantId: null,
  });
  await noteFirstUse(deps, request.clientId, now);
  deps.audit.record({
    type: consent === 'given' ? 'consent.granted' : 'consent.remembered',
    at: now,
    userKey: input.userKey,
    clientId: request.clientId,
    reason: formatScope(request.scopes),
  });
  return { redirectTo: authorizationResponseUrl(deps.settings.issuer, request.redirectUri, { code, state: request.state }) };
}
