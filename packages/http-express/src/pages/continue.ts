import { html, type SafeHtml } from './html.js';
import { layout } from './layout.js';

/**
 * A page that sends the browser on to `to` at once, by a meta refresh (no script: the pages' CSP
 * allows none), with a link for a browser that does not follow it. What a form POST of the host's
 * page is answered with instead of a redirect: Chromium applies the page's CSP `form-action` to
 * every redirect after the POST, a new navigation escapes it (docs/decisions/0141).
 *
 * @example
 * sendPage(res, 200, continuePage({ to: '/auth/oauth/authorize?client_id=c1', stylesheetHref: '/auth/assets/gatehouse.css' }));
 */
export function continuePage(input: { to: string; stylesheetHref: string }): SafeHtml {
  return layout({
    title: 'Continuing',
    stylesheetHref: input.stylesheetHref,
    head: html`<meta http-equiv="refresh" content="0;url=${input.to}">`,
    body: html`<h1>Continuing…</h1>
<p>If nothing happens, <a href="${input.to}">continue</a>.</p>`,
  });
}
