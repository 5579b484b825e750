import { clientOrigin, type ClientOrigin } from '../clients/client-origin.js';
import type { ClientPresentation } from '../clients/client-presentation.js';
import { presentClient } from './clients.js';
import type { Interaction } from '../domain/model.js';
import { secondsAfter } from '../domain/time.js';
import type { Deps } from '../deps.js';
import { DomainError } from '../errors.js';
import { sha256 } from '../crypto.js';
import { approveAuthorization, checkAuthorizationRequest, denyAuthorization, type RawParameters } from './authorize.js';
import type { AuthorizationRequest } from './authorization-request.js';
import { newScopesOf, REAUTHENTICATION_PARAMETER } from './authorization-step.js';
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

/** What a host's login page needs to know of a login request (`describeLoginRequest`). */
export interface LoginRequestDetails {
  clientId: string;
  clientName: string;
  scopes: string[];
  /** `prompt=login`: the user enters their credentials again, even when signed in to the host. */
  promptLogin: boolean;
  /** OIDC Core §3.1.2.1 `max_age` in seconds, when the request set one. */
  maxAgeSeconds: number | undefined;
  /**
   * The request wants a sign-in at or after this time (`prompt=login`: when the request asked;
   * `max_age`: that many seconds ago); undefined when any sign-in will do. A host whose own sign-in
   * is older asks for the credentials again: `completeLogin` refuses an older `authenticatedAt`.
   */
  authenticatedAfter: Date | undefined;
  /** OIDC Core §3.1.2.1 `login_hint`: who the client thinks is signing in (pre-fill, never trust). */
  loginHint: string | undefined;
  /** True for an OpenID Connect request (`openid` among the scopes): the app signs the user in with Gatehouse. */
  openid: boolean;
  /** OIDC Core §3.1.2.1 `ui_locales`: the languages the app prefers for the page, most preferred first. */
  uiLocales: string[] | undefined;
  /**
   * The user the app expects (the `sub` of its valid `id_token_hint`, OIDC Core §3.1.2.1): signing
   * in another user ends in `login_required` for the app, so the page may say whom to sign in.
   */
  expectedUserKey: string | undefined;
}

/**
 * What the host says of its sign-in (`completeLogin`): who, when they proved it, and, when it
 * knows, how (RFC 8176 `amr`, e.g. `['pwd', 'otp']`) and at which level (`acr`): the ID token says so.
 */
export interface HostLogin {
  loginRequest: string;
  userKey: string;
  authenticatedAt: Date;
  amr?: readonly string[];
  acr?: string;
}

/**
 * What a live login request (not used, not expired) asks of the host's sign-in, for its login
 * page; undefined when the request cannot be used. Reading it does not use it
 * (docs/decisions/0107-fresh-sign-in-through-the-host.md).
 *
 * @example
 * const details = await describeLoginRequest(deps, loginRequest);
 * if (details?.authenticatedAfter && mySession.authenticatedAt < details.authenticatedAfter) showPasswordForm();
 */
export async function describeLoginRequest(
  deps: Pick<Deps, 'repos' | 'clock' | 'settings' | 'keys'>,
  loginRequest: string,
): Promise<LoginRequestDetails | undefined> {
  if (!INTERACTION_ID.test(loginRequest)) return undefined;
  const interaction = await deps.repos.interactions.findByHash(sha256(loginRequest));
  if (!interaction || interaction.kind !== 'login' || interaction.consumedAt || interaction.expiresAt.getTime() <= deps.clock.now().getTime()) return undefined;
  const check = await checkAuthorizationRequest(deps, parametersOf(interaction.returnTo));
  if (check.kind !== 'valid') return undefined;
  const { request, client } = check;
  return {
    clientId: client.clientId,
    clientName: client.name,
    scopes: request.scopes,
    promptLogin: (request.prompts ?? []).includes('login'),
    maxAgeSeconds: request.maxAge,
    authenticatedAfter: await authenticatedAfter(deps, interaction, request),
    loginHint: request.loginHint,
    openid: request.openid !== undefined,
    uiLocales: request.openid?.uiLocales,
    expectedUserKey: request.openid?.expectedUserKey,
  };
}

/**
 * The time a sign-in must be at or after for the request (undefined: any): with `prompt=login`, when
 * the request asked (its marker's time, else the login request's); with `max_age` alone, `max_age`
 * seconds ago, or that time of the request if earlier (a sign-in after the request satisfies it, as
 * `reauthenticated` says, whatever `max_age`).
 */
async function authenticatedAfter(deps: Pick<Deps, 'repos' | 'clock'>, loginRequest: Interaction, request: AuthorizationRequest): Promise<Date | undefined> {
  const promptLogin = (request.prompts ?? []).includes('login');
  if (!promptLogin && request.maxAge === undefined) return undefined;
  const marker = parametersOf(loginRequest.returnTo)[REAUTHENTICATION_PARAMETER];
  const found = typeof marker === 'string' && INTERACTION_ID.test(marker) ? await deps.repos.interactions.findByHash(sha256(marker)) : undefined;
  const asked = found?.kind === 'reauthentication' ? found.createdAt : loginRequest.createdAt;
  if (promptLogin || request.maxAge === undefined) return asked;
  return new Date(Math.min(asked.getTime(), secondsAfter(deps.clock.now(), -request.maxAge).getTime()));
}

