import { html, type SafeHtml } from '../../pages/html.js';
import { portalPage } from '../chrome.js';
import type { PortalPaths } from '../paths.js';

/** A client that does not exist or is someone else's: the same page either way (no existence leak). */
export function clientNotFoundPage(input: { paths: PortalPaths; email: string; message?: string }): SafeHtml {
  return portalPage({
    title: 'Not found',
    email: input.email,
    paths: input.paths,
    width: 'card',
    body: html`<h1>Not found</h1>
<p class="notice error" role="alert">${input.message ?? 'There is no such client among yours.'}</p>
<div class="actions"><a class="button secondary" href="${input.paths.clients}">Back to OAuth Clients</a></div>`,
  });
}
