import type { Gatehouse } from '@gatehouse/core';
import type { NextFunction, Request, Response } from 'express';
import { cookieOptions, readCookie, sessionCookieName } from './cookies.js';
import './locals.js';

/** Where `requireSignedInPage` sends a browser that is not signed in. */
export const LOGIN_PATH = '/oauth/login';

/** The sign-in session token of this browser, if it sent one (once, under this issuer's cookie name). */
export function sessionTokenOf(req: Request, issuer: string): string | undefined {
  const token = readCookie(req, sessionCookieName(issuer));
  // Tokens are 43+ alphanumerics; anything else cannot be ours and is not looked up.
  return token !== undefined && /^[A-Za-z0-9]{20,200}$/.test(token) ? token : undefined;
}

/**
 * Resolves the session cookie (`gatehouse_session`, `__Host-gatehouse_session` on https) through `gatehouse.resolveSession` and puts
 * `{ session, user }` on `res.locals.signedIn` (left undefined when nobody is signed in).
 *
 * @example
 * router.use(loadSignedIn(gatehouse), requireSignedInPage);
 * router.get('/portal/clients', (req, res) => res.send(`Hello ${res.locals.signedIn!.user.email}`));
 */
export function loadSignedIn(gatehouse: Gatehouse) {
  const issuer = gatehouse.settings.issuer;
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const token = sessionTokenOf(req, issuer);
    if (token !== undefined) {
      const resolved = await gatehouse.resolveSession(token);
      if (resolved) res.locals.signedIn = resolved;
    }
    next();
  };
}

/**
 * A page that needs a signed-in user: without one, redirects (303) to the login page. A GET
 * comes back to itself after sign-in (`return_to`, same origin by construction); a form POST
 * cannot be replayed as a GET, so it goes to the login page without `return_to`.
 * Use after `loadSignedIn`.
 */
export function requireSignedInPage(req: Request, res: Response, next: NextFunction): void {
  requireSignedInPageAt(LOGIN_PATH)(req, res, next);
}

/**
 * `requireSignedInPage` for a Gatehouse whose login page is at `loginPath` (under the issuer's
 * path, docs/decisions/0090): `requireSignedInPageAt('/auth/oauth/login')`.
 */
export function requireSignedInPageAt(loginPath: string) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (res.locals.signedIn) return next();
    const comeBack = req.method === 'GET' || req.method === 'HEAD';
    res.redirect(303, comeBack ? loginUrl(req.originalUrl, loginPath) : loginPath);
  };
}

/**
 * The login page URL that comes back to `returnTo` (a same-origin path) after sign-in;
 * `loginPath` is the login page under the mount path (default `/oauth/login`).
 */
export function loginUrl(returnTo: string, loginPath: string = LOGIN_PATH): string {
  const safe = safeReturnTo(returnTo);
  return safe === undefined ? loginPath : `${loginPath}?${new URLSearchParams({ return_to: safe }).toString()}`;
}

/** A C0 control, DEL or a backslash (URL parsers strip the first and read the last as `/`); with `space`, a space too. */
function hasUnsafeCharacter(value: string, space: boolean): boolean {
  for (const char of value) {
    const code = char.charCodeAt(0);
    if (code < 0x20 || code === 0x7f || char === '\\' || (space && code === 0x20)) return true;
  }
  return false;
}
/** A same-origin absolute path: one `/`, then anything but a second `/` or a `\` (never `//host`). */
const SAME_ORIGIN_PATH = /^\/(?![/\\])/;
const NORMALISING_BASE = 'http://gatehouse.invalid';

/**
 * Accepts only a same-origin relative path (`/…`), never `//host`, `/\host`, a scheme or a
 * control character, so a crafted login link cannot redirect elsewhere (no open redirect).
 * RFC 9700 §4.11, CWE-601: the value is normalised first (dot segments, `%2e`, as a browser
 * resolves them) and the NORMALISED path + query is what is checked and returned, so
 * `/.//evil.example` (which normalises to `//evil.example`) is refused, not passed on.
 * Returns the normalised path + query, or undefined.
 */
export function safeReturnTo(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > 4096) return undefined;
  // The raw value: a path, with no character a URL parser strips or turns into `/`.
  if (!SAME_ORIGIN_PATH.test(value) || hasUnsafeCharacter(value, false)) return undefined;
  let url: URL;
  try {
    url = new URL(value, NORMALISING_BASE);
  } catch {
    return undefined;
  }
  if (url.origin !== NORMALISING_BASE) return undefined;
  const normalised = `${url.pathname}${url.search}`;
  // The normalised result is checked again: it is what the browser will resolve.
  if (!SAME_ORIGIN_PATH.test(normalised) || hasUnsafeCharacter(normalised, true)) return undefined;
  return normalised;
}

/** Sets the sign-in cookie after a successful sign-in. */
export function setSessionCookie(res: Response, issuer: string, sessionToken: string): void {
  res.cookie(sessionCookieName(issuer), sessionToken, cookieOptions(issuer));
}

export function clearSessionCookie(res: Response, issuer: string): void {
  res.clearCookie(sessionCookieName(issuer), cookieOptions(issuer));
}
