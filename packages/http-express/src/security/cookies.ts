import type { CookieOptions, Request } from 'express';

/** The cookie holding the opaque sign-in session token (only its hash is stored); see `sessionCookieName`. */
export const SESSION_COOKIE = 'gatehouse_session';
/** The double-submit CSRF cookie of the anonymous login form (docs/decisions/0021, 0025); see `csrfCookieName`. */
export const CSRF_COOKIE = 'gatehouse_csrf';

/** True when the issuer is https: the cookies are then `Secure` and `__Host-` prefixed. */
function isHttps(issuer: string): boolean {
  return issuer.startsWith('https:');
}

/**
 * The name a cookie has for this issuer: `__Host-<name>` on https (RFC 6265bis §4.1.3.2: only a
 * `Secure`, `Path=/`, host-only cookie may carry it, so a sibling domain cannot set or shadow it),
 * the plain name on an http (loopback, development) issuer, where `__Host-` cookies cannot exist.
 */
export function cookieName(issuer: string, name: string): string {
  return isHttps(issuer) ? `__Host-${name}` : name;
}

export const sessionCookieName = (issuer: string): string => cookieName(issuer, SESSION_COOKIE);
export const csrfCookieName = (issuer: string): string => cookieName(issuer, CSRF_COOKIE);

/** Every value of cookie `name` in the `Cookie` header, in order (RFC 6265 §5.4); undecodable values included as undefined. */
function cookieValues(req: Request, name: string): Array<string | undefined> {
  const header = req.headers.cookie;
  if (!header) return [];
  const values: Array<string | undefined> = [];
  for (const pair of header.split(';')) {
    const index = pair.indexOf('=');
    if (index < 0 || pair.slice(0, index).trim() !== name) continue;
    let value = pair.slice(index + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    try {
      values.push(decodeURIComponent(value));
    } catch {
      values.push(undefined);
    }
  }
  return values;
}

/**
 * Reads one cookie from the `Cookie` header (RFC 6265 §5.4). A cookie sent more than once is
 * read as absent (which one the browser sends first is not ours to choose: a cookie planted for
 * a parent domain can come first); a value that does not URI-decode is ignored.
 */
export function readCookie(req: Request, name: string): string | undefined {
  const values = cookieValues(req, name);
  return values.length === 1 ? values[0] : undefined;
}

/** The name of the first of `names` that the request carries more than once, if any. */
export function repeatedCookie(req: Request, names: readonly string[]): string | undefined {
  return names.find((name) => cookieValues(req, name).length > 1);
}

/**
 * Attributes of Gatehouse's cookies: `HttpOnly`, `SameSite=Lax`, `Path=/`, host-only (no `Domain`),
 * `Secure` when the issuer is https. No `Max-Age`: a browser-session cookie; the server decides expiry.
 */
export function cookieOptions(issuer: string): CookieOptions {
  return { httpOnly: true, sameSite: 'lax', path: '/', secure: isHttps(issuer) };
}
