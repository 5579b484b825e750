import { describeScope, type ClientOrigin, type ClientPresentation, type ScopeCatalogue } from '@gatehouse/core';
import { CSRF_FIELD } from '../../security/csrf.js';
import { html, type SafeHtml } from '../../pages/html.js';
import { layout } from '../../pages/layout.js';
import { ROOT_PAGE_PATHS, type PagePaths } from '../../pages/paths.js';
import { scopeAllowsChanges } from '../../pages/scope-changes.js';
import { safeReturnTo } from '../../security/session.js';

export interface ConsentPageInput {
  csrfToken: string;
  clientName: string;
  scopes: readonly string[];
  /** Scopes the user has not allowed this app before, marked "New" (a consent is remembered; docs/decisions/0095). */
  newScopes?: readonly string[];
  /** The configured catalogue (`settings.scopes`): the words shown for each scope. */
  catalogue: ScopeCatalogue;
  /** The resources (RFC 8707) the access is for, by name and URI; none: Gatehouse's own APIs. */
  resources?: ReadonlyArray<{ name: string; resource: string }>;
  /** Where the answer goes back to: the host is shown so the user can recognise the app. */
  redirectUri: string;
  /** The form's action: the decision URL carrying the original authorization parameters. */
  formAction: string;
  userEmail: string;
  /**
   * The authorization request's URL (a same-origin path): "Not you? Sign out" comes back to it
   * after signing in again.
   */
  returnTo?: string | undefined;
  /** Where the page links (default: Gatehouse at the root). */
  paths?: PagePaths;
  /**
   * How the client came to be (`clientOrigin(client)`): a client that registered itself is said to
   * be one, one of a metadata document shows the host its document comes from, and one whose
   * redirect URIs all lead to this computer gets a warning (docs/decisions/0117).
   */
  origin?: ClientOrigin;
  /**
   * Who registered the client, its home page, logo, privacy policy and terms, and the operator's
   * first-party mark (`gatehouse.presentClient`; docs/decisions/0155-who-is-asking-on-the-consent-page.md).
   */
  presentation?: ClientPresentation;
}

/**
 * The origin the consent page loads the client's logo from, for the page's CSP (`img-src` of that
 * one origin): only an `https` logo is ever shown (docs/decisions/0155).
 *
 * @example
 * consentImageOrigin(presentation); // 'https://cdn.app.example'
 */
export function consentImageOrigin(presentation: ClientPresentation | undefined): string | undefined {
  const logo = presentation?.links.logoUri;
  return logo !== undefined && logo.startsWith('https://') ? new URL(logo).origin : undefined;
}

/** A link to a page of the client, opened apart from the consent page, telling it nothing (docs/decisions/0155). */
function outLink(href: string, text: string): SafeHtml {
  return html`<a href="${href}" target="_blank" rel="noopener noreferrer">${text}</a>`;
}

/** The app's logo (sized, whatever its file is: it cannot push the page about), its mark and who registered it. */
function clientHeader(presentation: ClientPresentation | undefined): SafeHtml | '' {
  if (presentation === undefined) return '';
  const logo = consentImageOrigin(presentation) === undefined ? '' : html`<img class="client-logo" src="${presentation.links.logoUri ?? ''}" alt="" width="48" height="48" referrerpolicy="no-referrer">`;
  const by = presentation.registeredBy;
  const registered =
    by.kind === 'user' ? html`Registered by <strong>${by.email}</strong>` : by.kind === 'operator' ? html`Registered by the operator of this service` : '';
  const home = presentation.links.clientUri === undefined ? '' : html`${registered === '' ? '' : ' · '}${outLink(presentation.links.clientUri, new URL(presentation.links.clientUri).host)}`;
  const mark = presentation.firstParty ? html`<p class="first-party" role="note"><span aria-hidden="true">✓</span> A first-party app: the operator of this service runs it.</p>` : '';
  if (logo === '' && mark === '' && registered === '' && home === '') return '';
  return html`<div class="client-card">${logo}<div>${mark}${registered === '' && home === '' ? '' : html`<p class="client-meta">${registered}${home}</p>`}</div></div>`;
}

/** The client's privacy policy and terms, when it has them. */
function policyLinks(presentation: ClientPresentation | undefined): SafeHtml | '' {
  const links = presentation?.links ?? {};
  const shown = [
    links.policyUri === undefined ? undefined : outLink(links.policyUri, 'privacy policy'),
    links.tosUri === undefined ? undefined : outLink(links.tosUri, 'terms of service'),
  ].filter((link) => link !== undefined);
  if (shown.length === 0) return '';
  return html`<p class="muted client-policies">Before you allow it, read its ${shown.length === 2 ? html`${shown[0]} and ${shown[1]}` : shown[0]}.</p>`;
}

