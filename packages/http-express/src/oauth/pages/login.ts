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
  /**
   * The request can go back to the app: a "Cancel" button of the form posting `cancel` (with
   * `return_to`) to the login URL, answered `access_denied` (docs/decisions/0156-a-way-back-from-the-sign-in-page.md).
   */
  cancellable?: boolean;
  /** "Forgot your password?": whom to ask (`options.passwordHelp`; default: the operator). */
  passwordHelp?: PasswordHelp | undefined;
}

/**
 * What the sign-in page says to a user who forgot their password (docs/decisions/0156): Gatehouse
 * has no reset by e-mail, the operator sets a new one (`gatehouse users set-password`).
 */
export interface PasswordHelp {
  /** The words (default `DEFAULT_PASSWORD_HELP`). */
  text?: string;
  /** A link after them: an `https`, `http` or `mailto` URL, or a same-origin path. */
  url?: string;
}

/** The default words of "Forgot your password?". */
export const DEFAULT_PASSWORD_HELP = 'Ask the person who runs this service to set a new password for you. Passwords are not reset by e-mail here.';

/**
 * Whether a `PasswordHelp.url` may be linked: `https:`, `http:` or `mailto:`, or a path of this
 * site (`/help`); never `javascript:` and the like.
 *
 * @example
 * passwordHelpUrlProblem('mailto:it@example.com'); // undefined
 * passwordHelpUrlProblem('javascript:alert(1)'); // 'must be an https, http or mailto URL, or a path'
 */
export function passwordHelpUrlProblem(url: string): string | undefined {
  if (/^\/(?![/\\])/.test(url)) return undefined;
  if (URL.canParse(url) && ['https:', 'http:', 'mailto:'].includes(new URL(url).protocol)) return undefined;
  return 'must be an https, http or mailto URL, or a path';
}

function passwordHelpPart(help: PasswordHelp | undefined): SafeHtml {
  const url = help?.url !== undefined && passwordHelpUrlProblem(help.url) === undefined ? help.url : undefined;
  const text = help?.text ?? DEFAULT_PASSWORD_HELP;
  const label = url === undefined ? '' : url.startsWith('mailto:') ? url.slice('mailto:'.length) : url;
  return html`<details class="password-help"><summary>Forgot your password?</summary><p>${text}${url === undefined ? '' : html` <a href="${url}" rel="noopener noreferrer">${label}</a>`}</p></details>`;
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
    // The show-password button (served as a file; the page's CSP allows script-src 'self').
    withScript: true,
    body: html`<h1>${input.appName === undefined ? 'Sign in' : html`Sign in to continue to ${input.appName}`}</h1>
${input.message ? html`<p class="notice error" role="alert">${input.message}</p>` : ''}
<form method="post" action="${paths.login}" novalidate>
<input type="hidden" name="${CSRF_FIELD}" value="${input.csrfToken}">
${input.returnTo ? html`<input type="hidden" name="return_to" value="${input.returnTo}">` : ''}
<label for="email">E-mail</label>
<input id="email" name="email" type="email" autocomplete="username" required${focusPassword ? '' : html` autofocus`} value="${input.email ?? ''}">
<label for="password">Password</label>
<div class="password-row"><input id="password" name="password" type="password" autocomplete="current-password" required data-password${focusPassword ? html` autofocus` : ''}><button type="button" class="secondary" data-show-password="password" aria-controls="password" title="Show the password as you type it" hidden>Show</button></div>
<div class="actions"><button type="submit">Sign in</button></div>
${
  // The way back to the app (docs/decisions/0156): a second button of this one form, after Sign in (Enter still signs in).
  input.cancellable === true && input.returnTo !== undefined
    ? html`<p class="cancel"><button type="submit" name="cancel" value="1" class="link" formnovalidate>Cancel and go back to ${input.appName ?? 'the app'}</button></p>`
    : ''
}
</form>
${passwordHelpPart(input.passwordHelp)}`,
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