/** How far ahead of the clock a host's `authenticatedAt` may be (its clock and ours differ a little). */
const CLOCK_SKEW_SECONDS = 60;

/**
 * The host signed the user in: consumes the login request (once; an unknown, expired or used one
 * is a `DomainError('not_found')`), opens Gatehouse's sign-in session for `userKey` (who must be in
 * the user directory: else `DomainError('unauthenticated')`) and says where the browser goes next.
 * `authenticatedAt` is when the user actually proved who they are to the host (its own sign-in's
 * time, not now): a request that wants a fresher sign-in (`prompt=login`, `max_age`;
 * `describeLoginRequest` says) is refused with `DomainError('unauthenticated')` on the field
 * `authenticatedAt`, the login request left unused, so the host can ask for the credentials and
 * try again (docs/decisions/0107-fresh-sign-in-through-the-host.md). The session token goes in
 * Gatehouse's session cookie (`completeGatehouseLogin` in @gatehouse/http-express does it all).
 *
 * @example
 * const { sessionToken, redirectTo } = await completeLogin(deps, { loginRequest, userKey: 'u-42', authenticatedAt: mySession.signedInAt });
 */
export async function completeLogin(
  deps: Pick<Deps, 'repos' | 'clock' | 'ids' | 'settings' | 'audit' | 'userDirectory' | 'keys'>,
  input: HostLogin,
): Promise<SignedIn & { redirectTo: string }> {
  const now = deps.clock.now();
  const authenticatedAt = input.authenticatedAt;
  if (!(authenticatedAt instanceof Date) || Number.isNaN(authenticatedAt.getTime()) || authenticatedAt.getTime() > secondsAfter(now, CLOCK_SKEW_SECONDS).getTime()) {
    throw new DomainError('invalid', 'authenticatedAt must be the time the user signed in to the host, not later than now.', { field: 'authenticatedAt' });
  }
  authenticationMethodsOf(input);
  const demanded = (await describeLoginRequest(deps, input.loginRequest))?.authenticatedAfter;
  if (demanded !== undefined && authenticatedAt.getTime() < demanded.getTime()) {
    deps.audit.record({ type: 'sign_in.failed', at: now, userKey: input.userKey, reason: 'host login older than the request allows (prompt=login or max_age)' });
    throw new DomainError('unauthenticated', 'This app asks the user to sign in again: ask for their credentials, then complete the login request.', { field: 'authenticatedAt' });
  }
  const user = await userDirectoryOf(deps).findByKey(input.userKey);
  const interaction = await consumeInteraction(deps, input.loginRequest, 'login');
  if (!user) {
    deps.audit.record({ type: 'sign_in.failed', at: now, userKey: input.userKey, reason: 'host login of a user not in the directory' });
    throw new DomainError('unauthenticated', 'This user cannot sign in here.');
  }
  const signedIn = await startSession(deps, user, {
    reason: 'host login',
    authenticatedAt: new Date(Math.min(authenticatedAt.getTime(), now.getTime())),
    ...authenticationMethodsOf(input),
  });
  return { ...signedIn, redirectTo: interaction.returnTo };
}

/** RFC 8176 §2: an `amr` value is a short token; an `acr` a short string (a URI or a level name). */
const AMR_VALUE = /^[A-Za-z0-9_.:-]{1,64}$/;
const MAX_AMR_VALUES = 10;
const ACR_VALUE = /^[\x21-\x7E]{1,255}$/;

/** The host's `amr` and `acr`, checked (`DomainError('invalid')` naming the field). */
function authenticationMethodsOf(input: Pick<HostLogin, 'amr' | 'acr'>): { amr?: string[]; acr?: string } {
  const { amr, acr } = input;
  if (amr !== undefined && (!Array.isArray(amr) || amr.length > MAX_AMR_VALUES || !amr.every((value) => typeof value === 'string' && AMR_VALUE.test(value)))) {
    throw new DomainError('invalid', `amr must be a list of at most ${MAX_AMR_VALUES} RFC 8176 method names (such as "pwd", "otp", "mfa").`, { field: 'amr' });
  }
  if (acr !== undefined && (typeof acr !== 'string' || !ACR_VALUE.test(acr))) {
    throw new DomainError('invalid', 'acr must be 1 to 255 printable characters without spaces.', { field: 'acr' });
  }
  return { ...(amr === undefined || amr.length === 0 ? {} : { amr: [...new Set(amr)] }), ...(acr === undefined ? {} : { acr }) };
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
  /** Who registered it, its home page, logo, privacy policy and terms, the operator's first-party mark: what Gatehouse's own consent page shows (docs/decisions/0155). */
  presentation: ClientPresentation;
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
  deps: Pick<Deps, 'repos' | 'clock' | 'settings' | 'keys'>,
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
    newScopes: newScopesOf(consent, check.request.scopes, check.request.resources),
    redirectUri: check.request.redirectUri,
    userKey: interaction.userKey,
    origin: clientOrigin(check.client),
    presentation: await presentClient(deps, check.client),
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
  deps: Pick<Deps, 'repos' | 'clock' | 'ids' | 'settings' | 'audit' | 'keys'>,
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
