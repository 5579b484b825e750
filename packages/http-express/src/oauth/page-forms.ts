import type { NextFunction, Request, Response } from 'express';
import { csrfCookieName, repeatedCookie, sessionCookieName } from '../security/cookies.js';
import { errorPage } from '../pages/error.js';
import type { PagePaths } from '../pages/paths.js';
import { sendPage } from '../pages/send.js';
import { formBody, type FormBodyFailure } from '../security/form-body.js';

/** The form body parser of the HTML forms: a body it cannot accept gets an error page (linking under `paths`). */
export function pageFormBodyFor(paths?: PagePaths) {
  return formBody({
    onError: (_req: Request, res: Response, failure: FormBodyFailure) =>
      sendPage(res, failure.status, errorPage({ title: 'The form could not be read', message: failure.description, paths })),
  });
}

/** `pageFormBodyFor` of pages served at the root. */
export const pageFormBody = pageFormBodyFor();

/** A POST form whose CSRF token is missing or wrong. */
export function sendCsrfFailure(res: Response, link: { href: string; label: string }, paths?: PagePaths): void {
  sendPage(
    res,
    403,
    errorPage({
      title: 'The form has expired',
      message: 'This form was not submitted from this browser session, or it is too old. Open the page again and retry.',
      link,
      paths,
    }),
  );
}

/**
 * Refuses (400 page) a request that carries the session or CSRF cookie more than once: which
 * copy comes first is the browser's choice, and a copy planted for a parent domain by a sibling
 * site could win (docs/decisions/0025). Nothing is read, nothing is changed.
 */
export function refuseRepeatedSecurityCookies(issuer: string, paths?: PagePaths) {
  const names = [sessionCookieName(issuer), csrfCookieName(issuer)];
  return (req: Request, res: Response, next: NextFunction): void => {
    if (repeatedCookie(req, names) === undefined) return next();
    sendPage(
      res,
      400,
      errorPage({
        title: 'Your browser sent a cookie twice',
        message: 'This browser sent a sign-in or form cookie of this site twice, so it cannot be trusted. Clear the cookies of this site (and of the domains it belongs to), then sign in again.',
        paths,
      }),
    );
  };
}
