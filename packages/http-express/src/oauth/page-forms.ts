import type { Request, Response } from 'express';
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
