import type { Consent } from '../domain/model.js';
import type { Deps } from '../deps.js';
import { sha256 } from '../crypto.js';
import { OAuthError } from '../errors.js';
import { issueAuthorizationCode, unexpectedUser } from './authorization-code.js';
import { authorizationResponseUrl } from './authorization-response.js';
import type { AuthorizationRequest } from './authorization-request.js';
import { createInteraction, INTERACTION_ID } from './interaction-records.js';

/**
 * The query parameter that carries the marker of a `prompt=login` request back from sign-in
 * (docs/decisions/0096-prompt-login-marker.md). Gatehouse adds it to the authorize URL; clients never send it.
 */
export const REAUTHENTICATION_PARAMETER = 'gatehouse_reauthentication';

/** The signed-in user of an authorization request, and when they last proved who they are. */
export interface AuthorizingUser {
  userKey: string;
  sessionId: string | null;
  /** The session's `authenticatedAt`: `prompt=login` and `max_age` compare with it. */
  authenticatedAt: Date;
}

export type AuthorizationStep =
  /**
   * Send the browser to sign in (the login page, or the host's), to come back to `returnTo`. With
   * `reauthenticate`, a signed-in user is asked for the password again too (`prompt=login`).
   */
  | { kind: 'sign-in'; returnTo: string; reauthenticate: boolean }
  /** Ask for consent (the consent page, or the host's); `newScopes` are those not allowed before. */
  | { kind: 'consent'; newScopes: string[] }
  /** Send the browser back to the client: a code (consent remembered) or, for `prompt=none`, an error. */
  | { kind: 'redirect'; redirectTo: string }
  /**
   * Show `error` on an error page, and send nothing to the client: a redirect URI nobody vouches
   * for (a client that registered itself) gets no error before the user signed in and allowed it
   * (docs/decisions/0184, 0198).
   */
  | { kind: 'error-page'; error: OAuthError };

type StepDeps = Pick<Deps, 'repos' | 'clock' | 'ids' | 'settings' | 'audit'>;

interface StepInput {
  /** A checked request (`checkAuthorizationRequest` said `valid`). */
  request: AuthorizationRequest;
  /** The signed-in user; undefined when nobody is signed in. */
  user: AuthorizingUser | undefined;
  /** The authorize path and query of this request, under the mount path (where sign-in comes back to). */
  returnTo: string;
}

/**
 * What happens next with a checked authorization request (docs/decisions/0095-remembered-consent.md):
 * - `prompt=none` shows no page: a code at once when the user is signed in, recently enough for
 *   `max_age`, and the consent is remembered, else the `login_required` or `consent_required`
 *   error (OIDC Core §3.1.2.6) — for a signed-out user of a client that registered itself, on the
 *   error page instead (`error-page`; docs/decisions/0184);
 * - a signed-in user other than the one an OpenID Connect request's `id_token_hint` names is
 *   `login_required` (OIDC Core §3.1.2.1), with or without `prompt=none`;
 * - a signed-out user signs in; with `prompt=login`, or a sign-in older than `max_age`, a
 *   signed-in user signs in again, until a sign-in newer than the request
 *   (docs/decisions/0096-prompt-login-marker.md, 0107-fresh-sign-in-through-the-host.md);
 * - a remembered consent that covers every requested scope issues the code without asking
 *   (`consent.remembered` in the audit), unless `prompt=consent`, or the client is a public one
 *   whose redirect URI any local program could take (RFC 8252 §8.6; docs/decisions/0109-no-silent-consent-for-loopback-public-clients.md);
 * - else consent is asked, marking the scopes not allowed before.
 *
 * @example
 * const step = await nextAuthorizationStep(deps, { request, user, returnTo: '/oauth/authorize?client_id=…' });
 * if (step.kind === 'redirect') res.redirect(302, step.redirectTo);
 */
