import { clientOrigin, type ClientOrigin } from '../clients/client-origin.js';
import type { Interaction } from '../domain/model.js';
import type { Deps } from '../deps.js';
import { DomainError } from '../errors.js';
import { sha256 } from '../crypto.js';
import { approveAuthorization, checkAuthorizationRequest, denyAuthorization, type RawParameters } from './authorize.js';
import { newScopesOf } from './authorization-step.js';
import { createInteraction, INTERACTION_ID } from './interaction-records.js';
import { startSession, type SignedIn } from './sessions.js';
import { userDirectoryOf } from './user-directory.js';

const GONE = 'This sign-in request is unknown, has expired or was already used. Start again from the app.';

/** Consumes the interaction `id` of `kind` (single use, by a conditional write); throws when it cannot be used. */
async function consumeInteraction(deps: Pick<Deps, 'repos' | 'clock'>, id: string, kind: Interaction['kind']): Promise<Interaction> {
  const consumed = INTERACTION_ID.test(id) ? await deps.repos.interactions.consume(sha256(id), kind, deps.clock.now()) : undefined;
  if (!consumed) throw new DomainError('not_found', GONE, { field: kind === 'login' ? 'loginRequest' : 'consentRequest' });
  return consumed;
}

/**
 * Starts a login handed to the host application (docs/decisions/0091): returns an opaque,
 * single-use, expiring login request id (only its hash is stored) for the host's login URL.
 * `returnTo` is where the browser goes once the host has completed it: the authorize URL.
 *
 * @example
 * const { loginRequest } = await startLogin(deps, { returnTo: '/auth/oauth/authorize?client_id=…' });
 * // redirect to https://orders.example/login?login_request=<loginRequest>
 */
export async function startLogin(
  deps: Pick<Deps, 'repos' | 'clock' | 'ids' | 'settings'>,
  input: { returnTo: string },
): Promise<{ loginRequest: string }> {
  return { loginRequest: await createInteraction(deps, { kind: 'login', returnTo: input.returnTo, userKey: null, sessionId: null }) };
}

/**
 * The host signed the user in: consumes the login request (once; an unknown, expired or used one
 * is a `DomainError('not_found')`), opens Gatehouse's sign-in session for `userKey` (who must be in
 * the user directory: else `DomainError('unauthenticated')`) and says where the browser goes next.
 * The session token goes in Gatehouse's session cookie (`completeGatehouseLogin` in
 * @gatehouse/http-express does it all).
 *
 * @example
 * const { sessionToken, redirectTo } = await completeLogin(deps, { loginRequest, userKey: 'u-42' });
 */
export async function completeLogin(
  deps: Pick<Deps, 'repos' | 'clock' | 'ids' | 'settings' | 'audit' | 'userDirectory'>,
  input: { loginRequest: string; userKey: string },
): Promise<SignedIn & { redirectTo: string }> {
  const user = await userDirectoryOf(deps).findByKey(input.userKey);
  const interaction = await consumeInteraction(deps, input.loginRequest, 'login');
  if (!user) {
    deps.audit.record({ type: 'sign_in.failed', at: deps.clock.now(), userKey: input.userKey, reason: 'host login of a user not in the directory' });
    throw new DomainError('unauthenticated', 'This user cannot sign in here.');
  }
  const signedIn = await startSession(deps, user, 'host login');
  return { ...signedIn, redirectTo: interaction.returnTo };
}

/**
 * Starts a consent handed to the host application: an opaque, single-use, expiring consent
 * request id for the host's consent URL, bound to the signed-in user and session.
 *
 * @example
 * const { consentRequest } = await startConsent(deps, { returnTo: '/auth/oauth/authorize?client_id=…', userKey, sessionId });
 */
export async function startConsent(
  deps: Pick<Deps, 'repos' | 'clock' | 'ids' | 'settings'>,
  input: { returnTo: string; userKey: string; sessionId: string | null },
): Promise<{ consentRequest: string }> {
  return { consentRequest: await createInteraction(deps, { kind: 'consent', ...input }) };
}

/** What a host's consent page shows: the client and the scopes asked of the user. */
export interface ConsentRequestDetails {
  clientId: string;
  clientName: string;
  scopes: string[];
  /** The scopes the user has not allowed this client before (none when nothing was allowed before). */
  newScopes: string[];
  redirectUri: string;
  userKey: string;
  /** Whether the client registered itself, the host its metadata document comes from, whether it redirects only to this computer. */
  origin: ClientOrigin;
}

/**
 * The details of a live consent request (not consumed, not expired), for the host's consent
 * page; undefined otherwise. Reading it does not use it.
 *
 * @example
 * const details = await describeConsentRequest(deps, consentRequest);
 * // { clientName: 'Orders app', scopes: ['orders.read'], … }
 */
export async function describeConsentRequest(
  deps: Pick<Deps, 'repos' | 'clock' | 'settings'>,
  consentRequest: string,
): Promise<ConsentRequestDetails | undefined> {
  if (!INTERACTION_ID.test(consentRequest)) return undefined;
  const interaction = await deps.repos.interactions.findByHash(sha256(consentRequest));
  if (!interaction || interaction.kind !== 'consent' || interaction.consumedAt || interaction.expiresAt.getTime() <= deps.clock.now().getTime()) return undefined;
  const check = await checkAuthorizationRequest(deps, parametersOf(interaction.returnTo));
  if (check.kind !== 'valid' || interaction.userKey === null) return undefined;
  const consent = await deps.repos.consents.find(interaction.userKey, check.client.clientId);
  return {
    clientId: check.client.clientId,
    clientName: check.client.name,
    scopes: check.request.scopes,
    newScopes: newScopesOf(consent, check.request.scopes),
    redirectUri: check.request.redirectUri,
    userKey: interaction.userKey,
    origin: clientOrigin(check.client),
  };
}

/**
 * The host asked for consent: consumes the consent request (once) and, as the consent page's
 * Allow or Deny would, issues a code (and remembers the consent) or `access_denied` (RFC 6749 §4.1.2.1). Returns the
 * redirect to the client. The authorization request is checked again (the client may be gone).
 *
 * @example
 * const { redirectTo } = await completeConsent(deps, { consentRequest, decision: 'allow' });
 */
export async function completeConsent(
  deps: Pick<Deps, 'repos' | 'clock' | 'ids' | 'settings' | 'audit'>,
  input: { consentRequest: string; decision: 'allow' | 'deny' },
): Promise<{ redirectTo: string }> {
  const interaction = await consumeInteraction(deps, input.consentRequest, 'consent');
  const check = await checkAuthorizationRequest(deps, parametersOf(interaction.returnTo));
  if (check.kind === 'redirect-error') return { redirectTo: check.redirectTo };
  if (check.kind !== 'valid' || interaction.userKey === null) throw new DomainError('not_found', GONE, { field: 'consentRequest' });
  if (input.decision === 'allow') {
    return approveAuthorization(deps, { request: check.request, userKey: interaction.userKey, sessionId: interaction.sessionId });
  }
  return denyAuthorization(deps, { request: check.request, userKey: interaction.userKey });
}

/** The query parameters of a stored authorize URL; a repeated one is an array (refused by the check). */
function parametersOf(returnTo: string): RawParameters {
  const index = returnTo.indexOf('?');
  const parameters = Object.create(null) as Record<string, string | string[]>;
  for (const [name, value] of new URLSearchParams(index < 0 ? '' : returnTo.slice(index + 1))) {
    const existing = parameters[name];
    parameters[name] = existing === undefined ? value : [...(Array.isArray(existing) ? existing : [existing]), value];
  }
  return parameters;
}
