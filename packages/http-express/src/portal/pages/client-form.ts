import { DEFAULT_GRANT_TYPES, type ResourceCatalogue, type ScopeCatalogue } from '@gatehouse/core';
import { html, type SafeHtml } from '../../pages/html.js';
import { CSRF_FIELD } from '../../security/csrf.js';
import { portalPage } from '../chrome.js';
import type { PortalPaths } from '../paths.js';
import {
  LINK_FIELD_NAMES,
  LINKS_OFFERED_FIELD,
  OPENID_OFFERED_FIELD,
  GRANT_TYPE_FIELD_PREFIX,
  GRANT_TYPES_OFFERED_FIELD,
  OFFERED_GRANT_TYPES,
  RESOURCE_SERVER_FIELD_PREFIX,
  RESOURCE_SERVERS_OFFERED_FIELD,
  SCOPE_FIELD_PREFIX,
  type ClientFormErrors,
  type ClientFormValues,
} from '../client-form.js';
import { FIELD_MESSAGE_SEPARATOR } from '../plain-words.js';

/** What each grant type means, in the words of the form. */
const GRANT_TYPE_WORDS: Record<string, string> = {
  authorization_code: 'Users sign in and allow access (authorization code, RFC 6749 §4.1)',
  refresh_token: 'Refresh tokens (RFC 6749 §6)',
  client_credentials: 'The client calls APIs as itself, without a user (client credentials, RFC 6749 §4.4; confidential clients only)',
};

function clientTypeChoice(values: ClientFormValues, creating: boolean): SafeHtml {
  if (!creating) {
    return html`<p class="field-hint">Type: <strong>${values.clientType === 'public' ? 'Public (no secret)' : 'Confidential'}</strong> (chosen at registration).</p>`;
  }
  const option = (value: 'confidential' | 'public', label: string, hint: string) =>
    html`<label class="check"><input type="radio" name="client_type" value="${value}"${values.clientType === value ? html` checked` : ''}><span>${label}<small class="hint">${hint}</small></span></label>`;
  return html`<fieldset id="client_type">
<legend>Client type</legend>
${option('confidential', 'Confidential client — has a secret', 'A server-side app that can keep a secret.')}
${option('public', 'Public client — no secret', 'A single-page or native app (RFC 8252): it sends PKCE (S256) every time and its refresh tokens rotate.')}
</fieldset>`;
}

export interface ClientFormPageInput {
  mode: 'create' | 'edit';
  paths: PortalPaths;
  email: string;
  csrfToken: string;
  /** Where the form posts. */
  action: string;
  /** Where "Cancel" goes. */
  cancelHref: string;
  values: ClientFormValues;
  errors: ClientFormErrors;
  /** The configured catalogue (`settings.scopes`): one checkbox per scope. */
  catalogue: ScopeCatalogue;
  /** The configured resources (`settings.resources`): one "resource server of" checkbox each; none, no such boxes. */
  resources?: ResourceCatalogue;
  /** An OpenID Provider (`settings.openid`): the form has the client's OpenID Connect fields. */
  openid?: boolean;
}

/**
 * A client's OpenID Connect metadata (docs/decisions/0136-openid-client-metadata.md), for an
 * OpenID Provider: the ID tokens' algorithm, where logout may send the browser back to, the
 * default max age, and whether `auth_time` is required.
 */
