import { STYLESHEET_PATH } from './styles.js';

/**
 * The addresses the pages link to, under the path Gatehouse is mounted at (docs/decisions/0090):
 * the stylesheet, the login form and the logout form.
 */
export interface PagePaths {
  stylesheet: string;
  login: string;
  logout: string;
}

/** The page paths of a Gatehouse whose issuer has no path (the reference server). */
export const ROOT_PAGE_PATHS: PagePaths = { stylesheet: STYLESHEET_PATH, login: '/oauth/login', logout: '/oauth/logout' };
