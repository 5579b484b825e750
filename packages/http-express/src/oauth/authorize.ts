import { clientOrigin, DomainError, findResource, OAuthError, type AuthorizationRequest, type AuthorizationRequestCheck, type AuthorizingUser, type RawParameters } from '@gatehouse/core';
import type { Request, Response } from 'express';
import { parse as parseQueryString } from 'node:querystring';
import { requestLogger } from '../logger.js';
import { consentImageOrigin, consentPage } from './pages/consent.js';
import { errorPage } from '../pages/error.js';
import { sendPage } from '../pages/send.js';
import { CSRF_FIELD, csrfTokenMatches } from '../security/csrf.js';
import type { FormFields } from '../security/form-body.js';
import type { SignedInState } from '../security/locals.js';
import { loginUrl } from '../security/session.js';
import { clientIp, withParameter, type OAuthContext } from './context.js';
import { documentFetchLimit } from './document-fetch-limit.js';
import { sendCsrfFailure } from './page-forms.js';
import { gatehouseFor } from '../request-scope.js';

/** The raw query string of the request (without `?`), carried unchanged from authorize to decision. */
function rawQuery(req: Request): string {
  const index = req.originalUrl.indexOf('?');
  return index < 0 ? '' : req.originalUrl.slice(index + 1);
}

/**
 * The request's parameters, parsed here rather than taken from `req.query`, so that a host's
 * own `query parser` setting changes nothing: Express 5's "simple" parser (node:querystring), a
 * repeated parameter being an array, which the core refuses.
 */
function queryParameters(req: Request): RawParameters {
  return parseQueryString(rawQuery(req)) as RawParameters;
}

/** The authorize URL of this request under the mount path (where sign-in comes back to). */
function authorizeUrl(ctx: OAuthContext, req: Request): string {
  const query = rawQuery(req);
  return query === '' ? ctx.paths.authorize : `${ctx.paths.authorize}?${query}`;
}

/**
 * Sends the browser to sign in, to come back to `returnTo` (this authorization request): to the
 * host's login page with a single-use login request when the host signs users in
 * (docs/decisions/0091), else to Gatehouse's login page with `return_to`. With `reauthenticate`
 * (`prompt=login`), Gatehouse's login page asks a signed-in user for the password too.
 */
async function sendToLogin(ctx: OAuthContext, res: Response, status: 302 | 303, returnTo: string, reauthenticate = false): Promise<void> {
  res.setHeader('Cache-Control', 'no-store');
  if (ctx.loginUrl !== undefined) {
    const { loginRequest } = await gatehouseFor(ctx.gatehouse, res).startLogin({ returnTo });
    res.redirect(status, withParameter(ctx.loginUrl, 'login_request', loginRequest));
    return;
  }
  const login = loginUrl(returnTo, ctx.paths.login);
  res.redirect(status, reauthenticate ? withParameter(login, 'prompt', 'login') : login);
}

/** The signed-in user as the core sees them: who, which session, since when. */
function authorizingUser(signedIn: SignedInState | undefined): AuthorizingUser | undefined {
  return signedIn && { userKey: signedIn.user.userKey, sessionId: signedIn.session.sessionId, authenticatedAt: signedIn.session.authenticatedAt };
}

/**
 * Whether answering this request makes Gatehouse store something for a browser that is not signed
 * in: a login request for the host's login page (`loginUrl`), or the marker of a request that wants
 * a fresh sign-in (`prompt=login`, `max_age`).
 */
function storesForAnonymous(ctx: OAuthContext, res: Response, request: AuthorizationRequest | undefined): boolean {
  if (res.locals.signedIn) return false;
  return ctx.loginUrl !== undefined || (request !== undefined && ((request.prompts ?? []).includes('login') || request.maxAge !== undefined));
}

/**
 * What browsers that are not signed in make Gatehouse store is limited per IP address
 * (docs/decisions/0108-anonymous-requests-store-bounded-state.md): each such request counts, and
 * past the limit the answer is a 429 page with `Retry-After`, nothing stored. True when it answered.
 */
async function refusedAnonymousRequest(ctx: OAuthContext, req: Request, res: Response): Promise<boolean> {
  const ip = clientIp(req);
  const limit = await ctx.limits.anonymousRequests.check(ip);
  if (!limit.limited) {
    await ctx.limits.anonymousRequests.record(ip);
    return false;
  }
  requestLogger(ctx.logger, res).warn({ event: 'rate_limited', limit: 'anonymous authorization requests', ip, retryAfterSeconds: limit.retryAfterSeconds }, 'authorization requests of a signed-out browser rate limited');
  res.setHeader('Retry-After', String(limit.retryAfterSeconds));
  res.setHeader('Cache-Control', 'no-store');
  const minutes = Math.max(1, Math.ceil(limit.retryAfterSeconds / 60));
  sendPage(res, 429, errorPage({ title: 'Too many sign-in attempts', message: `Too many sign-ins were started from your network. Please try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`, paths: ctx.paths }));
  return true;
}