function openIdFields(input: ClientFormPageInput): SafeHtml | '' {
  if (input.openid !== true) return '';
  const values = input.values.openid ?? { idTokenSignedResponseAlg: 'RS256', postLogoutRedirectUris: '', defaultMaxAge: '', requireAuthTime: false };
  const { errors } = input;
  const option = (alg: string, label: string) => html`<option value="${alg}"${values.idTokenSignedResponseAlg === alg ? html` selected` : ''}>${label}</option>`;
  return html`<fieldset id="openid">
<legend>Sign-in with OpenID Connect</legend>
<input type="hidden" name="${OPENID_OFFERED_FIELD}" value="on">
<p class="field-hint">For apps that sign users in with the <code>openid</code> scope.</p>
<label for="id_token_signed_response_alg">ID token signature</label>
<select id="id_token_signed_response_alg" name="id_token_signed_response_alg"${errors.idTokenSignedResponseAlg === undefined ? '' : html` aria-invalid="true" aria-describedby="id_token_signed_response_alg-error"`}>
${option('RS256', 'RS256 (RSA; what most apps expect)')}
${option('ES256', 'ES256 (elliptic curve P-256)')}
</select>
${fieldError('id_token_signed_response_alg', errors.idTokenSignedResponseAlg)}
<label for="post_logout_redirect_uris">Post-logout redirect URIs</label>
<p class="field-hint" id="post_logout_redirect_uris-hint">One per line, the same rules as redirect URIs. When the app signs the user out of this server, the browser may come back only to one of these, exactly.</p>
<textarea id="post_logout_redirect_uris" name="post_logout_redirect_uris" rows="2" spellcheck="false" autocapitalize="off" autocomplete="off"${
    errors.postLogoutRedirectUris === undefined ? '' : html` aria-invalid="true"`
  } aria-describedby="${describedBy('post_logout_redirect_uris', true, errors.postLogoutRedirectUris)}" placeholder="https://app.example.com/signed-out">${values.postLogoutRedirectUris}</textarea>
${fieldError('post_logout_redirect_uris', errors.postLogoutRedirectUris)}
<label for="default_max_age">Default max age (seconds)</label>
<p class="field-hint" id="default_max_age-hint">Users who signed in longer ago than this sign in again, unless the app asks otherwise (<code>max_age</code>). Empty: no limit.</p>
<input id="default_max_age" name="default_max_age" type="text" inputmode="numeric" autocomplete="off" value="${values.defaultMaxAge}"${
    errors.defaultMaxAge === undefined ? '' : html` aria-invalid="true"`
  } aria-describedby="${describedBy('default_max_age', true, errors.defaultMaxAge)}">
${fieldError('default_max_age', errors.defaultMaxAge)}
<label class="check single"><input type="checkbox" name="require_auth_time" value="on"${values.requireAuthTime ? html` checked` : ''}><span>Require auth_time<small class="hint">ID tokens say when the user signed in (Gatehouse's always do).</small></span></label>
</fieldset>`;
}

/** Each link field: its label and hint (docs/decisions/0155). */
const LINK_WORDS: Record<keyof typeof LINK_FIELD_NAMES, { label: string; hint: string; placeholder: string }> = {
  clientUri: { label: 'Home page', hint: 'Linked on the consent page, so users can see who makes the app.', placeholder: 'https://app.example.com' },
  logoUri: { label: 'Logo', hint: 'An image at an https address, shown 48 × 48 pixels on the consent page.', placeholder: 'https://app.example.com/logo.png' },
  policyUri: { label: 'Privacy policy', hint: 'How the app uses the data it is allowed to read.', placeholder: 'https://app.example.com/privacy' },
  tosUri: { label: 'Terms of service', hint: 'The terms users agree to when they use the app.', placeholder: 'https://app.example.com/terms' },
};

/**
 * What the consent page shows about the app (docs/decisions/0155): its home page, logo, privacy
 * policy and terms, each optional, https (http on localhost for development; the logo https only).
 */
function linkFields(input: ClientFormPageInput): SafeHtml {
  const values = input.values.links ?? { clientUri: '', logoUri: '', policyUri: '', tosUri: '' };
  const fields = (Object.keys(LINK_FIELD_NAMES) as Array<keyof typeof LINK_FIELD_NAMES>).map((field) => {
    const id = LINK_FIELD_NAMES[field];
    const error = input.errors[field];
    const words = LINK_WORDS[field];
    return html`<label for="${id}">${words.label} <span class="optional">(optional)</span></label>
<p class="field-hint" id="${id}-hint">${words.hint}</p>
<input id="${id}" name="${id}" type="url" maxlength="1000" autocomplete="off" spellcheck="false" value="${values[field]}" placeholder="${words.placeholder}"${
      error === undefined ? '' : html` aria-invalid="true"`
    } aria-describedby="${describedBy(id, true, error)}">
${fieldError(id, error)}`;
  });
  return html`<fieldset id="links">
<legend>About the app</legend>
<input type="hidden" name="${LINKS_OFFERED_FIELD}" value="on">
<p class="field-hint">Shown to users on the consent page, next to the app's name.</p>
${fields}
</fieldset>`;
}

