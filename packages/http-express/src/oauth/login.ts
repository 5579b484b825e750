import { DomainError, type RawParameters, type Session } from '@gatehouse/core';
import type { Request, Response } from 'express';
import { createHash } from 'node:crypto';
import { parse as parseQueryString } from 'node:querystring';
import * as v from 'valibot';
import { requestLogger } from '../logger.js';
import { loginPage, signedInPage, type LoginPageInput } from './pages/login.js';
import { errorPage } from '../pages/error.js';
import { sendPage } from '../pages/send.js';
import { CSRF_FIELD, issueCsrfToken, loginCsrfToken, loginCsrfTokenMatches } from '../security/csrf.js';
import type { FormFields } from '../security/form-body.js';
import { safeReturnTo, sessionTokenOf, setSessionCookie } from '../security/session.js';
import { clientIp, type OAuthContext } from './context.js';
import { documentFetchLimit } from './document-fetch-limit.js';
import { SignInForm, issueMessage } from './params.js';
import { gatehouseFor } from '../request-scope.js';

const WRONG_CREDENTIALS = 'The e-mail or password is not right.';

/** The parameters of the authorization request `returnTo` is, or undefined when it is another page. */
function authorizationParameters(ctx: OAuthContext, returnTo: string | undefined): RawParameters | undefined {
  if (returnTo === undefined) return undefined;
  const url = new URL(returnTo, 'http://gatehouse.invalid');
  if (url.pathname !== ctx.paths.authorize) return undefined;
  return parseQueryString(url.search.slice(1)) as RawParameters;
}

/**
 * What the login page takes from the authorization request `returnTo` is, only once its client
 * and redirect URI are checked (a made-up link cannot put a name on the page): the app's name
 * ("Sign in to continue to …"), kept when the request has another error, which the app learns
 * after sign-in (docs/decisions/0156); "Cancel" back to the app; and its `login_hint` (OIDC Core
 * §3.1.2.1), which fills in the e-mail field.
 */
async function requestOf(ctx: OAuthContext, req: Request, returnTo: string | undefined): Promise<{ appName?: string; loginHint?: string; cancellable?: boolean }> {
  const params = authorizationParameters(ctx, returnTo);
  if (params === undefined) return {};
  // A fetch this page would make counts as authorize's do; refused, the page names no app.
  const check = await ctx.gatehouse.checkAuthorizationRequest(params, documentFetchLimit(ctx, req).options);
  if (check.kind === 'show-error') return {};
  const loginHint = check.kind === 'valid' ? check.request.loginHint : undefined;
  return { appName: check.client.name, cancellable: true, ...(loginHint === undefined ? {} : { loginHint }) };
}

/** The sign-in page, with its script allowed (the show-password button; no inline script). */
function sendLoginPage(ctx: OAuthContext, res: Response, status: number, input: Omit<LoginPageInput, 'paths' | 'passwordHelp'>): void {
  sendPage(res, status, loginPage({ ...input, paths: ctx.paths, passwordHelp: ctx.passwordHelp }), { scripts: true });
}

/**
 * "Cancel and go back to the app" (docs/decisions/0156): `access_denied` with the request's
 * `state` to its checked redirect URI (RFC 6749 §4.1.2.1), 303; a request that cannot be answered
 * (no authorization request, an untrusted client or redirect URI) is a 400 page, never a redirect.
 */
async function cancelSignIn(ctx: OAuthContext, res: Response, returnTo: string | undefined): Promise<void> {
  const params = authorizationParameters(ctx, returnTo);
  const cancelled = params === undefined ? undefined : await gatehouseFor(ctx.gatehouse, res).cancelAuthorization(params);
  res.setHeader('Cache-Control', 'no-store');
  if (cancelled === undefined) {
    sendPage(res, 400, errorPage({ title: 'There is no app to go back to', message: 'This sign-in was not started by an app that Gatehouse can send you back to. Close this page, or go back in your browser.', paths: ctx.paths }));
    return;
  }
  requestLogger(ctx.logger, res).info({ event: 'sign_in_cancelled' }, 'sign-in cancelled: access_denied to the app');
  res.redirect(303, cancelled.redirectTo);
}

/**
 * With `loginUrl` the host signs users in, and Gatehouse's form is not served (it knows no
 * password of the host's users; docs/decisions/0142): an authorization request's `return_to` goes
 * back to the authorize endpoint, which hands the browser to the host's login with a login
 * request; anything else goes to the host's login page.
 */
function toHostLogin(ctx: OAuthContext, res: Response, status: 302 | 303, returnTo: string | undefined, loginUrl: string): void {
  const toAuthorize = returnTo !== undefined && new URL(returnTo, 'http://gatehouse.invalid').pathname === ctx.paths.authorize;
  res.setHeader('Cache-Control', 'no-store');
  res.redirect(status, toAuthorize ? returnTo : loginUrl);
}

/**
 * GET /oauth/login: the sign-in form (its e-mail filled in with the request's `login_hint`), or,
 * with `loginUrl`, on to the host's login (`toHostLogin`), or
 * straight on to `return_to` when already signed in (else a
 * page linking on to `afterSignIn`), unless `prompt=login` (an authorization request asked for the
 * password again: the form then, whose sign-in starts a new session; docs/decisions/0096-prompt-login-marker.md).
 */
