import { constantTimeEqual, randomAlphanumeric } from '@gatehouse/core';
import type { NextFunction, Request, Response } from 'express';
import { CSRF_COOKIE, cookieOptions, readCookie } from './cookies.js';
import './locals.js';

/** The form field every POST form carries. */
export const CSRF_FIELD = 'csrf_token';

const TOKEN = /^[A-Za-z0-9]{43}$/;

/**
 * Double-submit CSRF protection (docs/decisions/0021): a random 256-bit token lives in an
 * HttpOnly, SameSite=Lax cookie and is repeated in every form; a POST must send both, equal.
 * This middleware makes sure the browser has a token and exposes it as `res.locals.csrfToken`.
 *
 * @example
 * router.get('/portal/clients/new', provideCsrfToken(issuer), (req, res) => sendPage(res, 200, form(res.locals.csrfToken!)));
 */
export function provideCsrfToken(issuer: string) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const existing = readCookie(req, CSRF_COOKIE);
    res.locals.csrfToken = existing !== undefined && TOKEN.test(existing) ? existing : issueCsrfToken(res, issuer);
    next();
  };
}

/** Sets a fresh token (after sign-in and sign-out, so a token never outlives a session change). */
export function issueCsrfToken(res: Response, issuer: string): string {
  const token = randomAlphanumeric(43);
  res.cookie(CSRF_COOKIE, token, cookieOptions(issuer));
  res.locals.csrfToken = token;
  return token;
}

/**
 * True when the submitted form token equals the cookie's, compared in constant time.
 * A missing cookie or field is never valid.
 */
export function csrfTokenMatches(req: Request, submitted: unknown): boolean {
  const cookie = readCookie(req, CSRF_COOKIE);
  if (cookie === undefined || !TOKEN.test(cookie) || typeof submitted !== 'string') return false;
  return constantTimeEqual(cookie, submitted);
}