/**
 * The resources the client may serve as a resource server (RFC 7662 §2.1 introspection of their
 * tokens; docs/decisions/0112), when any are configured.
 */
function resourceServerChoice(input: ClientFormPageInput): SafeHtml | '' {
  const resources = input.resources ?? [];
  if (resources.length === 0) return '';
  const chosen = input.values.resourceServerFor ?? [];
  const error = input.errors.resourceServerFor;
  return html`<fieldset id="resource_servers"${error === undefined ? '' : html` class="invalid" aria-describedby="resource_servers-error"`}>
<legend>Resource server</legend>
<input type="hidden" name="${RESOURCE_SERVERS_OFFERED_FIELD}" value="on">
<p class="field-hint">Tick the APIs this client <em>is</em>: it may then look up (introspect, RFC 7662) the access tokens issued for them, whichever app they were issued to. Confidential clients only.</p>
${resources.map(
  (entry) =>
    html`<label class="check"><input type="checkbox" name="${RESOURCE_SERVER_FIELD_PREFIX}${entry.resource}" value="on"${chosen.includes(entry.resource) ? html` checked` : ''}><span>${entry.name}<code>${entry.resource}</code></span></label>`,
)}
</fieldset>
${error === undefined ? '' : html`<p class="field-error" id="resource_servers-error" role="alert">${error}</p>`}`;
}

/** The element each field's error links to from the summary (the fieldset of a group of boxes). */
const FIELD_IDS: Record<string, string> = {
  name: 'name',
  redirectUris: 'redirect_uris',
  scopes: 'scopes',
  grantTypes: 'grant_types',
  resourceServerFor: 'resource_servers',
  idTokenSignedResponseAlg: 'id_token_signed_response_alg',
  postLogoutRedirectUris: 'post_logout_redirect_uris',
  defaultMaxAge: 'default_max_age',
  ...LINK_FIELD_NAMES,
};

/**
 * The error summary at the top of a failed form (the GOV.UK Design System pattern): it takes the
 * focus (`autofocus` on a `tabindex=-1` box, no script), is announced (`role=alert`), and each
 * message links to its field.
 */
function errorSummary(errors: ClientFormErrors): SafeHtml {
  const entries = Object.entries(errors).filter((entry): entry is [string, string] => entry[1] !== undefined);
  return html`<div class="error-summary" role="alert" tabindex="-1" autofocus aria-labelledby="error-summary-title">
<h2 id="error-summary-title">Nothing was saved: there is a problem</h2>
<ul>${entries.flatMap(([field, message]) => message.split(FIELD_MESSAGE_SEPARATOR).map((line) => html`<li><a href="#${FIELD_IDS[field] ?? field}">${line}</a></li>`))}</ul>
</div>`;
}

/** A field's error under it; several (each wrong redirect URI) as a list, one message each. */
function fieldError(id: string, message: string | undefined): SafeHtml | '' {
  if (message === undefined) return '';
  const lines = message.split(FIELD_MESSAGE_SEPARATOR);
  if (lines.length === 1) return html`<p class="field-error" id="${id}-error" role="alert">${message}</p>`;
  return html`<ul class="field-error" id="${id}-error" role="alert">${lines.map((line) => html`<li>${line}</li>`)}</ul>`;
}

function describedBy(id: string, hint: boolean, message: string | undefined): string {
  return [hint ? `${id}-hint` : '', message === undefined ? '' : `${id}-error`].filter(Boolean).join(' ');
}

/**
 * The create and edit form: name, client type (at creation), redirect URIs (one per line), scopes
 * as checkboxes with their words, grant types, PKCE. Each error sits under its field (aria-invalid + aria-describedby), and the values
 * come back as they were typed.
 */
