import { createHmac, hkdfSync } from 'node:crypto';
import { constantTimeEqual, randomAlphanumeric } from '@gatehouse/core';
import type { NextFunction, Request, Response } from 'express';
import { cookieOptions, csrfCookieName, readCookie } from './cookies.js';
import { sessionTokenOf } from './session.js';
import './locals.js';

/** The form field every POST form carries. */
export const CSRF_FIELD = 'csrf_token';

/** The anonymous (double-submit) token: 43 random alphanumerics. */
const ANONYMOUS_TOKEN = /^[A-Za-z0-9]{43}$/;

/**
 * How CSRF tokens are made for one app: the issuer (cookie names and attributes) and the key of
 * the session-bound tokens (docs/decisions/0025).
 */
export interface CsrfSettings {
  issuer: string;
  key: Buffer;
}

/** The HMAC key when no `csrfKey` is configured: public; the session token is then the secret (docs/decisions/0025). */
const UNKEYED = Buffer.from('gatehouse csrf token v1', 'utf8');

/**
 * The CSRF settings of an app. `csrfKey`, when given, is stretched with HKDF-SHA256 under a
 * label of its own, so a secret the server already has (the signing-key encryption secret) can
 * be reused without the CSRF key ever equalling it. Every instance behind one load balancer must
 * get the same `csrfKey` (docs/decisions/0080): a per-process random key would refuse forms that
 * were rendered by another instance or before a restart.
 *
 * @example
 * const csrf = csrfSettings('https://auth.example.com', process.env.GATEHOUSE_KEY_SECRET);
 */
export function csrfSettings(issuer: string, csrfKey?: string | Uint8Array): CsrfSettings {
  const key = csrfKey === undefined ? UNKEYED : Buffer.from(hkdfSync('sha256', csrfKey, 'gatehouse', 'gatehouse csrf token v1', 32));
  return { issuer, key };
}

/**
 * The CSRF token of a signed-in session's forms: HMAC-SHA256 of the session token under the
 * CSRF key, base64url (43 characters). Only someone holding the session cookie can know it, so a
 * token (and cookie) taken from another browser or an anonymous page never fits a victim's
 * session; it changes with each sign-in and needs no storage (any instance computes it).
 */
export function sessionCsrfToken(key: Buffer, sessionToken: string): string {
  return createHmac('sha256', key).update(`session\u0000${sessionToken}`).digest('base64url');
}

/** The anonymous double-submit token in the browser's cookie, if it has a well-formed one. */
function anonymousCookieToken(req: Request, issuer: string): string | undefined {
  const cookie = readCookie(req, csrfCookieName(issuer));
  return cookie !== undefined && ANONYMOUS_TOKEN.test(cookie) ? cookie : undefined;
}

/** The session token of a signed-in request (`loadSignedIn` resolved it), else undefined. */
function signedInSessionToken(req: Request, res: Response, issuer: string): string | undefined {
  return res.locals.signedIn ? sessionTokenOf(req, issuer) : undefined;
}

/**
 * Exposes the token every form of the page carries as `res.locals.csrfToken`: bound to the
 * session for a signed-in browser; for anyone else the double-submit token of the login form
 * (docs/decisions/0021), set in an HttpOnly cookie when the browser has none. Use after `loadSignedIn`.
 *
 * @example
 * router.get('/portal/clients/new', provideCsrfToken(csrf), (req, res) => sendPage(res, 200, form(res.locals.csrfToken!)));
 */
export function provideCsrfToken(settings: CsrfSettings) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const session = signedInSessionToken(req, res, settings.issuer);
    res.locals.csrfToken = session !== undefined ? sessionCsrfToken(settings.key, session) : loginCsrfToken(req, res, settings);
    next();
  };
}

/**
 * The double-submit token of the anonymous login form (login CSRF protection), setting the
 * cookie when the browser has none. A signed-in browser can still post the login form (to change
 * user), so the login form always uses this token.
 */
export function loginCsrfToken(req: Request, res: Response, settings: CsrfSettings): string {
  res.locals.loginCsrfToken ??= anonymousCookieToken(req, settings.issuer) ?? issueCsrfToken(res, settings);
  return res.locals.loginCsrfToken;
}

/** Sets a fresh anonymous token (after sign-in and sign-out, so a token never outlives a session change). */
export function issueCsrfToken(res: Response, settings: CsrfSettings): string {
  const token = randomAlphanumeric(43);
  res.cookie(csrfCookieName(settings.issuer), token, cookieOptions(settings.issuer));
  res.locals.loginCsrfToken = token;
  return token;
}

/**
 * True when the submitted token is the one this request's forms carry, compared in constant
 * time: for a signed-in browser the token bound to its session (a cookie is not enough), for
 * anyone else the double-submit cookie's. A missing cookie or field is never valid.
 */
export function csrfTokenMatches(req: Request, res: Response, settings: CsrfSettings, submitted: unknown): boolean {
  if (typeof submitted !== 'string') return false;
  const session = signedInSessionToken(req, res, settings.issuer);
  if (session !== undefined) return constantTimeEqual(sessionCsrfToken(settings.key, session), submitted);
  return loginCsrfTokenMatches(req, settings, submitted);
}

/** The login form's check: the submitted token equals the double-submit cookie's (constant time). */
export function loginCsrfTokenMatches(req: Request, settings: CsrfSettings, submitted: unknown): boolean {
  const cookie = anonymousCookieToken(req, settings.issuer);
  if (cookie === undefined || typeof submitted !== 'string') return false;
  return constantTimeEqual(cookie, submitted);
}
