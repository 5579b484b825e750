import type { CookieOptions, Request, Response } from 'express';
import { readCookie } from '../security/cookies.js';
import type { PortalPaths } from './paths.js';

/**
 * The name of what was just deleted or revoked, carried from the POST to the page the browser is
 * redirected to (`?done=…`), so that its notice can name it ("“Mail app” was deleted") although
 * it no longer exists to be looked up. Never from the URL (a link cannot put words on the page):
 * a short-lived HttpOnly, SameSite=Strict cookie under the portal's path, read once and cleared.
 */
export const DONE_COOKIE = 'gatehouse_done';
const LIFETIME_MS = 60 * 1000;

function options(issuer: string, paths: PortalPaths): CookieOptions {
  return { httpOnly: true, sameSite: 'strict', secure: issuer.startsWith('https:'), path: paths.root };
}

/** Remembers `name` for the notice of `done` on the next page (Express percent-encodes the value). */
export function rememberDoneName(res: Response, issuer: string, paths: PortalPaths, done: string, name: string): void {
  res.cookie(DONE_COOKIE, `${done}.${name}`, { ...options(issuer, paths), maxAge: LIFETIME_MS });
}

/** The name remembered for `done` (undefined without one, or for another notice), and clears it. */
export function takeDoneName(req: Request, res: Response, issuer: string, paths: PortalPaths, done: unknown): string | undefined {
  const value = readCookie(req, DONE_COOKIE);
  if (value === undefined) return undefined;
  res.clearCookie(DONE_COOKIE, options(issuer, paths));
  const dot = value.indexOf('.');
  if (typeof done !== 'string' || dot < 0 || value.slice(0, dot) !== done) return undefined;
  return value.slice(dot + 1);
}
