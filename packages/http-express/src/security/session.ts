import type { Gatehouse } from '@gatehouse/core';
import type { NextFunction, Request, Response } from 'express';
import { SESSION_COOKIE, cookieOptions, readCookie } from './cookies.js';
import './locals.js';

/** Where `requireSignedInPage` sends a browser that is not signed in. */
export const LOGIN_PATH = '/oauth/login';

/** The sign-in session token of this browser, if it sent one. */
export function sessionTokenOf(req: Request): string | undefined {
  const token = readCookie(req, SESSION_COOKIE);
  // Tokens are 43+ alphanumerics; anything else cannot be ours and is not looked up.
  return token !== undefined && /^[A-Za-z0-9]{20,200}$/.test(token) ? token : undefined;
}

/**
 * Resolves the `gatehouse_session` cookie through `gatehouse.resolveSession` and puts
 * `{ session, user }` on `res.locals.signedIn` (left undefined when nobody is signed in).
 *
 * @example
 * router.use(loadSignedIn(gatehouse), requireSignedInPage);
 * router.get('/portal/clients', (req, res) => res.send(`Hello ${res.locals.signedIn!.user.email}`));
 */
export function loadSignedIn(gatehouse: Gatehouse) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const token = sessionTokenOf(req);
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
  if (res.locals.signedIn) return next();
  const comeBack = req.method === 'GET' || req.method === 'HEAD';
  res.redirect(303, comeBack ? loginUrl(req.originalUrl) : LOGIN_PATH);
}

/**
 * The login page URL that comes back to `returnTo` (a same-origin path) after sign-in;
 * `loginPath` is the login page under the mount path (default `/oauth/login`).
 */
export function loginUrl(returnTo: string, loginPath: string = LOGIN_PATH): string {
  const safe = safeReturnTo(returnTo);
  return safe === undefined ? loginPath : `${loginPath}?${new URLSearchParams({ return_to: safe }).toString()}`;
}

/**
 * Accepts only a same-origin relative path (`/…`), never `//host`, `/\host`, a scheme or a
 * control character, so a crafted login link cannot redirect elsewhere (no open redirect).
 * Returns the normalized path + query, or undefined.
 */
export function safeReturnTo(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > 4096) return undefined;
  if (!value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return undefined;
  if ([...value].some((char) => char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f || char === '\\')) return undefined;
  const base = 'http://gatehouse.invalid';
  let url: URL;
  try {
    url = new URL(value, base);
  } catch {
    return undefined;
  }
  if (url.origin !== base) return undefined;
  return `${url.pathname}${url.search}`;
}

/** Sets the sign-in cookie after a successful sign-in. */
export function setSessionCookie(res: Response, issuer: string, sessionToken: string): void {
  res.cookie(SESSION_COOKIE, sessionToken, cookieOptions(issuer));
}

export function clearSessionCookie(res: Response, issuer: string): void {
  res.clearCookie(SESSION_COOKIE, cookieOptions(issuer));
}