export function loginForm(ctx: OAuthContext) {
  return async (req: Request, res: Response): Promise<void> => {
    const returnTo = safeReturnTo(req.query.return_to);
    if (ctx.loginUrl !== undefined) return toHostLogin(ctx, res, 302, returnTo, ctx.loginUrl);
    const signedIn = res.locals.signedIn;
    const reauthenticate = req.query.prompt === 'login' && returnTo !== undefined;
    if (signedIn && !reauthenticate) {
      if (returnTo !== undefined) {
        res.setHeader('Cache-Control', 'no-store');
        res.redirect(302, returnTo);
        return;
      }
      sendPage(res, 200, signedInPage({ email: signedIn.user.email, paths: ctx.paths, onward: ctx.afterSignIn }));
      return;
    }
    const { appName, loginHint, cancellable } = await requestOf(ctx, req, returnTo);
    sendLoginPage(ctx, res, 200, { csrfToken: loginCsrfToken(req, res, ctx.csrf), returnTo, appName, cancellable, ...(loginHint === undefined ? {} : { email: loginHint }) });
  };
}

/**
 * An e-mail address as the sign-in log lines name it (docs/decisions/0151): the first 16 hex digits
 * of the SHA-256 of the address as the rate limit counts it (trimmed, lower case), so an operator
 * finds a user's lines (`printf %s ada@example.com | sha256sum | cut -c1-16`) and the log holds no address.
 *
 * @example
 * emailHash(' Ada@Example.com'); // the same as emailHash('ada@example.com')
 */
export function emailHash(email: string): string {
  return createHash('sha256').update(email.trim().toLowerCase()).digest('hex').slice(0, 16);
}

/**
 * POST /oauth/login: checks the CSRF token, the rate limit (failed sign-ins per e-mail and per
 * IP; only failures count), then the password. Success sets the session cookie, rotates the CSRF
 * token and goes to `return_to` (a same-origin path only); a session the browser held is ended
 * (`replaceSession`). Failure shows the form again (401) with one message whichever of e-mail or
 * password was wrong.
 */
export function loginSubmit(ctx: OAuthContext) {
  return async (req: Request, res: Response): Promise<void> => {
    const form = req.body as FormFields;
    const returnTo = safeReturnTo(form.return_to);
    // No password is checked here when the host signs users in (nothing is written either).
    if (ctx.loginUrl !== undefined) return toHostLogin(ctx, res, 303, returnTo, ctx.loginUrl);
    const log = requestLogger(ctx.logger, res);
    const again = async (status: number, message: string, email?: string) => {
      const { appName, cancellable } = await requestOf(ctx, req, returnTo);
      sendLoginPage(ctx, res, status, { csrfToken: loginCsrfToken(req, res, ctx.csrf), returnTo, message, appName, cancellable, ...(email === undefined ? {} : { email }) });
    };

    if (!loginCsrfTokenMatches(req, ctx.csrf, form[CSRF_FIELD])) {
      log.warn({ event: 'csrf_refused', form: 'login' }, 'login form without a valid CSRF token');
      return again(403, 'The sign-in form had expired. Please try again.', form.email);
    }
    // "Cancel and go back to the app" (docs/decisions/0156): no password, no rate limit involved.
    if (form.cancel !== undefined) return cancelSignIn(ctx, res, returnTo);
    // Empty fields were dropped as omitted; the form's own words say what is missing.
    const parsed = v.safeParse(SignInForm, { email: form.email ?? '', password: form.password ?? '' });
    if (!parsed.success) return again(400, issueMessage(parsed.issues[0]), form.email);
    const { email, password } = parsed.output;

    const ip = clientIp(req);
    // Counted as a failure before the password is checked, and only while there is room: a burst of
    // guesses sent at once gets no more checks than the limit (docs/decisions/0181).
    const limit = await ctx.limits.signIn.admit(email, ip);
    if (limit.limited) {
      // Which account and address (docs/decisions/0151): the e-mail by its hash (no e-mail in the logs), the address as is.
      log.warn({ event: 'rate_limited', limit: 'sign_in', emailHash: emailHash(email), ip, retryAfterSeconds: limit.retryAfterSeconds }, 'sign-in rate limited');
      res.setHeader('Retry-After', String(limit.retryAfterSeconds));
      const minutes = Math.ceil(limit.retryAfterSeconds / 60);
      return again(429, `Too many failed sign-ins. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`, email);
    }

    let sessionToken: string;
    let session: Session;
    try {
      ({ sessionToken, session } = await gatehouseFor(ctx.gatehouse, res).signIn({ email, password }));
    } catch (error) {
      // A wrong password stays counted; anything else (an outage) was no failure of the user's.
      if (error instanceof DomainError && error.kind === 'unauthenticated') return again(401, WRONG_CREDENTIALS, email);
      await ctx.limits.signIn.withdraw(email, ip, limit.at);
      throw error;
    }
    // Only failures count (docs/decisions/0023).
    await ctx.limits.signIn.withdraw(email, ip, limit.at);
    // The session this browser held must not outlive its cookie: another user's is signed out, the
    // same user's handed over to the new one (docs/decisions/0191, 0194).
    const previousToken = sessionTokenOf(req, ctx.issuer);
    if (previousToken !== undefined) await gatehouseFor(ctx.gatehouse, res).replaceSession(previousToken, session);
    setSessionCookie(res, ctx.issuer, sessionToken);
    issueCsrfToken(res, ctx.csrf);
    // One line per sign-in: the core's audit event (sign_in.succeeded, with this request's reqId).
    res.setHeader('Cache-Control', 'no-store');
    res.redirect(303, returnTo ?? ctx.afterSignIn ?? ctx.paths.login);
  };
}
