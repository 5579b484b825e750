import type { Gatehouse, HostLogin } from '@gatehouse/core';
import type { Response } from 'express';
import { issuerPath } from '../oauth/paths.js';
import { continuePage } from '../pages/continue.js';
import { sendPage } from '../pages/send.js';
import { STYLESHEET_PATH } from '../pages/styles.js';
import { csrfSettings, issueCsrfToken } from '../security/csrf.js';
import { clearSessionCookie, setSessionCookie } from '../security/session.js';

/**
 * The host signed the user in after Gatehouse sent the browser to its login page with
 * `login_request` (docs/decisions/0091): completes the login request (single use), sets
 * Gatehouse's session cookie on this response and sends the browser back to the authorization
 * request, which goes on to consent: a redirect (303) when called for a GET, a page that moves on at
 * once (200, meta refresh) for a POST, so a strict CSP of the host's page (`form-action 'self'`,
 * helmet's default) does not block the chain in Chromium (docs/decisions/0141). `authenticatedAt` is when the user proved who they are to the
 * host (its own sign-in's time, not now): a request that wants a fresher sign-in (`prompt=login`,
 * `max_age`: `gatehouse.describeLoginRequest(id).authenticatedAfter`) rejects with
 * `DomainError('unauthenticated')` on the field `authenticatedAt` and stays usable, so the host asks
 * for the credentials and calls again (docs/decisions/0107-fresh-sign-in-through-the-host.md).
 * An unknown, expired or used login request rejects with `DomainError('not_found')`, a user the
 * directory does not know with `DomainError('unauthenticated')`; nothing is sent then, the host answers.
 * For OpenID Connect, `amr` (RFC 8176 methods, e.g. `['pwd', 'otp']`) and `acr` say how the user
 * signed in, and the ID tokens of the sign-in carry them (docs/decisions/0131).
 *
 * @example
 * app.post('/login', express.urlencoded({ extended: false }), async (req, res) => {
 *   const user = await myUsers.check(req.body.username, req.body.password);
 *   if (!user) return res.status(401).send(loginForm({ error: true }));
 *   await completeGatehouseLogin(gatehouse, res, { loginRequest: req.body.login_request, userKey: user.id, authenticatedAt: new Date() });
 * });
 */
export async function completeGatehouseLogin(
  gatehouse: Pick<Gatehouse, 'completeLogin' | 'settings'>,
  res: Response,
  input: HostLogin,
): Promise<void> {
  const issuer = gatehouse.settings.issuer;
  const { sessionToken, redirectTo } = await gatehouse.completeLogin(input);
  setSessionCookie(res, issuer, sessionToken);
  // A session change renews the CSRF token (docs/decisions/0021), as Gatehouse's own login does.
  issueCsrfToken(res, csrfSettings(issuer));
  sendOnward(res, issuer, redirectTo);
}

/**
 * The host asked for consent after Gatehouse sent the browser to its consent page with
 * `consent_request`: completes it (single use) and sends the browser to the client with a code
 * (`allow`) or `access_denied` (`deny`), as `completeGatehouseLogin` does (303 for a GET, a page
 * that moves on for a POST). An unknown, expired or used consent request rejects with
 * `DomainError('not_found')`. Show `gatehouse.describeConsentRequest(id)` on the page first.
 *
 * @example
 * app.post('/consent', async (req, res) => {
 *   await completeGatehouseConsent(gatehouse, res, { consentRequest: req.body.consent_request, decision: req.body.allow ? 'allow' : 'deny' });
 * });
 */
export async function completeGatehouseConsent(
  gatehouse: Pick<Gatehouse, 'completeConsent' | 'settings'>,
  res: Response,
  input: { consentRequest: string; decision: 'allow' | 'deny' },
): Promise<void> {
  const { redirectTo } = await gatehouse.completeConsent(input);
  sendOnward(res, gatehouse.settings.issuer, redirectTo);
}

/**
 * Sends the browser on to `to`: a redirect (303) for a GET, a page that moves on at once for a
 * form's POST. Chromium applies the CSP `form-action` of the host's page to every redirect after
 * its form is sent (helmet's default `form-action 'self'` then blocks the client's redirect URI,
 * on another origin, at the end of the chain: the authorize endpoint's redirect when the consent
 * is remembered); a navigation the page starts is no form's (docs/decisions/0141).
 */
function sendOnward(res: Response, issuer: string, to: string): void {
  if (res.req.method === 'GET' || res.req.method === 'HEAD') {
    res.setHeader('Cache-Control', 'no-store');
    res.redirect(303, to);
    return;
  }
  sendPage(res, 200, continuePage({ to, stylesheetHref: `${issuerPath(issuer)}${STYLESHEET_PATH}` }));
}

/**
 * The host's sign-out ends Gatehouse's too: every sign-in session of the user ends, every grant
 * made under them is revoked (their tokens stop working), this browser's Gatehouse session
 * cookie is cleared and its anonymous CSRF token renewed. Returns what was ended.
 *
 * @example
 * app.post('/logout', async (req, res) => {
 *   await logoutGatehouseUser(gatehouse, res, req.session.userId);
 *   req.session.destroy(() => res.redirect(303, '/'));
 * });
 */
export async function logoutGatehouseUser(
  gatehouse: Pick<Gatehouse, 'logoutUser' | 'settings'>,
  res: Response,
  userKey: string,
): Promise<{ endedSessionIds: string[]; revokedGrantIds: string[] }> {
  const ended = await gatehouse.logoutUser(userKey);
  clearSessionCookie(res, gatehouse.settings.issuer);
  // docs/decisions/0021: the CSRF token is renewed at sign-out too, as Gatehouse's own logout does.
  issueCsrfToken(res, csrfSettings(gatehouse.settings.issuer));
  return ended;
}
