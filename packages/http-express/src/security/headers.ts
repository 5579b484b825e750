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

/** Headers of an HTML page: page CSP and no caching (pages carry CSRF tokens and personal data). */
export function setPageHeaders(res: Response): void {
  res.setHeader('Content-Security-Policy', PAGE_CSP);
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Pragma', 'no-cache');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Content-Type-Options', 'nosniff');
}
