import type { PageBrand } from './branding.js';
import { STYLESHEET_PATH } from './styles.js';

/**
 * The addresses the pages link to, under the path Gatehouse is mounted at (docs/decisions/0090):
 * the stylesheet, the login form and the logout form; and, set by the router's options
 * (docs/decisions/0142), where the consent page's "Not you?" and "Authorized apps" lead and the
 * host's brand.
 */
export interface PagePaths {
  stylesheet: string;
  login: string;
  logout: string;
  /**
   * The consent page's "Not you?" link: absent, Gatehouse's own sign-out (coming back to the
   * request); a link of the host's (`returnTo`: it gets `return_to=<the request>`); `null`: none.
   */
  notYou?: { href: string; kind: 'sign-out' | 'switch-account'; returnTo: boolean } | null;
  /** The "Authorized apps" page, when one is mounted: the consent page names it only then. */
  authorizedApps?: string;
  /** The host's brand (default: Gatehouse's). */
  brand?: PageBrand;
}

/** The page paths of a Gatehouse whose issuer has no path (the reference server). */
export const ROOT_PAGE_PATHS: PagePaths = { stylesheet: STYLESHEET_PATH, login: '/oauth/login', logout: '/oauth/logout' };
