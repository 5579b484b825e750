import { CSRF_FIELD } from '../security/csrf.js';
import { html, type SafeHtml } from './html.js';
import { layout } from './layout.js';

export interface LoginPageInput {
  csrfToken: string;
  /** Where to go after sign-in (already checked to be a same-origin path). */
  returnTo: string | undefined;
  /** The e-mail typed before, to type it again less. */
  email?: string;
  message?: string | undefined;
}

/** The sign-in form: fields `email` and `password`, plus the CSRF token and `return_to`. */
export function loginPage(input: LoginPageInput): SafeHtml {
  return layout({
    title: 'Sign in',
    body: html`<h1>Sign in</h1>
${input.message ? html`<p class="notice error" role="alert">${input.message}</p>` : ''}
<form method="post" action="/oauth/login" novalidate>
<input type="hidden" name="${CSRF_FIELD}" value="${input.csrfToken}">
${input.returnTo ? html`<input type="hidden" name="return_to" value="${input.returnTo}">` : ''}
<label for="email">E-mail</label>
<input id="email" name="email" type="email" autocomplete="username" required autofocus value="${input.email ?? ''}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<div class="actions"><button type="submit">Sign in</button></div>
</form>`,
  });
}

/** The login page of a browser that is already signed in and has nowhere else to go. */
export function signedInPage(input: { email: string }): SafeHtml {
  return layout({
    title: 'Signed in',
    user: { email: input.email },
    body: html`<h1>You are signed in</h1>
<p>Signed in as <strong>${input.email}</strong>.</p>
<div class="actions"><a class="button secondary" href="/oauth/logout">Sign out</a></div>`,
  });
}
