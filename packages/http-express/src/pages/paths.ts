import { ICON_PATH, SCRIPT_PATH, STYLESHEET_PATH } from './styles.js';

/**
 * The addresses the pages link to, under the path Gatehouse is mounted at (docs/decisions/0090):
 * the stylesheet, the login form and the logout form.
 */
export interface PagePaths {
  stylesheet: string;
  login: string;
  logout: string;
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
