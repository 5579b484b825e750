import type { Response } from 'express';
import helmet from 'helmet';

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
 * The headers every response gets (helmet): `X-Frame-Options: DENY`, `X-Content-Type-Options: nosniff`,
 * `Referrer-Policy: no-referrer`, the API CSP, and HSTS when the issuer is https.
 * Pages then tighten or adjust with `setPageHeaders`.
 */
export function securityHeaders(issuer: string) {
  return helmet({
    contentSecurityPolicy: false,
    crossOriginEmbedderPolicy: false,
    crossOriginResourcePolicy: false,
    crossOriginOpenerPolicy: { policy: 'same-origin' },
    referrerPolicy: { policy: 'no-referrer' },
    strictTransportSecurity: issuer.startsWith('https:') ? { maxAge: 31536000, includeSubDomains: false } : false,
    xFrameOptions: { action: 'deny' },
    xContentTypeOptions: true,
  });
}

/** Sets the API CSP (the default of every response; a page replaces it). */
export function setApiCsp(res: Response): void {
  res.setHeader('Content-Security-Policy', API_CSP);
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
