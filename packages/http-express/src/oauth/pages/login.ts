import { CSRF_FIELD } from '../../security/csrf.js';
import { html, type SafeHtml } from '../../pages/html.js';
import { layout } from '../../pages/layout.js';
import { ROOT_PAGE_PATHS, type PagePaths } from '../../pages/paths.js';

export interface LoginPageInput {
  csrfToken: string;
  /** Where to go after sign-in (already checked to be a same-origin path). */
  returnTo: string | undefined;
  /** The e-mail typed before, to type it again less. */
  email?: string;
  message?: string | undefined;
  /** The app whose authorization request sent the user here ("Sign in to continue to …"). */
  appName?: string | undefined;
  /** Where the form posts and the page links (default: Gatehouse at the root). */
  paths?: PagePaths;
}

/**
 * The sign-in form: fields `email` and `password`, plus the CSRF token and `return_to`. After a
 * failed attempt with an e-mail typed, the password field has the focus (the e-mail is kept).
 */
export function loginPage(input: LoginPageInput): SafeHtml {
  const paths = input.paths ?? ROOT_PAGE_PATHS;
  // A typed (or hinted: login_hint) e-mail: the password is what is left to type.
  const focusPassword = (input.email ?? '') !== '';
  return layout({
    title: 'Sign in',
    stylesheetHref: paths.stylesheet,
    brand: paths.brand,
    body: html`<h1>${input.appName === undefined ? 'Sign in' : html`Sign in to continue to ${input.appName}`}</h1>
${input.message ? html`<p class="notice error" role="alert">${input.message}</p>` : ''}
<form method="post" action="${paths.login}" novalidate>
<input type="hidden" name="${CSRF_FIELD}" value="${input.csrfToken}">
${input.returnTo ? html`<input type="hidden" name="return_to" value="${input.returnTo}">` : ''}
<label for="email">E-mail</label>
<input id="email" name="email" type="email" autocomplete="username" required${focusPassword ? '' : html` autofocus`} value="${input.email ?? ''}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${focusPassword ? html` autofocus` : ''}>
<div class="actions"><button type="submit">Sign in</button></div>
</form>`,
  });
}

/** The login page of a browser that is already signed in and has no `return_to`: sign out, or go on (to the portal). */
export function signedInPage(input: { email: string; paths?: PagePaths; onward?: string | undefined }): SafeHtml {
  const paths = input.paths ?? ROOT_PAGE_PATHS;
  return layout({
    title: 'Signed in',
    stylesheetHref: paths.stylesheet,
    brand: paths.brand,
    user: { email: input.email },
    body: html`<h1>You are signed in</h1>
<p>Signed in as <strong>${input.email}</strong>.</p>
<div class="actions"><a class="button secondary" href="${paths.logout}">Sign out</a>${
      input.onward === undefined ? '' : html`<a class="button" href="${input.onward}">Continue</a>`
    }</div>`,
  });
}