/**
 * The core's refusals of what an authorization request would store (docs/decisions/0108): a
 * request too long to keep is a 400 page, a full table of pending sign-ins a 503 page with
 * `Retry-After`. Anything else is thrown on.
 */
function answerStoreRefusal(ctx: OAuthContext, res: Response, error: unknown): void {
  if (!(error instanceof DomainError) || (error.kind !== 'unavailable' && !(error.kind === 'invalid' && error.field === 'returnTo'))) throw error;
  res.setHeader('Cache-Control', 'no-store');
  if (error.kind === 'invalid') {
    sendPage(res, 400, errorPage({ title: 'This sign-in link is not valid', message: `${error.message} Please tell the developer of the app that sent you here.`, paths: ctx.paths }));
    return;
  }
  requestLogger(ctx.logger, res).warn({ event: 'anonymous_interactions_full' }, 'pending sign-ins of signed-out browsers at their cap');
  res.setHeader('Retry-After', '60');
  sendPage(res, 503, errorPage({ title: 'Please try again in a minute', message: error.message, paths: ctx.paths }));
}

/** A parameter as a log line shows it: the first value, at most `max` characters. */
function logged(value: unknown, max: number): string | undefined {
  const first = Array.isArray(value) ? (value[0] as unknown) : value;
  return typeof first === 'string' ? first.slice(0, max) : undefined;
}

/** The client and redirect URI an authorization request names (as sent; the first of a repeated one), for its log line. */
function requestNames(req: Request): { clientId?: string; redirectUri?: string } {
  const params = queryParameters(req);
  const clientId = logged(params.client_id, 128);
  const redirectUri = logged(params.redirect_uri, 512);
  return { ...(clientId === undefined ? {} : { clientId }), ...(redirectUri === undefined ? {} : { redirectUri }) };
}

/** The 400 page of an authorization request that cannot be answered with a redirect. */
function sendRefusalPage(ctx: OAuthContext, res: Response, error: OAuthError): void {
  sendPage(
    res,
    400,
    errorPage({
      title: 'This sign-in link is not valid',
      message: `${error.description} Please tell the developer of the app that sent you here.`,
      code: error.code,
      paths: ctx.paths,
      ...(ctx.startPage === undefined ? {} : { link: { href: ctx.startPage, label: 'Go to the start page' } }),
    }),
  );
}

/** Whether the request's one `prompt` parameter includes `none` (a repeated one is refused by the check). */
function asksForNoPrompt(req: Request): boolean {
  const prompt = queryParameters(req).prompt;
  return typeof prompt === 'string' && prompt.split(' ').includes('none');
}

/**
 * Answers a request that failed the check: an untrusted client or redirect URI is a 400 page
 * and never a redirect (RFC 6749 §4.1.2.1). Any other error goes back to the client (302), but
 * only for an authenticated user (RFC 9700 §4.11.2: the AS MUST authenticate the user before
 * redirecting, or anyone who registers a client has an open redirector): a signed-out browser
 * is sent to the login page, which brings it back here, where the request is checked again
 * (docs/decisions/0026); with `prompt=none`, which shows no sign-in page (OIDC Core §3.1.2.1), it
 * gets the error page instead. Only a valid silent request is answered at once (`login_required`,
 * by `nextAuthorizationStep`). Returns true when it answered.
 */
async function answerFailedCheck(ctx: OAuthContext, req: Request, res: Response, check: AuthorizationRequestCheck, loginStatus: 302 | 303): Promise<boolean> {
  if (check.kind === 'show-error') {
    // What the app's developer asks support about: which client, sending which redirect_uri (not secret: it travels in the URL).
    requestLogger(ctx.logger, res).info({ oauthError: check.error.code, detail: check.error.detail, ...requestNames(req) }, 'authorization request refused');
    sendRefusalPage(ctx, res, check.error);
    return true;
  }
  if (check.kind === 'redirect-error') {
    res.setHeader('Cache-Control', 'no-store');
    if (!res.locals.signedIn) {
      // OIDC Core §3.1.2.1: prompt=none "MUST NOT display any authentication" UI, and the error may
      // not go back before the user is authenticated (RFC 9700 §4.11.2): the error page says it.
      if (asksForNoPrompt(req)) {
        requestLogger(ctx.logger, res).info({ oauthError: check.error.code, detail: check.error.detail, ...requestNames(req) }, 'silent authorization request refused');
        sendRefusalPage(ctx, res, check.error);
        return true;
      }
      await sendToLogin(ctx, res, loginStatus, authorizeUrl(ctx, req));
      return true;
    }
    requestLogger(ctx.logger, res).info({ oauthError: check.error.code, ...requestNames(req) }, 'authorization request refused with a redirect');
    res.redirect(302, check.redirectTo);
    return true;
  }
  return false;
}

