import { gatehousePaths, type GatehousePaths } from '../oauth/paths.js';

/**
 * The portal's addresses as the browser sees them: under the issuer's path, like Gatehouse's own
 * pages (docs/decisions/0090), so a portal mounted in a host under `/auth` links, posts, redirects
 * and loads its stylesheets under `/auth` too.
 */
export interface PortalPaths {
  /** `<base>/portal`: where the portal router answers. */
  root: string;
  clients: string;
  newClient: string;
  authorizedApps: string;
  stylesheet: string;
  copyScript: string;
  /** Gatehouse's own pages the portal links to (sign-in, sign-out, the shared stylesheet). */
  gatehouse: GatehousePaths;
}

/** The portal paths under `base` (the issuer's path, `''` at the root). */
export function portalPaths(base: string): PortalPaths {
  const root = `${base}/portal`;
  return {
    root,
    clients: `${root}/clients`,
    newClient: `${root}/clients/new`,
    authorizedApps: `${root}/authorized-apps`,
    stylesheet: `${root}/assets/portal.css`,
    copyScript: `${root}/assets/copy.js`,
    gatehouse: gatehousePaths(base),
  };
}

/** The portal of a Gatehouse at the root (the reference server). */
export const ROOT_PORTAL_PATHS: PortalPaths = portalPaths('');

/** The path of one client's pages (client IDs are alphanumeric; encoded anyway). */
export function clientPath(paths: PortalPaths, clientId: string, suffix = ''): string {
  return `${paths.clients}/${encodeURIComponent(clientId)}${suffix}`;
}

/** The path of one authorized app's pages (its client ID). */
export function authorizedAppPath(paths: PortalPaths, clientId: string, suffix = ''): string {
  return `${paths.authorizedApps}/${encodeURIComponent(clientId)}${suffix}`;
}
