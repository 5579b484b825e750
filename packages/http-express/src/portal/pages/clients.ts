import { CLIENT_LINK_FIELDS, describeScope, isPublicClient, type Client, type ResourceCatalogue, type ScopeCatalogue } from '@gatehouse/core';
import { html, type SafeHtml } from '../../pages/html.js';
import { portalPage } from '../chrome.js';
import { clientPath, type PortalPaths } from '../paths.js';
import { dateTime, doneNotice, type NoticeWords } from './format.js';

const LIST_NOTICES: Record<string, NoticeWords> = {
  deleted: (name) => (name === undefined ? 'The client was deleted. Its tokens no longer work.' : `“${name}” was deleted. Its tokens no longer work.`),
};
const DETAIL_NOTICES: Record<string, NoticeWords> = {
  updated: (name) => `Your changes to “${name ?? 'the client'}” were saved.`,
  created: (name) => `The public client${name === undefined ? '' : ` “${name}”`} was registered. It has no secret: it proves itself with PKCE.`,
};

/** How the portal names a client's kind (RFC 6749 §2.1), and a client that registered itself (docs/decisions/0115, 0117). */
export function clientTypeLabel(client: Client): string {
  const kind = isPublicClient(client) ? 'Public (no secret)' : 'Confidential';
  const registration = client.registration?.kind;
  return registration === 'dynamic' ? `${kind}, registered itself` : registration === 'metadata-document' ? `${kind}, from its metadata document` : kind;
}

function grantTypeTags(client: Client): SafeHtml[] {
  return client.grantTypes.map((grantType) => html`<span class="tag">${grantType}</span>`);
}

/** /portal/clients: the signed-in user's own clients and the way to register one. */
export function clientsListPage(input: { paths: PortalPaths; email: string; clients: readonly Client[]; catalogue: ScopeCatalogue; done: unknown; doneName?: string | undefined }): SafeHtml {
  const rows = input.clients.map(
    (client) => html`<tr>
<td class="name" data-label="Name"><a href="${clientPath(input.paths, client.clientId)}">${client.name}</a></td>
<td data-label="Client ID"><code>${client.clientId}</code></td>
<td data-label="Type">${clientTypeLabel(client)}</td>
<td data-label="Grant types">${grantTypeTags(client)}</td>
<td data-label="Redirect URIs"><ul class="plain">${client.redirectUris.map((uri) => html`<li><code>${uri}</code></li>`)}</ul></td>
<td data-label="Scopes">${client.scopes.map((scope) => html`<span class="tag" title="${describeScope(input.catalogue, scope)}">${scope}</span>`)}</td>
<td data-label="Created">${dateTime(client.createdAt)}</td>
</tr>`,
  );
  return portalPage({
    title: 'OAuth Clients',
    email: input.email,
    paths: input.paths,
    body: html`<div class="toolbar"><h1>OAuth Clients</h1><a class="button" href="${input.paths.newClient}">Register a client</a></div>
${doneNotice(LIST_NOTICES, input.done, input.doneName)}
<p class="muted">Apps you registered to call the Gatehouse APIs on behalf of users, or as themselves (client credentials). Each has a client ID and, unless it is public, a secret; keep the secret out of shared code.</p>
${
  input.clients.length === 0
    ? html`<p class="empty">You have not registered any client yet.</p>`
    : html`<table class="list clients">
<thead><tr><th>Name</th><th>Client ID</th><th>Type</th><th>Grant types</th><th>Redirect URIs</th><th>Scopes</th><th>Created</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>`
}`,
  });
}

/** /portal/clients/:id: one client, with Edit, Rotate secret (confidential clients) and Delete. */
/** A client's OpenID Connect metadata (docs/decisions/0136), the fields it has. */
function openIdDetails(client: Client): SafeHtml | '' {
  const uris = client.postLogoutRedirectUris ?? [];
  if (client.idTokenSignedResponseAlg === undefined && uris.length === 0 && client.defaultMaxAge === undefined && client.requireAuthTime !== true) return '';
  return html`${client.idTokenSignedResponseAlg === undefined ? '' : html`<dt>ID token signature</dt><dd>${client.idTokenSignedResponseAlg}</dd>`}
${uris.length === 0 ? '' : html`<dt>Post-logout redirect URIs</dt><dd><ul class="plain">${uris.map((uri) => html`<li><code>${uri}</code></li>`)}</ul></dd>`}
${client.defaultMaxAge === undefined ? '' : html`<dt>Default max age</dt><dd>${client.defaultMaxAge} s</dd>`}
${client.requireAuthTime === true ? html`<dt>auth_time</dt><dd>Required</dd>` : ''}`;
}

/** The words of each link on the client's page. */
const LINK_NAMES = { clientUri: 'Home page', logoUri: 'Logo', policyUri: 'Privacy policy', tosUri: 'Terms of service' } as const;

