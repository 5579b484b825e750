import { isEndSessionRequest, postLogoutRedirect, type EndSessionRequest, type RawParameters } from '@gatehouse/core';
import type { Request, Response } from 'express';
import { parse as parseQueryString } from 'node:querystring';
import { requestLogger } from '../logger.js';
import { errorPage } from '../pages/error.js';
import { logoutConfirmPage, signedOutPage } from './pages/logout.js';
import { sendPage } from '../pages/send.js';
import { CSRF_FIELD, csrfTokenMatches, issueCsrfToken } from '../security/csrf.js';
import type { FormFields } from '../security/form-body.js';
import { clearSessionCookie, safeReturnTo, sessionTokenOf } from '../security/session.js';
import type { OAuthContext } from './context.js';
import { sendCsrfFailure } from './page-forms.js';
import { gatehouseFor } from '../request-scope.js';

/** The request's query parameters, as the authorize endpoint reads them (a repeated one is an array, refused by the core). */
function queryParameters(req: Request): RawParameters {
  const index = req.originalUrl.indexOf('?');
  return parseQueryString(index < 0 ? '' : req.originalUrl.slice(index + 1)) as RawParameters;
}

/** Whether these parameters are an RP-initiated logout, which only an OpenID Provider serves (RP-Initiated Logout 1.0). */
function endSessionParameters(ctx: OAuthContext, params: RawParameters): boolean {
  return ctx.gatehouse.settings.openid && isEndSessionRequest(params);
}

/**
 * GET /oauth/logout: a confirmation form; a GET alone never signs out (a link or image could
 * trigger it), except an RP-initiated logout whose `id_token_hint` names this very sign-in
 * (RP-Initiated Logout 1.0 §2; docs/decisions/0135-rp-initiated-logout.md).
 */
export function logoutForm(ctx: OAuthContext) {
  return async (req: Request, res: Response): Promise<void> => {
    const params = queryParameters(req);
    if (endSessionParameters(ctx, params)) return endSession(ctx, req, res, params);
    const signedIn = res.locals.signedIn;
    // Where signing in again goes (the consent page's "Not you? Sign out" keeps its request).
    const returnTo = safeReturnTo(req.query.return_to);
    if (!signedIn) return sendPage(res, 200, signedOutPage({ wasSignedIn: false, paths: ctx.paths, returnTo }));
    sendPage(res, 200, logoutConfirmPage({ csrfToken: res.locals.csrfToken as string, email: signedIn.user.email, paths: ctx.paths, returnTo }));
  };
}

/**
 * POST /oauth/logout: product logout. Ends the sign-in session and revokes every grant made
 * under it (their refresh and access tokens stop working), clears the cookie, renews the CSRF
 * token. The confirmation of an RP-initiated logout then goes back to the relying party's
 * post-logout redirect URI (checked again), with its `state`. A POST without a CSRF token that
 * carries RP-initiated logout parameters is a relying party's request (§2: GET and POST): a 303 to
 * the same request as a GET (docs/decisions/0205).
 */
export function logoutSubmit(ctx: OAuthContext) {
  return async (req: Request, res: Response): Promise<void> => {
    const form = req.body as FormFields;
    const { [CSRF_FIELD]: csrfToken, return_to: returnTo, ...rest } = form;
    const rpInitiated = endSessionParameters(ctx, rest);
    if (rpInitiated && csrfToken === undefined) {
      // A relying party's POST (§2: GET and POST) is the same request as the GET with its
      // parameters: a 303 to it, which a browser follows as a top-level GET carrying the session
      // cookie (SameSite=Lax), which a POST from the relying party's site does not carry — so
      // the sign-in it asks to end is seen, and ended (docs/decisions/0205).
      res.setHeader('Cache-Control', 'no-store');
      return void res.redirect(303, `${ctx.paths.logout}?${new URLSearchParams(rest as Record<string, string>).toString()}`);
    }
    if (!csrfTokenMatches(req, res, ctx.csrf, csrfToken)) {
      requestLogger(ctx.logger, res).warn({ event: 'csrf_refused', form: 'logout' }, 'logout form without a valid CSRF token');
      return sendCsrfFailure(res, { href: ctx.paths.logout, label: 'Back to sign out' }, ctx.paths);
    }
    let request: EndSessionRequest | undefined;
    if (rpInitiated) {
      const check = await ctx.gatehouse.checkEndSessionRequest(rest, res.locals.signedIn?.session);
      if (check.kind === 'show-error') return sendRefusal(ctx, res, check.error.description);
      request = check.request;
    }
    const wasSignedIn = await endSignIn(ctx, req, res, request);
    const redirectTo = request && postLogoutRedirect(request);
    if (redirectTo !== undefined) return void res.redirect(303, redirectTo);
    sendPage(res, 200, signedOutPage({ wasSignedIn, paths: ctx.paths, returnTo: safeReturnTo(returnTo) }));
  };
}

