import type { AuthorizedApp, Client } from '@gatehouse/core';
import { html, type SafeHtml } from '../../pages/html.js';
import { CSRF_FIELD } from '../../security/csrf.js';
import { portalPage } from '../chrome.js';
import { authorizedAppPath, clientPath, type PortalPaths } from '../paths.js';

interface ConfirmInput {
  paths: PortalPaths;
  email: string;
  csrfToken: string;
  client: Pick<Client, 'clientId' | 'name'>;
}

function confirmPage(input: Omit<ConfirmInput, 'client'> & { title: string; heading: SafeHtml; explanation: SafeHtml; action: string; cancelHref: string; button: string; danger: boolean }): SafeHtml {
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
<a class="button secondary" href="${input.cancelHref}">Cancel</a>
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
    cancelHref: clientPath(input.paths, input.client.clientId),
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
    cancelHref: clientPath(input.paths, input.client.clientId),
    button: 'Delete client',
    danger: true,
  });
}

/** GET /portal/authorized-apps/:id/revoke: asks first, like deleting a client; the app's tokens stop working at once. */
export function revokeConfirmPage(input: Omit<ConfirmInput, 'client'> & { app: Pick<AuthorizedApp, 'clientId' | 'clientName'> }): SafeHtml {
  return confirmPage({
    ...input,
    title: 'Revoke access',
    heading: html`Withdraw the access of “${input.app.clientName}”?`,
    explanation: html`<p>Every access you gave this app ends: <strong>its access and refresh tokens stop working at once</strong>. It can ask for access again, and you will be asked again.</p>`,
    action: authorizedAppPath(input.paths, input.app.clientId, '/revoke'),
    cancelHref: input.paths.authorizedApps,
    button: 'Revoke access',
    danger: true,
  });
}