export async function nextAuthorizationStep(deps: StepDeps, input: StepInput): Promise<AuthorizationStep> {
  const { request, user } = input;
  const prompts = request.prompts ?? [];
  if (prompts.includes('none')) return silentStep(deps, request, user);

  if (!(await reauthenticated(deps, input))) return signInAgain(deps, input);
  if (!user) return { kind: 'sign-in', returnTo: input.returnTo, reauthenticate: false };
  const consent = await deps.repos.consents.find(user.userKey, request.clientId);
  // OIDC Core §3.1.2.1: a request whose id_token_hint names another user than the signed-in one.
  const refused = unexpectedUser(deps, request, user.userKey);
  if (refused) return errorStep(request, consent, refused);

  if (!prompts.includes('consent') && request.consentMayBeRemembered !== false && covers(consent, request)) {
    // docs/decisions/0202: the fresh sign-in a marker stands for issues one code; a request that
    // lost the marker to another (a reload racing it) asks again.
    if (!(await spendMarker(deps, { ...input, user }))) return signInAgain(deps, input);
    return { kind: 'redirect', ...(await issueAuthorizationCode(deps, { request, userKey: user.userKey, sessionId: user.sessionId }, 'remembered')) };
  }
  return { kind: 'consent', newScopes: newScopesOf(consent, request.scopes, request.resources) };
}

/**
 * Whether the signed-in user authenticated recently enough for the request: always, without
 * `prompt=login` or `max_age`; with `max_age` alone, when the user authenticated at most that many
 * seconds ago (OIDC Core §3.1.2.1). Otherwise, and for `prompt=login` always, only after the
 * request asked: the request carries a live marker (`REAUTHENTICATION_PARAMETER` in `returnTo`)
 * made for this very request, and the user authenticated at or after the marker was made, in
 * another session than the one signed in then (docs/decisions/0096-prompt-login-marker.md), and
 * not spent by an earlier code (docs/decisions/0202). The consent form's answer checks it again
 * (`claimReauthentication`), so a form posted straight past the login page issues no code.
 *
 * @example
 * if (!(await reauthenticated(deps, { request, user, returnTo }))) redirectToAuthorize();
 */
export async function reauthenticated(
  deps: Pick<Deps, 'repos' | 'clock'>,
  input: { request: AuthorizationRequest; user: AuthorizingUser | undefined; returnTo: string },
): Promise<boolean> {
  const { request, user } = input;
  const promptLogin = (request.prompts ?? []).includes('login');
  if (!promptLogin && request.maxAge === undefined) return true;
  if (!user) return false;
  if (!promptLogin && request.maxAge !== undefined && withinMaxAge(user, request.maxAge, deps.clock.now())) return true;
  const marker = queryParameter(input.returnTo, REAUTHENTICATION_PARAMETER);
  if (marker === undefined || !INTERACTION_ID.test(marker)) return false;
  const interaction = await deps.repos.interactions.findByHash(sha256(marker));
  // A spent marker stood for a sign-in that already issued its code (docs/decisions/0202).
  if (!interaction || interaction.kind !== 'reauthentication' || interaction.consumedAt) return false;
  if (interaction.expiresAt.getTime() <= deps.clock.now().getTime()) return false;
  // The marker of one request never satisfies another (another client's, say): it was made for
  // this authorize URL, the marker parameter aside.
  if (withoutQueryParameter(interaction.returnTo, REAUTHENTICATION_PARAMETER) !== withoutQueryParameter(input.returnTo, REAUTHENTICATION_PARAMETER)) return false;
  return user.sessionId !== interaction.sessionId && user.authenticatedAt.getTime() >= interaction.createdAt.getTime();
}

/**
 * `reauthenticated`, and if it took the request's marker, spends it: a marker stands for one
 * sign-in, and that sign-in issues one code (docs/decisions/0202-a-fresh-sign-in-issues-one-code.md).
 * False when the request is not re-authenticated, or when another request spent the marker first;
 * either way the request then asks for a sign-in again. Called where a code is issued (the consent
 * form's Allow) or handed to the host's consent page; `nextAuthorizationStep` spends it itself when
 * a remembered consent issues the code at once.
 *
 * @example
 * if (!(await claimReauthentication(deps, { request, user, returnTo }))) res.redirect(303, returnTo);
 * else await approveAuthorization(deps, { request, userKey: user.userKey, sessionId: user.sessionId });
 */
