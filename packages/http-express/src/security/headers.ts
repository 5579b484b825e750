import type { NextFunction, Request, Response } from 'express';

/**
 * CSP of JSON and other non-page answers: nothing may load, nothing may frame.
 */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'";

/**
 * CSP of HTML pages: same-origin only, no script at all, styles from the served stylesheet
 * (no inline style), never framed (anti-clickjacking next to X-Frame-Options).
 * No `form-action`: Chromium applies it to the redirect after a POST, and the consent form's
 * answer is a redirect to the client's redirect URI on another origin.
 */
export const PAGE_CSP = "default-src 'self'; script-src 'none'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

/**
 * The headers every response gets: `X-Frame-Options: DENY`, `X-Content-Type-Options: nosniff`,
 * `Referrer-Policy: no-referrer`, `Cross-Origin-Opener-Policy: same-origin`, the API CSP, the
 * legacy ones helmet also sets (`Origin-Agent-Cluster`, `X-DNS-Prefetch-Control`,
 * `X-Download-Options`, `X-Permitted-Cross-Domain-Policies`, `X-XSS-Protection: 0`), and HSTS when
 * the issuer is https (RFC 6797). The list is made once: each response only copies it.
 * Pages then tighten or adjust with `setPageHeaders`.
 */
export function securityHeaders(issuer: string) {
  const headers: Array<[string, string]> = [
    ['Content-Security-Policy', API_CSP],
    ['Cross-Origin-Opener-Policy', 'same-origin'],
    ['Origin-Agent-Cluster', '?1'],
    ['Referrer-Policy', 'no-referrer'],
    ...(issuer.startsWith('https:') ? [['Strict-Transport-Security', 'max-age=31536000'] as [string, string]] : []),
    ['X-Content-Type-Options', 'nosniff'],
    ['X-DNS-Prefetch-Control', 'off'],
    ['X-Download-Options', 'noopen'],
    ['X-Frame-Options', 'DENY'],
    ['X-Permitted-Cross-Domain-Policies', 'none'],
    ['X-XSS-Protection', '0'],
  ];
  return (_req: Request, res: Response, next: NextFunction): void => {
    for (const [name, value] of headers) res.setHeader(name, value);
    next();
  };
}

/** What a page's CSP allows beyond `PAGE_CSP`. */
export interface PageCspOptions {
  /** Scripts from this origin (`script-src 'self'`: files served by Gatehouse, never inline script). */
  scripts?: boolean;
  /**
   * Images from this one other origin too (an `https` origin, as `URL.origin` writes it): the
   * consent page's client logo (docs/decisions/0155-who-is-asking-on-the-consent-page.md).
   */
  imageOrigin?: string | undefined;
}

/**
 * The page CSP with what `options` allow added.
 *
 * @example
 * pageCsp({ imageOrigin: 'https://cdn.app.example' }); // "default-src 'self'; script-src 'none'; … img-src 'self' https://cdn.app.example"
 */
export function pageCsp(options: PageCspOptions = {}): string {
  let csp = options.scripts ? PAGE_CSP.replace("script-src 'none'", "script-src 'self'") : PAGE_CSP;
  // Only an https origin, as URL.origin writes it (no space, quote or semicolon can reach the header).
  if (options.imageOrigin !== undefined && /^https:\/\/[A-Za-z0-9.\-[\]:]+$/.test(options.imageOrigin)) csp += `; img-src 'self' ${options.imageOrigin}`;
  return csp;
}

/** Headers of an HTML page: page CSP (with what `csp` allows) and no caching (pages carry CSRF tokens and personal data). */
export function setPageHeaders(res: Response, csp: PageCspOptions = {}): void {
  res.setHeader('Content-Security-Policy', pageCsp(csp));
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Pragma', 'no-cache');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Content-Type-Options', 'nosniff');
}
