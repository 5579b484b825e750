import { html, type SafeHtml } from '../../pages/html.js';
import { portalPage } from '../chrome.js';
import { clientPath, type PortalPaths } from '../paths.js';

function copyField(id: string, label: string, value: string): SafeHtml {
  return html`<label for="${id}">${label}</label>
<div class="copy-row"><input id="${id}" name="${id}" type="text" value="${value}" readonly data-select spellcheck="false" autocomplete="off"><button type="button" class="secondary small" data-copy="${id}" hidden>Copy</button></div>`;
}

/**
 * The one page that shows a client secret (after create or rotate). It is served once: the
 * secret travelled in a one-time cookie that this response clears (docs/decisions/0050).
 */
export function secretPage(input: { paths: PortalPaths; email: string; clientId: string; clientName: string; clientSecret: string; created: boolean }): SafeHtml {
  return portalPage({
    title: input.created ? 'Client registered' : 'New client secret',
    email: input.email,
    paths: input.paths,
    width: 'card',
    withCopyScript: true,
    body: html`<h1>${input.created ? html`“${input.clientName}” is registered` : html`New secret for “${input.clientName}”`}</h1>
<p class="notice warn" role="status"><strong>Store the client secret now — it will not be shown again.</strong> Keep it on your server only, never in code you share or ship to browsers and phones.${
      input.created ? '' : ' The previous secret no longer works.'
    }</p>
${copyField('client_id', 'Client ID', input.clientId)}
${copyField('client_secret', 'Client secret', input.clientSecret)}
<div class="actions"><a class="button" href="${clientPath(input.paths, input.clientId)}">I have stored the secret</a></div>`,
  });
}

/** The secret page once the secret has been shown (reload, back button, a second tab). */
export function secretGonePage(input: { paths: PortalPaths; email: string; clientId: string; clientName: string }): SafeHtml {
  return portalPage({
    title: 'Secret no longer shown',
    email: input.email,
    paths: input.paths,
    width: 'card',
    body: html`<h1>The secret is no longer shown</h1>
<p>The secret of <strong>${input.clientName}</strong> was shown once and Gatehouse keeps only a hash of it. If you did not store it, rotate the secret to get a new one.</p>
<div class="actions">
<a class="button secondary" href="${clientPath(input.paths, input.clientId)}">Back to the client</a>
<a class="button" href="${clientPath(input.paths, input.clientId, '/rotate-secret')}">Rotate secret</a>
</div>`,
  });
}
