import type { Client } from '@gatehouse/core';
import { html, type SafeHtml } from '../../pages/html.js';
import { CSRF_FIELD } from '../../security/csrf.js';
import { portalPage } from '../chrome.js';
import { clientPath, type PortalPaths } from '../paths.js';

interface ConfirmInput {
  paths: PortalPaths;
  email: string;
  csrfToken: string;
  client: Pick<Client, 'clientId' | 'name'>;
}

function confirmPage(input: ConfirmInput & { title: string; heading: SafeHtml; explanation: SafeHtml; action: string; button: string; danger: boolean }): SafeHtml {
  return portalPage({
    title: input.title,
    email: input.email,
    paths: input.paths,
    width: 'card',
    body: html`<h1>${input.heading}</h1>
${input.explanation}
<form method="post" action="${input.action}">
<input type="hidden" name="${CSRF_FIELD}" value="${input.csrfToken}">
<div class="actions">
<a class="button secondary" href="${clientPath(input.paths, input.client.clientId)}">Cancel</a>
<button type="submit"${input.danger ? html` class="danger"` : ''}>${input.button}</button>
</div>
</form>`,
  });
}

/** GET /portal/clients/:id/rotate-secret: asks first, as the current secret stops working at once. */
export function rotateConfirmPage(input: ConfirmInput): SafeHtml {
  return confirmPage({
    ...input,
    title: 'Rotate secret',
    heading: html`Rotate the secret of “${input.client.name}”?`,
    explanation: html`<p>A new secret is made and shown once. <strong>The current secret stops working at once</strong>: update your app right after. Tokens already issued stay valid.</p>`,
    action: clientPath(input.paths, input.client.clientId, '/rotate-secret'),
    button: 'Rotate secret',
    danger: true,
  });
}

/** GET /portal/clients/:id/delete: asks first; deleting ends every grant and token of the client. */
export function deleteConfirmPage(input: ConfirmInput): SafeHtml {
  return confirmPage({
    ...input,
    title: 'Delete client',
    heading: html`Delete “${input.client.name}”?`,
    explanation: html`<p>The client ID <code>${input.client.clientId}</code> and its secret stop working, and <strong>every access and refresh token issued to it is refused from now on</strong>. This cannot be undone.</p>`,
    action: clientPath(input.paths, input.client.clientId, '/delete'),
    button: 'Delete client',
    danger: true,
  });
}
