import { html, type SafeHtml } from './html.js';
import { layout } from './layout.js';
import type { PagePaths } from './paths.js';

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
    ...(input.paths === undefined ? {} : { stylesheetHref: input.paths.stylesheet }),
    body: html`<h1>${input.title}</h1>
<p class="notice error" role="alert">${input.message}</p>
${input.code ? html`<p class="muted">Error code: <code>${input.code}</code></p>` : ''}
${input.link ? html`<div class="actions"><a class="button secondary" href="${input.link.href}">${input.link.label}</a></div>` : ''}`,
  });
}
