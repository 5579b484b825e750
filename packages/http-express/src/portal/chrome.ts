import type { Response } from 'express';
import { html, type SafeHtml } from '../pages/html.js';
import { layout } from '../pages/layout.js';
import { PAGE_CSP, setPageHeaders } from '../security/headers.js';
import { COPY_SCRIPT_PATH, PORTAL_STYLESHEET_PATH } from './assets.js';

/** The portal menu (decision 0051: the "OAuth Clients" entry, "Authorized apps"). */
export const PORTAL_MENU = [
  { href: '/portal/clients', label: 'OAuth Clients' },
  { href: '/portal/authorized-apps', label: 'Authorized apps' },
  { href: '/oauth/logout', label: 'Sign out' },
] as const;

export interface PortalPageOptions {
  title: string;
  /** The signed-in user's e-mail, shown in the header. */
  email: string;
  body: SafeHtml;
  width?: 'card' | 'wide';
  /** Loads the copy-button script (the secret page only). */
  withCopyScript?: boolean;
}

/**
 * A portal page in the shared layout: the menu, the user, and the portal stylesheet (a
 * `<link rel=stylesheet>` is allowed in the body, so the shared layout needs no change).
 */
export function portalPage(options: PortalPageOptions): SafeHtml {
  return layout({
    title: options.title,
    user: { email: options.email },
    nav: PORTAL_MENU,
    width: options.width ?? 'wide',
    body: html`<link rel="stylesheet" href="${PORTAL_STYLESHEET_PATH}">
${options.body}${options.withCopyScript ? html`\n<script src="${COPY_SCRIPT_PATH}" defer></script>` : ''}`,
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
