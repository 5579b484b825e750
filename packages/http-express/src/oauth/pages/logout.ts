import { CSRF_FIELD } from '../../security/csrf.js';
import { html, type SafeHtml } from '../../pages/html.js';
import { layout } from '../../pages/layout.js';
import { ROOT_PAGE_PATHS, type PagePaths } from '../../pages/paths.js';
import { loginUrl } from '../../security/session.js';

/**
 * GET /oauth/logout: asks before signing out (only the POST signs out). For an RP-initiated
 * logout (docs/decisions/0135), `appName` says which app asks, and `endSession` (its client,
 * post-logout redirect URI and state) goes with the form, to be checked again.
 */
export function logoutConfirmPage(input: {
  csrfToken: string;
  email: string;
  paths?: PagePaths;
  returnTo?: string | undefined;
  appName?: string;
  endSession?: Readonly<Record<string, string>>;
}): SafeHtml {
  const paths = input.paths ?? ROOT_PAGE_PATHS;
  return layout({
    stylesheetHref: paths.stylesheet,
    brand: paths.brand,
    title: 'Sign out',
    user: { email: input.email },
    body: html`<h1>Sign out?</h1>
${input.appName === undefined ? '' : html`<p><strong>${input.appName}</strong> asks you to sign out.</p>`}
<p>You are signed in as <strong>${input.email}</strong>. Signing out also withdraws the access you gave to apps during this sign-in: their tokens stop working.</p>
<form method="post" action="${paths.logout}">
<input type="hidden" name="${CSRF_FIELD}" value="${input.csrfToken}">
${input.returnTo === undefined ? '' : html`<input type="hidden" name="return_to" value="${input.returnTo}">`}
${Object.entries(input.endSession ?? {}).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<div class="actions"><button type="submit" class="danger">Sign out</button></div>
</form>`,
  });
}

/**
 * After POST /oauth/logout, or GET when nobody is signed in. With `returnTo` (an authorization
 * request left by "Not you? Sign out"), "Sign in" comes back to it.
 */
export function signedOutPage(input: { wasSignedIn: boolean; paths?: PagePaths; returnTo?: string | undefined }): SafeHtml {
  const paths = input.paths ?? ROOT_PAGE_PATHS;
  return layout({
    stylesheetHref: paths.stylesheet,
    brand: paths.brand,
    title: 'Signed out',
    body: html`<h1>${input.wasSignedIn ? 'You are signed out' : 'You are not signed in'}</h1>
${input.wasSignedIn ? html`<p class="notice ok" role="status">Your session has ended and the apps you allowed during it no longer have access.</p>` : ''}
<div class="actions"><a class="button${input.returnTo === undefined ? ' secondary' : ''}" href="${input.returnTo === undefined ? paths.login : loginUrl(input.returnTo, paths.login)}">${
      input.returnTo === undefined ? 'Sign in' : 'Sign in to continue'
    }</a></div>`,
  });
}