export function clientFormPage(input: ClientFormPageInput): SafeHtml {
  const { values, errors } = input;
  const creating = input.mode === 'create';
  const title = creating ? 'Register a client' : `Edit ${values.name || 'client'}`;
  const invalid = Object.keys(errors).length > 0;
  return portalPage({
    title,
    email: input.email,
    paths: input.paths,
    // Two columns on a desktop (what the app is and where it answers; what it may do), one on a phone.
    width: 'wide',
    body: html`<p class="muted"><a href="${input.cancelHref}">← ${creating ? 'OAuth Clients' : 'Back to the client'}</a></p>
<h1>${creating ? 'Register a client' : 'Edit client'}</h1>
${invalid ? errorSummary(errors) : ''}
<form method="post" action="${input.action}" novalidate class="client-form">
<input type="hidden" name="${CSRF_FIELD}" value="${input.csrfToken}">
<div class="form-columns"><div class="form-column">
<label for="name">Client name</label>
<p class="field-hint" id="name-hint">Shown to users when the app asks for access.</p>
<input id="name" name="name" type="text" maxlength="100" required autocomplete="off" value="${values.name}"${
      errors.name === undefined ? '' : html` aria-invalid="true"`
    } aria-describedby="${describedBy('name', true, errors.name)}">
${fieldError('name', errors.name)}
${clientTypeChoice(values, creating)}
<label for="redirect_uris">Redirect URIs</label>
<p class="field-hint" id="redirect_uris-hint">One per line. Absolute <code>https</code> URIs, or <code>http</code> on localhost / 127.0.0.1 / [::1]; no <code>#fragment</code>. <code>http://127.0.0.1/…</code> and <code>http://[::1]/…</code> accept any port (native apps, RFC 8252 §7.3). Not needed for client credentials only.</p>
<textarea id="redirect_uris" name="redirect_uris" rows="3" spellcheck="false" autocapitalize="off" autocomplete="off"${
      errors.redirectUris === undefined ? '' : html` aria-invalid="true"`
    } aria-describedby="${describedBy('redirect_uris', true, errors.redirectUris)}" placeholder="https://app.example.com/oauth/callback">${values.redirectUris}</textarea>
${fieldError('redirect_uris', errors.redirectUris)}
${linkFields(input)}
</div><div class="form-column">
<fieldset id="scopes"${errors.scopes === undefined ? '' : html` class="invalid" aria-describedby="scopes-error"`}>
<legend>Scopes</legend>
<p class="field-hint">Users are asked for exactly these; a token can never carry more. A scope you take away here is left out of every token issued from then on.</p>
${input.catalogue.map(
  (entry) => html`<label class="check"><input type="checkbox" name="${SCOPE_FIELD_PREFIX}${entry.scope}" value="on"${values.scopes.includes(entry.scope) ? html` checked` : ''}><span>${entry.description}<code>${entry.scope}</code></span></label>`,
)}
</fieldset>
${fieldError('scopes', errors.scopes)}
<fieldset id="grant_types"${errors.grantTypes === undefined ? '' : html` class="invalid" aria-describedby="grant_types-error"`}>
<legend>Grant types</legend>
<input type="hidden" name="${GRANT_TYPES_OFFERED_FIELD}" value="on">
${OFFERED_GRANT_TYPES.map(
  (grantType) =>
    html`<label class="check"><input type="checkbox" name="${GRANT_TYPE_FIELD_PREFIX}${grantType}" value="on"${(values.grantTypes ?? DEFAULT_GRANT_TYPES).includes(grantType) ? html` checked` : ''}><span>${GRANT_TYPE_WORDS[grantType] ?? grantType}<code>${grantType}</code></span></label>`,
)}
</fieldset>
${fieldError('grant_types', errors.grantTypes)}
${resourceServerChoice(input)}
<label class="check single"><input type="checkbox" name="pkce_required" value="on"${values.pkceRequired ? html` checked` : ''}><span>Require PKCE<small class="hint">Every authorization request must carry an S256 code challenge (RFC 7636).</small></span></label>
${openIdFields(input)}
</div></div>
<div class="actions">
<a class="button secondary" href="${input.cancelHref}">Cancel</a>
<button type="submit">${creating ? 'Register client' : 'Save changes'}</button>
</div>
</form>`,
  });
}