/** Where the answer goes, for people: the origin of an https or loopback URI, the scheme of a private-use one (RFC 8252 §7.1). */
function destinationOf(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.host !== '' ? url.origin : `${url.protocol}/…`;
}

/** The lines about a self-registered client: who vouches for its name, and the loopback warning. */
function originNotes(origin: ClientOrigin | undefined): SafeHtml | '' {
  if (origin === undefined || origin.registration === 'static') return '';
  const source =
    origin.registration === 'metadata-document'
      ? html`<p class="client-origin">This app describes itself in a document at <strong class="mono">${origin.documentHost ?? ''}</strong>. Gatehouse has not reviewed it: allow it only if you trust ${origin.documentHost ?? ''}.</p>`
      : html`<p class="client-origin">This app registered itself. Gatehouse has not reviewed who made it: allow it only if you started it yourself.</p>`;
  const loopback = origin.loopbackRedirectsOnly
    ? html`<p class="notice warn" role="note">This app receives the answer on your own computer. Any program running on this computer could be the one asking: allow it only if you just started this app yourself.</p>`
    : '';
  return html`${source}${loopback}`;
}

/** `href` with `return_to` (a same-origin path only), when there is one: signing in again comes back to the request. */
function withReturnTo(href: string, returnTo: string | undefined): string {
  const safe = safeReturnTo(returnTo);
  return safe === undefined ? href : `${href}${href.includes('?') ? '&' : '?'}${new URLSearchParams({ return_to: safe }).toString()}`;
}

/**
 * "Not you?": Gatehouse's own sign-out (coming back to the request) by default; the host's
 * switch-account or sign-out page when the host signs users in; nothing when it gave neither
 * (docs/decisions/0142: a link that leads to a dead end is worse than none).
 */
function notYouLink(paths: PagePaths, returnTo: string | undefined): SafeHtml | '' {
  const link = paths.notYou === undefined ? { href: paths.logout, kind: 'sign-out', returnTo: true } : paths.notYou;
  if (link === null) return '';
  const label = link.kind === 'switch-account' ? 'Use another account' : 'Sign out';
  return html`<p class="muted">Not you? <a href="${link.returnTo ? withReturnTo(link.href, returnTo) : link.href}">${label}</a>.</p>`;
}

/** How the access can be withdrawn later: by signing out (when the page offers it) and under "Authorized apps" (when mounted). */
function withdrawalHint(paths: PagePaths): SafeHtml | '' {
  const signOut = paths.notYou === undefined || paths.notYou?.kind === 'sign-out';
  const apps = paths.authorizedApps === undefined ? '' : html`under <a href="${paths.authorizedApps}">Authorized apps</a>`;
  if (!signOut && apps === '') return '';
  return html` You can withdraw this access later ${signOut ? 'by signing out' : ''}${signOut && apps !== '' ? ' or ' : ''}${apps}.`;
}

/**
 * The consent page: the client's name, each requested scope in words (those that allow changes marked,
 * docs/decisions/0097), and the two buttons
 * `decision=allow` / `decision=deny`. Consent grants exactly the listed scopes (decision 0022).
 */
export function consentPage(input: ConsentPageInput): SafeHtml {
  const host = destinationOf(input.redirectUri);
  const paths = input.paths ?? ROOT_PAGE_PATHS;
  return layout({
    stylesheetHref: paths.stylesheet,
    brand: paths.brand,
    title: `Allow ${input.clientName}?`,
    user: { email: input.userEmail },
    body: html`${clientHeader(input.presentation)}<h1>${input.clientName} wants to access your account</h1>
${originNotes(input.origin)}
<p>Signed in as <strong>${input.userEmail}</strong>. If you allow it, this app will be able to:</p>
<ul class="scopes">${input.scopes.map((scope) => html`<li>${describeScope(input.catalogue, scope)}${input.newScopes?.includes(scope) ? html` <span class="new-scope">New</span>` : ''}${
      scopeAllowsChanges(scope) ? html` <span class="changes">Can make changes</span>` : ''
    }<code>${scope}</code></li>`)}</ul>
${input.resources !== undefined && input.resources.length > 0 ? html`<p>At:</p>
<ul class="resources">${input.resources.map((entry) => html`<li><strong>${entry.name}</strong> <span class="mono">${entry.resource}</span></li>`)}</ul>` : ''}
${policyLinks(input.presentation)}<p class="muted">You will be sent back to <span class="mono destination">${host}</span>.${withdrawalHint(paths)}</p>
<form method="post" action="${input.formAction}">
<input type="hidden" name="${CSRF_FIELD}" value="${input.csrfToken}">
<div class="actions">
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
<button type="submit" name="decision" value="allow">Allow</button>
</div>
</form>
${notYouLink(paths, input.returnTo)}`,
  });
}
