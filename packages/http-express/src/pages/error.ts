import type { StorageUnavailableError } from '@gatehouse/core';
import type { Response } from 'express';
import { clientErrorWords } from '../client-error.js';
import { retryAfterSeconds } from '../storage-outages.js';
import { html, type SafeHtml } from './html.js';
import { layout } from './layout.js';
import type { PagePaths } from './paths.js';
import { sendPage } from './send.js';

export interface ErrorPageInput {
  title: string;
  message: string;
  /** An OAuth error code, shown small for developers. */
  code?: string;
  /** A way on, e.g. back to the login page. */
  link?: { href: string; label: string };
  /** Where the page's links point (default: Gatehouse at the root). */
  paths?: PagePaths | undefined;
}

/** An error page: never a stack trace, never anything not meant for the public. */
export function errorPage(input: ErrorPageInput): SafeHtml {
  return layout({
    title: input.title,
    ...(input.paths === undefined ? {} : { stylesheetHref: input.paths.stylesheet, brand: input.paths.brand }),
    body: html`<h1>${input.title}</h1>
<p class="notice error" role="alert">${input.message}</p>
${input.code ? html`<p class="muted">Error code: <code>${input.code}</code></p>` : ''}
${input.link ? html`<div class="actions"><a class="button secondary" href="${input.link.href}">${input.link.label}</a></div>` : ''}`,
  });
}

/**
 * The page of a browser request that failed because the storage is unavailable: 503 with
 * `Retry-After` and words that say to try again; nothing was changed, so sending the form again
 * is safe (docs/decisions/0100-storage-outages-answered-503.md).
 */
export function sendUnavailablePage(res: Response, error: StorageUnavailableError, input: Pick<ErrorPageInput, 'link' | 'paths'> = {}): void {
  res.setHeader('Retry-After', String(retryAfterSeconds(error)));
  sendPage(
    res,
    503,
    errorPage({
      title: 'Temporarily unavailable',
      message: 'We cannot reach our database at the moment, so nothing was changed. Please try again in a few moments.',
      ...input,
    }),
  );
}

/**
 * The page of a browser request Express or a parser refused as the client's mistake (a 4xx
 * `status` on the error, `clientErrorStatus`): that status, fixed words, never the error's message
 * (docs/decisions/0180-client-errors-answered-as-such.md).
 */
export function sendClientErrorPage(res: Response, status: number, input: Pick<ErrorPageInput, 'link' | 'paths'> = {}): void {
  sendPage(res, status, errorPage({ ...clientErrorWords(status), ...input }));
}