/**
 * GET /oauth/authorize (RFC 6749 §4.1.1). Checked first (an untrusted client or redirect URI
 * is the error page for anyone); then the core says the next step (docs/decisions/0095): sign in
 * (the host's login with `loginUrl`; again with `prompt=login`), a redirect to the client (a code
 * when the consent is remembered, or `prompt=none`'s error), or the consent page (the host's, with
 * `consentUrl`), whose form posts the same query string to the decision URL.
 */
export function authorizeEndpoint(ctx: OAuthContext) {
  return async (req: Request, res: Response): Promise<void> => {
    const fetches = documentFetchLimit(ctx, req);
    const check = await ctx.gatehouse.checkAuthorizationRequest(queryParameters(req), fetches.options);
    if (fetches.answeredRefusal(res)) return;
    if (check.kind !== 'show-error' && storesForAnonymous(ctx, res, check.kind === 'valid' ? check.request : undefined) && (await refusedAnonymousRequest(ctx, req, res))) return;
    try {
      await answerAuthorization(ctx, req, res, check);
    } catch (error) {
      answerStoreRefusal(ctx, res, error);
    }
  };
}

/**
 * POST /oauth/authorize: OIDC Core §3.1.2.1 says the authorization endpoint MUST accept POST, its
 * parameters form-encoded in the body. It is the same request as a GET with those parameters, so it
 * is answered with a 303 to that GET: one home for every rule of the request, and a top-level GET
 * carries the session cookie (SameSite=Lax) that a cross-site POST does not. The body is read as every
 * form is (UTF-8, at most 16 kB, a repeated parameter refused); parameters in the URL as well are
 * refused, since which of the two would count is anybody's guess
 * (docs/decisions/0199-authorization-requests-by-post.md).
 */
export function authorizeByPost(ctx: OAuthContext) {
  return (req: Request, res: Response): void => {
    if (rawQuery(req) !== '') {
      sendRefusalPage(ctx, res, new OAuthError('invalid_request', 'An authorization request sent with POST carries its parameters in the body only, not in the URL.'));
      return;
    }
    const query = new URLSearchParams(req.body as FormFields).toString();
    res.setHeader('Cache-Control', 'no-store');
    res.redirect(303, query === '' ? ctx.paths.authorize : `${ctx.paths.authorize}?${query}`);
  };
}

async function answerAuthorization(ctx: OAuthContext, req: Request, res: Response, check: AuthorizationRequestCheck): Promise<void> {
  if ((await answerFailedCheck(ctx, req, res, check, 302)) || check.kind !== 'valid') return;
  const signedIn = res.locals.signedIn;
  const step = await gatehouseFor(ctx.gatehouse, res).nextAuthorizationStep({ request: check.request, user: authorizingUser(signedIn), returnTo: authorizeUrl(ctx, req) });
  if (step.kind === 'redirect') {
    res.setHeader('Cache-Control', 'no-store');
    res.redirect(302, step.redirectTo);
    return;
  }
  if (step.kind === 'error-page') {
    // prompt=none of a signed-out user, for a client that registered itself (docs/decisions/0184).
    requestLogger(ctx.logger, res).info({ oauthError: step.error.code, ...requestNames(req) }, 'silent authorization request answered on the error page');
    res.setHeader('Cache-Control', 'no-store');
    sendRefusalPage(ctx, res, step.error);
    return;
  }
  // The core asks for consent only of a signed-in user; `!signedIn` narrows the type.
  if (step.kind === 'sign-in' || !signedIn) {
    await sendToLogin(ctx, res, 302, step.kind === 'sign-in' ? step.returnTo : authorizeUrl(ctx, req), step.kind === 'sign-in' && step.reauthenticate);
    return;
  }
  if (ctx.consentUrl !== undefined) {
    // The host asks for consent (docs/decisions/0091): a single-use consent request goes with the
    // browser. A fresh sign-in that the request asked for is spent on it (docs/decisions/0202): a
    // reload of the request signs in again.
    if (!(await ctx.gatehouse.claimReauthentication({ request: check.request, user: authorizingUser(signedIn), returnTo: authorizeUrl(ctx, req) }))) {
      res.setHeader('Cache-Control', 'no-store');
      res.redirect(302, authorizeUrl(ctx, req));
      return;
    }
    const { consentRequest } = await gatehouseFor(ctx.gatehouse, res).startConsent({
      returnTo: authorizeUrl(ctx, req),
      userKey: signedIn.user.userKey,
      sessionId: signedIn.session.sessionId,
    });
    res.setHeader('Cache-Control', 'no-store');
    res.redirect(302, withParameter(ctx.consentUrl, 'consent_request', consentRequest));
    return;
  }
  const query = rawQuery(req);
  // Who registered it, its links and logo, the first-party mark (docs/decisions/0155).
  const presentation = await ctx.gatehouse.presentClient(check.client);
  sendPage(
    res,
    200,
    consentPage({
      csrfToken: res.locals.csrfToken as string,
      clientName: check.client.name,
      scopes: check.request.scopes,
      newScopes: step.newScopes,
      catalogue: ctx.gatehouse.settings.scopes,
      resources: (check.request.resources ?? []).flatMap((uri) => findResource(ctx.gatehouse.settings.resources, uri) ?? []),
      redirectUri: check.request.redirectUri,
      formAction: `${ctx.paths.decision}?${query}`,
      userEmail: signedIn.user.email,
      returnTo: authorizeUrl(ctx, req),
      paths: ctx.paths,
      origin: clientOrigin(check.client),
      presentation,
    }),
    { imageOrigin: consentImageOrigin(presentation) },
  );
}

