import { describeScope, type AuthorizedApp, type ClientOrigin, type ScopeCatalogue } from '@gatehouse/core';
import { html, type SafeHtml } from '../../pages/html.js';
import { portalPage } from '../chrome.js';
import { authorizedAppPath, type PortalPaths } from '../paths.js';
import { dateTime, doneNotice, type NoticeWords } from './format.js';

const NOTICES: Record<string, NoticeWords> = {
  revoked: (name) => (name === undefined ? 'Access withdrawn: that app’s tokens no longer work.' : `Access withdrawn from “${name}”: its tokens no longer work.`),
};

/** How an app that registered itself is marked (docs/decisions/0115, 0117): nothing for a client an operator or developer registered. */
export function originTag(origin: ClientOrigin): SafeHtml | '' {
  if (origin.registration === 'dynamic') return html` <span class="tag" title="This app registered itself (dynamic client registration).">Registered itself</span>`;
  if (origin.registration === 'metadata-document') return html` <span class="tag" title="This app describes itself in a document on its own site.">From ${origin.documentHost ?? ''}</span>`;
  return '';
}

/** /portal/authorized-apps: the apps the user has allowed, each with a Revoke link (to a confirmation). */
export function authorizedAppsPage(input: { paths: PortalPaths; email: string; apps: readonly AuthorizedApp[]; catalogue: ScopeCatalogue; done: unknown; doneName?: string | undefined }): SafeHtml {
  const rows = input.apps.map(
    (app) => html`<tr>
<td class="name" data-label="App"><strong>${app.clientName}</strong>${originTag(app.origin)}<br><code class="muted">${app.clientId}</code></td>
<td data-label="Can"><ul class="plain">${app.scopes.map((scope) => html`<li>${describeScope(input.catalogue, scope)}</li>`)}</ul></td>
<td data-label="Since">${dateTime(app.firstGrantedAt)}</td>
<td data-label=""><a class="button secondary small" href="${authorizedAppPath(input.paths, app.clientId, '/revoke')}">Revoke</a></td>
</tr>`,
  );
  return portalPage({
    title: 'Authorized apps',
    email: input.email,
    paths: input.paths,
    body: html`<div class="toolbar"><h1>Authorized apps</h1></div>
${doneNotice(NOTICES, input.done, input.doneName)}
<p class="muted">Apps you allowed to act on your behalf. Revoking one withdraws every access you gave it: its access and refresh tokens stop working at once.</p>
${
  input.apps.length === 0
    ? html`<p class="empty">No app has access to your account.</p>`
    : html`<table class="list apps">
<thead><tr><th>App</th><th>Can</th><th>Since</th><th><span class="muted">Action</span></th></tr></thead>
<tbody>
${rows}
</tbody>
</table>`
}`,
  });
}
