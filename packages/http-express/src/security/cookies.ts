import type { CookieOptions, Request } from 'express';

/** The cookie holding the opaque sign-in session token (only its hash is stored). */
export const SESSION_COOKIE = 'gatehouse_session';
/** The double-submit CSRF cookie (see docs/decisions/0021). */
export const CSRF_COOKIE = 'gatehouse_csrf';

/**
 * Reads one cookie from the `Cookie` header (RFC 6265 §5.4). The first occurrence wins;
 * a value that does not URI-decode is ignored.
 */
export function readCookie(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const pair of header.split(';')) {
    const index = pair.indexOf('=');
    if (index < 0 || pair.slice(0, index).trim() !== name) continue;
    let value = pair.slice(index + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    try {
      return decodeURIComponent(value);
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/**
 * Attributes of Gatehouse's cookies: `HttpOnly`, `SameSite=Lax`, `Path=/`, host-only (no `Domain`),
 * `Secure` when the issuer is https. No `Max-Age`: a browser-session cookie; the server decides expiry.
 */
export function cookieOptions(issuer: string): CookieOptions {
  return { httpOnly: true, sameSite: 'lax', path: '/', secure: issuer.startsWith('https:') };
}