/**
 * POST /oauth/authorize/decision?<the authorize parameters>: the consent form's answer. The CSRF
 * token is checked, the parameters are checked again (and, with `prompt=login`, the new sign-in),
 * then Allow remembers the consent and issues a code, and Deny sends
 * `access_denied` (RFC 6749 §4.1.2.1), both as a redirect to the client.
 */
export function decisionEndpoint(ctx: OAuthContext) {
  return async (req: Request, res: Response): Promise<void> => {
    const form = req.body as FormFields;
    const backToAuthorize = authorizeUrl(ctx, req);
    if (!csrfTokenMatches(req, res, ctx.csrf, form[CSRF_FIELD])) {
      requestLogger(ctx.logger, res).warn({ event: 'csrf_refused', form: 'consent' }, 'consent form without a valid CSRF token');
      return sendCsrfFailure(res, { href: backToAuthorize, label: 'Back to the request' }, ctx.paths);
    }
    const fetches = documentFetchLimit(ctx, req);
    const check = await ctx.gatehouse.checkAuthorizationRequest(queryParameters(req), fetches.options);
    if (fetches.answeredRefusal(res)) return;
    if (check.kind !== 'show-error' && storesForAnonymous(ctx, res, undefined) && (await refusedAnonymousRequest(ctx, req, res))) return;
    try {
      if ((await answerFailedCheck(ctx, req, res, check, 303)) || check.kind !== 'valid') return;
    } catch (error) {
      return answerStoreRefusal(ctx, res, error);
    }
    const signedIn = res.locals.signedIn;
    if (!signedIn) {
      try {
        await sendToLogin(ctx, res, 303, backToAuthorize);
      } catch (error) {
        answerStoreRefusal(ctx, res, error);
      }
      return;
    }
    if (!(await ctx.gatehouse.claimReauthentication({ request: check.request, user: authorizingUser(signedIn), returnTo: backToAuthorize }))) {
      // prompt=login, and the form was posted without signing in again, or with a sign-in that
      // already issued its code (docs/decisions/0202): back to the request, which asks for it.
      res.setHeader('Cache-Control', 'no-store');
      res.redirect(303, backToAuthorize);
      return;
    }
    const decision = form.decision;
    res.setHeader('Cache-Control', 'no-store');
    if (decision === 'allow') {
      const { redirectTo } = await gatehouseFor(ctx.gatehouse, res).approveAuthorization({
        request: check.request,
        userKey: signedIn.user.userKey,
        sessionId: signedIn.session.sessionId,
      });
      res.redirect(302, redirectTo);
      return;
    }
    if (decision === 'deny') {
      const { redirectTo } = gatehouseFor(ctx.gatehouse, res).denyAuthorization({ request: check.request, userKey: signedIn.user.userKey });
      res.redirect(302, redirectTo);
      return;
    }
    const error = new OAuthError('invalid_request', 'Choose Allow or Deny.');
    sendPage(res, 400, errorPage({ title: 'No choice was made', message: error.description, link: { href: backToAuthorize, label: 'Back to the request' }, paths: ctx.paths }));
  };
}