/** What the consent page shows about the client (docs/decisions/0155), the links it has, and the operator's first-party mark. */
function presentationDetails(client: Client): SafeHtml {
  const links = CLIENT_LINK_FIELDS.flatMap((field) => (client[field] === undefined ? [] : [html`<dt>${LINK_NAMES[field]}</dt><dd><code>${client[field]}</code></dd>`]));
  return html`${links}${client.firstParty === true ? html`<dt>First-party</dt><dd>Yes: the consent page marks it as run by this service's operator.</dd>` : ''}`;
}

/**
 * The addresses an app is configured with (as Auth0's application page shows them): the issuer, the
 * discovery document, the authorize and token endpoints, all under the issuer (docs/decisions/0157).
 */
export interface ServerAddresses {
  issuer: string;
  /** OpenID Connect Discovery (an OpenID Provider), else RFC 8414 metadata. */
  discovery: string;
  authorize: string;
  token: string;
}

function serverAddresses(addresses: ServerAddresses): SafeHtml {
  const row = (id: string, label: string, value: string) => html`<dt><label for="${id}">${label}</label></dt><dd><div class="copy-row"><input id="${id}" name="${id}" type="text" value="${value}" readonly data-select spellcheck="false" autocomplete="off"><button type="button" class="secondary small" data-copy="${id}" hidden>Copy</button></div></dd>`;
  return html`<h2>Connect your app</h2>
<p class="muted">Most OAuth and OpenID Connect libraries need only the issuer (they read the rest from the discovery document).</p>
<dl class="details addresses">
${row('issuer_url', 'Issuer', addresses.issuer)}
${row('discovery_url', 'Discovery', addresses.discovery)}
${row('authorize_url', 'Authorize URL', addresses.authorize)}
${row('token_url', 'Token URL', addresses.token)}
</dl>`;
}

export function clientDetailPage(input: { paths: PortalPaths; email: string; client: Client; catalogue: ScopeCatalogue; resources?: ResourceCatalogue; done: unknown; addresses: ServerAddresses }): SafeHtml {
  const { client } = input;
  const isPublic = isPublicClient(client);
  return portalPage({
    title: client.name,
    email: input.email,
    paths: input.paths,
    // The copy buttons (client ID, the server's addresses): the served script, no inline script.
    withCopyScript: true,
    body: html`<p class="muted"><a href="${input.paths.clients}">← OAuth Clients</a></p>
<h1>${client.name}</h1>
${doneNotice(DETAIL_NOTICES, isPublic || input.done !== 'created' ? input.done : undefined, client.name)}
<dl class="details">
<dt><label for="client_id">Client ID</label></dt><dd><div class="copy-row"><input id="client_id" name="client_id" type="text" value="${client.clientId}" readonly data-select spellcheck="false" autocomplete="off"><button type="button" class="secondary small" data-copy="client_id" hidden>Copy</button></div></dd>
<dt>Type</dt><dd>${clientTypeLabel(client)}</dd>
<dt>Client secret</dt><dd class="muted">${isPublic ? 'None: a public client sends its client ID alone, and PKCE (S256) on every authorization.' : 'Shown once when created or rotated; never again.'}</dd>
<dt>Grant types</dt><dd>${grantTypeTags(client)}</dd>
<dt>Redirect URIs</dt><dd>${
      client.redirectUris.length === 0 ? html`<span class="muted">None</span>` : html`<ul class="plain">${client.redirectUris.map((uri) => html`<li><code>${uri}</code></li>`)}</ul>`
    }</dd>
<dt>Scopes</dt><dd><ul class="plain">${client.scopes.map((scope) => html`<li>${describeScope(input.catalogue, scope)} <span class="tag">${scope}</span></li>`)}</ul></dd>
<dt>PKCE</dt><dd>${client.pkceRequired ? 'Required (S256)' : 'Optional (enforced when a challenge is sent)'}</dd>
${
      (client.resourceServerFor ?? []).length === 0
        ? ''
        : html`<dt>Resource server of</dt><dd><ul class="plain">${(client.resourceServerFor ?? []).map(
            (uri) => html`<li>${input.resources?.find((entry) => entry.resource === uri)?.name ?? uri} <code>${uri}</code></li>`,
          )}</ul><p class="muted">It may introspect the access tokens issued for these.</p></dd>`
    }
${openIdDetails(client)}
${presentationDetails(client)}
<dt>Created</dt><dd>${dateTime(client.createdAt)}</dd>
</dl>
${serverAddresses(input.addresses)}
<div class="actions">
<a class="button" href="${clientPath(input.paths, client.clientId, '/edit')}">Edit</a>
${isPublic ? '' : html`<a class="button secondary" href="${clientPath(input.paths, client.clientId, '/rotate-secret')}">Rotate secret</a>`}
<a class="button secondary" href="${clientPath(input.paths, client.clientId, '/delete')}">Delete</a>
</div>`,
  });
}