export async function claimReauthentication(
  deps: Pick<Deps, 'repos' | 'clock'>,
  input: { request: AuthorizationRequest; user: AuthorizingUser | undefined; returnTo: string },
): Promise<boolean> {
  if (!(await reauthenticated(deps, input))) return false;
  return input.user !== undefined && (await spendMarker(deps, { ...input, user: input.user }));
}

/**
 * After `reauthenticated` said yes: spends the request's marker, if it carries one, by a conditional
 * write (of two requests racing with it, one wins). A `max_age` request's marker is spent even while
 * the fresh sign-in is within `max_age`, or reloading the request after `max_age` would find it
 * unspent and issue a code with an older `auth_time`. True when the request is satisfied: the marker
 * spent now, or no marker needed (no `prompt=login`, and no `max_age` or a sign-in within it).
 */
async function spendMarker(deps: Pick<Deps, 'repos' | 'clock'>, input: { request: AuthorizationRequest; user: AuthorizingUser; returnTo: string }): Promise<boolean> {
  const { request, user } = input;
  const now = deps.clock.now();
  const promptLogin = (request.prompts ?? []).includes('login');
  if (!promptLogin && request.maxAge === undefined) return true;
  const marker = queryParameter(input.returnTo, REAUTHENTICATION_PARAMETER);
  const spent = marker !== undefined && INTERACTION_ID.test(marker) && (await deps.repos.interactions.consume(sha256(marker), 'reauthentication', now)) !== undefined;
  return spent || (!promptLogin && request.maxAge !== undefined && withinMaxAge(user, request.maxAge, now));
}

/** A new marker for this request, and the sign-in that comes back to it (docs/decisions/0096). */
async function signInAgain(deps: StepDeps, input: StepInput): Promise<AuthorizationStep> {
  const { user } = input;
  const marker = await createInteraction(deps, { kind: 'reauthentication', returnTo: input.returnTo, userKey: user?.userKey ?? null, sessionId: user?.sessionId ?? null });
  return { kind: 'sign-in', returnTo: withQueryParameter(input.returnTo, REAUTHENTICATION_PARAMETER, marker), reauthenticate: true };
}

/** OIDC Core §3.1.2.1: `max_age` is the allowable time in seconds since the user last authenticated. */
export function withinMaxAge(user: Pick<AuthorizingUser, 'authenticatedAt'>, maxAgeSeconds: number, now: Date): boolean {
  return now.getTime() - user.authenticatedAt.getTime() <= maxAgeSeconds * 1000;
}

/** `prompt=none`: never a page (OIDC Core §3.1.2.1); the errors are those of OIDC Core §3.1.2.6. */
async function silentStep(deps: StepDeps, request: AuthorizationRequest, user: AuthorizingUser | undefined): Promise<AuthorizationStep> {
  const refusal = (code: 'login_required' | 'consent_required', description: string): Refusal => ({
    redirectTo: authorizationResponseUrl(deps.settings.issuer, request.redirectUri, { error: code, error_description: description, state: request.state }),
    error: new OAuthError(code, description),
  });
  if (!user) {
    // RFC 9700 §4.11.2: a redirect URI nothing vouches for gets nothing before the user has signed
    // in, or anyone who registers a client has an open redirector (docs/decisions/0184).
    if (request.redirectUriVouched === false) {
      return { kind: 'error-page', error: new OAuthError('login_required', 'The user is not signed in, and this app registered itself: nothing is sent back to it before the user signs in.') };
    }
    return { kind: 'redirect', redirectTo: refusal('login_required', 'The user is not signed in.').redirectTo };
  }
  const consent = await deps.repos.consents.find(user.userKey, request.clientId);
  const error = (code: 'login_required' | 'consent_required', description: string): AuthorizationStep => errorStep(request, consent, refusal(code, description));
  const refused = unexpectedUser(deps, request, user.userKey);
  if (refused) return errorStep(request, consent, refused);
  if (request.maxAge !== undefined && !withinMaxAge(user, request.maxAge, deps.clock.now())) return error('login_required', 'The user signed in too long ago for max_age.');
  // RFC 8252 §8.6: a public client whose redirect URI any local program could take gets no code
  // without the user's interaction (docs/decisions/0109-no-silent-consent-for-loopback-public-clients.md).
  if (request.consentMayBeRemembered === false) return error('consent_required', 'This app must be allowed by the user each time.');
  if (!covers(consent, request)) return error('consent_required', 'The user has not allowed this client these scopes.');
  return { kind: 'redirect', ...(await issueAuthorizationCode(deps, { request, userKey: user.userKey, sessionId: user.sessionId }, 'remembered')) };
}

