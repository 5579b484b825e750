import type { PageBrand } from './branding.js';
import { ICON_PATH, SCRIPT_PATH, STYLESHEET_PATH } from './styles.js';

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
  /** The pages' script (default: beside the stylesheet). */
  script?: string;
  /** The pages' icon (default: beside the stylesheet). */
  icon?: string;
}

/** The page paths of a Gatehouse whose issuer has no path (the reference server). */
export const ROOT_PAGE_PATHS: PagePaths = { stylesheet: STYLESHEET_PATH, login: '/oauth/login', logout: '/oauth/logout', script: SCRIPT_PATH, icon: ICON_PATH };

/**
 * The address of another of the pages' files (`SCRIPT_PATH`, `ICON_PATH`) under the same mount
 * path as `stylesheetHref`: they are served beside the stylesheet.
 *
 * @example
 * assetBeside('/auth/assets/gatehouse.css', ICON_PATH); // '/auth/assets/gatehouse.svg'
 */
export function assetBeside(stylesheetHref: string, assetPath: string): string {
  return stylesheetHref.endsWith(STYLESHEET_PATH) ? `${stylesheetHref.slice(0, -STYLESHEET_PATH.length)}${assetPath}` : assetPath;
}
