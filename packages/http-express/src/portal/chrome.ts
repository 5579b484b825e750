import type { Response } from 'express';
import { html, type SafeHtml } from '../pages/html.js';
import { layout } from '../pages/layout.js';
import { PAGE_CSP, setPageHeaders } from '../security/headers.js';
import { ROOT_PORTAL_PATHS, type PortalPaths } from './paths.js';

/** The portal menu (decision 0051: the "OAuth Clients" entry, "Authorized apps") under `paths`. */
export function portalMenu(paths: PortalPaths): ReadonlyArray<{ href: string; label: string }> {
  return [
    { href: paths.clients, label: 'OAuth Clients' },
    { href: paths.authorizedApps, label: 'Authorized apps' },
    { href: paths.gatehouse.logout, label: 'Sign out' },
  ];
}

/** The portal menu of a Gatehouse at the root. */
export const PORTAL_MENU = portalMenu(ROOT_PORTAL_PATHS);

export interface PortalPageOptions {
  title: string;
  /** The signed-in user's e-mail, shown in the header. */
  email: string;
  body: SafeHtml;
  /** Where the portal and Gatehouse's pages are (under the issuer's path). */
  paths: PortalPaths;
  width?: 'card' | 'wide';
  /** Loads the copy-button script (the secret page only). */
  withCopyScript?: boolean;
}

/**
 * A portal page in the shared layout: the menu, the user, and the portal stylesheet (a
 * `<link rel=stylesheet>` is allowed in the body, so the shared layout needs no change).
 */
export function portalPage(options: PortalPageOptions): SafeHtml {
  const { paths } = options;
  return layout({
    title: options.title,
    user: { email: options.email },
    nav: portalMenu(paths),
    width: options.width ?? 'wide',
    stylesheetHref: paths.gatehouse.stylesheet,
    body: html`<link rel="stylesheet" href="${paths.stylesheet}">
${options.body}${options.withCopyScript ? html`\n<script src="${paths.copyScript}" defer></script>` : ''}`,
  });
}

/** The page CSP with scripts from our own origin allowed (only for the copy buttons of the secret page). */
export const PORTAL_SCRIPT_CSP = PAGE_CSP.replace("script-src 'none'", "script-src 'self'");

/**
 * Sends a portal page with the page security headers (CSP, anti-framing, no-referrer, no-store);
 * `allowScript` relaxes `script-src` to 'self' for the copy script (still no inline script).
 */
export function sendPortalPage(res: Response, status: number, page: SafeHtml, options: { allowScript?: boolean } = {}): void {
  setPageHeaders(res);
  if (options.allowScript) res.setHeader('Content-Security-Policy', PORTAL_SCRIPT_CSP);
  res.status(status).type('text/html; charset=utf-8').send(page.value);
}