/**
 * An RP-initiated logout request (RP-Initiated Logout 1.0 §2, §3): refused with an error page when
 * its client or post-logout redirect URI cannot be trusted (never a redirect); with nobody signed
 * in, straight back to the relying party (nothing to end); with a hint of this very sign-in, the
 * sign-in ends at once; else the user confirms (the form posts back here).
 */
async function endSession(ctx: OAuthContext, req: Request, res: Response, params: RawParameters): Promise<void> {
  const signedIn = res.locals.signedIn;
  const check = await ctx.gatehouse.checkEndSessionRequest(params, signedIn?.session);
  if (check.kind === 'show-error') return sendRefusal(ctx, res, check.error.description, check.error.detail);
  const { request } = check;
  const redirectTo = postLogoutRedirect(request);
  if (!signedIn || request.confirmed) {
    const wasSignedIn = signedIn ? await endSignIn(ctx, req, res, request) : false;
    res.setHeader('Cache-Control', 'no-store');
    if (redirectTo !== undefined) return void res.redirect(303, redirectTo);
    return sendPage(res, 200, signedOutPage({ wasSignedIn, paths: ctx.paths, returnTo: undefined }));
  }
  sendPage(
    res,
    200,
    logoutConfirmPage({
      csrfToken: res.locals.csrfToken as string,
      email: signedIn.user.email,
      paths: ctx.paths,
      returnTo: undefined,
      ...(request.client === undefined ? {} : { appName: request.client.name }),
      // The form carries what the logout goes back with; the POST checks it again.
      endSession: {
        ...(request.client === undefined ? {} : { client_id: request.client.clientId }),
        ...(request.postLogoutRedirectUri === undefined ? {} : { post_logout_redirect_uri: request.postLogoutRedirectUri }),
        ...(request.state === undefined ? {} : { state: request.state }),
      },
    }),
  );
}

/** Ends the browser's sign-in (and the grants made under it), clears the cookie, renews the CSRF token; true when it was signed in. */
async function endSignIn(ctx: OAuthContext, req: Request, res: Response, request: EndSessionRequest | undefined): Promise<boolean> {
  const token = sessionTokenOf(req, ctx.issuer);
  let wasSignedIn = false;
  if (token !== undefined) {
    const clientId = request?.client?.clientId;
    const { revokedGrantIds } = await gatehouseFor(ctx.gatehouse, res).logout(token, clientId === undefined ? {} : { clientId });
    wasSignedIn = res.locals.signedIn !== undefined;
    requestLogger(ctx.logger, res).info({ event: 'logout', revokedGrants: revokedGrantIds.length, ...(clientId === undefined ? {} : { clientId }) }, 'signed out');
  }
  clearSessionCookie(res, ctx.issuer);
  issueCsrfToken(res, ctx.csrf);
  return wasSignedIn;
}

/** A sign-out link that cannot be trusted: a 400 page, never a redirect (RP-Initiated Logout 1.0 §3). */
function sendRefusal(ctx: OAuthContext, res: Response, description: string, detail?: string): void {
  requestLogger(ctx.logger, res).info({ oauthError: 'invalid_request', detail }, 'end-session request refused');
  res.setHeader('Cache-Control', 'no-store');
  sendPage(
    res,
    400,
    errorPage({
      title: 'This sign-out link is not valid',
      message: `${description} Please tell the developer of the app that sent you here.`,
      code: 'invalid_request',
      paths: ctx.paths,
      ...(ctx.startPage === undefined ? {} : { link: { href: ctx.startPage, label: 'Go to the start page' } }),
    }),
  );
}
