import type { Request, Response } from 'express';
import { requestLogger } from '../logger.js';
import { logoutConfirmPage, signedOutPage } from './pages/logout.js';
import { sendPage } from '../pages/send.js';
import { CSRF_FIELD, csrfTokenMatches, issueCsrfToken } from '../security/csrf.js';
import type { FormFields } from '../security/form-body.js';
import { clearSessionCookie, safeReturnTo, sessionTokenOf } from '../security/session.js';
import type { OAuthContext } from './context.js';
import { sendCsrfFailure } from './page-forms.js';
import { gatehouseFor } from '../request-scope.js';

/** GET /oauth/logout: a confirmation form; a GET alone never signs out (a link or image could trigger it). */
export function logoutForm(ctx: OAuthContext) {
  return (req: Request, res: Response): void => {
    const signedIn = res.locals.signedIn;
    // Where signing in again goes (the consent page's "Not you? Sign out" keeps its request).
    const returnTo = safeReturnTo(req.query.return_to);
    if (!signedIn) return sendPage(res, 200, signedOutPage({ wasSignedIn: false, paths: ctx.paths, returnTo }));
    sendPage(res, 200, logoutConfirmPage({ csrfToken: res.locals.csrfToken as string, email: signedIn.user.email, paths: ctx.paths, returnTo }));
  };
}

/**
 * POST /oauth/logout: product logout. Ends the sign-in session and revokes every grant made
 * under it (their refresh and access tokens stop working), clears the cookie, renews the CSRF token.
 */
export function logoutSubmit(ctx: OAuthContext) {
  return async (req: Request, res: Response): Promise<void> => {
    const form = req.body as FormFields;
    if (!csrfTokenMatches(req, res, ctx.csrf, form[CSRF_FIELD])) {
      requestLogger(ctx.logger, res).warn({ event: 'csrf_refused', form: 'logout' }, 'logout form without a valid CSRF token');
      return sendCsrfFailure(res, { href: ctx.paths.logout, label: 'Back to sign out' }, ctx.paths);
    }
    const token = sessionTokenOf(req, ctx.issuer);
    let wasSignedIn = false;
    if (token !== undefined) {
      const { revokedGrantIds } = await gatehouseFor(ctx.gatehouse, res).logout(token);
      wasSignedIn = res.locals.signedIn !== undefined;
      requestLogger(ctx.logger, res).info({ event: 'logout', revokedGrants: revokedGrantIds.length }, 'signed out');
    }
    clearSessionCookie(res, ctx.issuer);
    issueCsrfToken(res, ctx.csrf);
    sendPage(res, 200, signedOutPage({ wasSignedIn, paths: ctx.paths, returnTo: safeReturnTo(form.return_to) }));
  };
}
