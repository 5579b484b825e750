import { constantTimeEqual, sha256, type Client } from '@gatehouse/core';
import type { CookieOptions, Request, Response } from 'express';
import { readCookie } from '../security/cookies.js';
import { clientPath, type PortalPaths } from './paths.js';

/**
 * The one-time carrier of a new client secret from the POST that made it to the page that shows
 * it (Post/Redirect/Get, docs/decisions/0050): HttpOnly, SameSite=Strict, scoped to that one
 * page's path, expiring on its own after a few minutes, and cleared by the page that shows it, so
 * a reload or the back button does not show the secret again and a re-POST is never needed.
 */
export const SECRET_COOKIE = 'gatehouse_new_secret';
const LIFETIME_MS = 5 * 60 * 1000;

/** What the cookie also says: was the client just created (or its secret rotated)? */
type Reason = 'created' | 'rotated';

function options(issuer: string, paths: PortalPaths, clientId: string): CookieOptions {
  return { httpOnly: true, sameSite: 'strict', secure: issuer.startsWith('https:'), path: secretPagePath(paths, clientId) };
}

export function secretPagePath(paths: PortalPaths, clientId: string): string {
  return clientPath(paths, clientId, '/secret');
}

/** Sets the cookie and answers 303 to the secret page. */
export function redirectToSecret(res: Response, issuer: string, paths: PortalPaths, clientId: string, clientSecret: string, reason: Reason): void {
  res.cookie(SECRET_COOKIE, `${reason}.${clientSecret}`, { ...options(issuer, paths, clientId), maxAge: LIFETIME_MS });
  res.setHeader('Cache-Control', 'no-store');
  res.redirect(303, secretPagePath(paths, clientId));
}

/**
 * Takes the secret out of the request's cookie and clears the cookie. The secret is returned only
 * when it is this client's current one (its SHA-256 matches, compared in constant time): a stale
 * cookie from an earlier rotation shows nothing rather than a secret that no longer works.
 */
export function takeSecret(req: Request, res: Response, issuer: string, paths: PortalPaths, client: Client): { secret: string; reason: Reason } | undefined {
  const value = readCookie(req, SECRET_COOKIE);
  if (value === undefined) return undefined;
  res.clearCookie(SECRET_COOKIE, options(issuer, paths, client.clientId));
  const match = /^(created|rotated)\.([A-Za-z0-9]{20,200})$/.exec(value);
  if (!match) return undefined;
  const [, reason, secret] = match as unknown as [string, Reason, string];
  // A public client has no secret to show.
  if (client.clientSecretHash === null) return undefined;
  return constantTimeEqual(sha256(secret), client.clientSecretHash) ? { secret, reason } : undefined;
}
