import { html, type SafeHtml } from './html.js';
import { layout } from './layout.js';
import type { PagePaths } from './paths.js';

/**
 * The start page of the reference server for a browser that is not signed in (a signed-in one
 * goes to the portal): what this is, and "Sign in", which comes back to the portal.
 */
export function homePage(input: { signInHref: string; paths: PagePaths }): SafeHtml {
  return layout({
    title: 'Welcome',
    stylesheetHref: input.paths.stylesheet,
    body: html`<h1>Gatehouse</h1>
<p>Sign in to manage the OAuth clients you registered and the apps you allowed to use your account.</p>
<div class="actions"><a class="button" href="${input.signInHref}">Sign in</a></div>`,
  });
}