/**
 * The scopes the user has not allowed the client before, at every resource the request names
 * (docs/decisions/0200-consent-remembered-per-resource.md). Without a remembered consent the whole
 * request is asked for the first time, and no scope is marked new.
 */
export function newScopesOf(consent: Consent | undefined, scopes: readonly string[], resources?: readonly string[]): string[] {
  if (!consent) return [];
  const allowed = allowedScopes(consent, resources);
  return scopes.filter((scope) => !allowed.includes(scope));
}

/**
 * The scopes a remembered consent allows for a request's resources: for the default audience (no
 * resource), its `scopes`; for resources, those allowed at every one of them (RFC 8707: a token for
 * a resource the user was never shown is never issued silently).
 */
function allowedScopes(consent: Consent, resources: readonly string[] | undefined): string[] {
  if (resources === undefined || resources.length === 0) return consent.scopes;
  const [first, ...rest] = resources.map((resource) => consent.resourceScopes?.[resource] ?? []);
  return (first ?? []).filter((scope) => rest.every((list) => list.includes(scope)));
}

/** An error of a checked request: where it goes back to the client, and what the error page says. */
type Refusal = { redirectTo: string; error: OAuthError };

/**
 * RFC 9700 §4.11.2: the user agent is redirected automatically only to a redirect URI the server
 * trusts. A client the operator or a portal user registered is vouched for (docs/decisions/0184);
 * a client that registered itself is trusted once this user has allowed it, and until then its
 * errors are shown on the error page, signed in or not, or anyone who registers a client could
 * send every signed-in user to its site from Gatehouse's origin
 * (docs/decisions/0198-no-error-redirects-to-unvouched-clients.md).
 */
function errorStep(request: AuthorizationRequest, consent: Consent | undefined, refusal: Refusal): AuthorizationStep {
  if (request.redirectUriVouched === false && consent === undefined) return { kind: 'error-page', error: refusal.error };
  return { kind: 'redirect', redirectTo: refusal.redirectTo };
}

function covers(consent: Consent | undefined, request: Pick<AuthorizationRequest, 'scopes' | 'resources'>): boolean {
  if (consent === undefined) return false;
  const allowed = allowedScopes(consent, request.resources);
  return request.scopes.every((scope) => allowed.includes(scope));
}

function queryParameter(path: string, name: string): string | undefined {
  const index = path.indexOf('?');
  const values = new URLSearchParams(index < 0 ? '' : path.slice(index + 1)).getAll(name);
  return values.length === 1 ? values[0] : undefined;
}

/** `path` with the query parameter `name` set to `value` (replacing any it had), the rest unchanged. */
function withQueryParameter(path: string, name: string, value: string): string {
  const kept = withoutQueryParameter(path, name);
  return `${kept}${kept.includes('?') ? '&' : '?'}${name}=${value}`;
}

/** `path` without the query parameter `name`, the rest as it was written. */
function withoutQueryParameter(path: string, name: string): string {
  const index = path.indexOf('?');
  const base = index < 0 ? path : path.slice(0, index);
  const kept = (index < 0 ? '' : path.slice(index + 1)).split('&').filter((pair) => pair !== '' && decodedName(pair) !== name);
  return kept.length === 0 ? base : `${base}?${kept.join('&')}`;
}

function decodedName(pair: string): string | undefined {
  try {
    return decodeURIComponent((pair.split('=')[0] ?? '').replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}
