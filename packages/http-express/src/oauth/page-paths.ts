import type { GatehouseRouterOptions } from '../options.js';
import { pageBrand } from '../pages/branding.js';
import { gatehousePaths, issuerPath, type GatehousePaths } from './paths.js';

/** A link option of the host's: a same-origin path (`/logout`) or an absolute http(s) URL; else a `TypeError` naming the option. */
function hostLink(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const path = /^\/(?![/\\])/.test(value);
  const absolute = /^https?:\/\//i.test(value) && URL.canParse(value);
  if ((!path && !absolute) || /[\s"'<>\\]/.test(value)) throw new TypeError(`${name} must be a path (/logout) or an http(s) URL, not ${JSON.stringify(value)}.`);
  return value;
}

/**
 * The paths the router's pages link to, with what the options say of the host's pages
 * (docs/decisions/0142): "Not you?" leads to the host's switch-account page (`switchAccountUrl`,
 * with `return_to`) or sign-out page (`signOutUrl`); with `loginUrl` and neither, there is no such
 * link (Gatehouse's own sign-out would sign the user straight back in through the host). "Authorized
 * apps" is named only with `authorizedAppsUrl`. The brand is checked here, at start-up.
 *
 * @example
 * pagePathsFor({ gatehouse, loginUrl: '/login', signOutUrl: '/logout' }).notYou; // { href: '/logout', kind: 'sign-out', returnTo: false }
 */
export function pagePathsFor(
  options: Pick<GatehouseRouterOptions, 'gatehouse' | 'loginUrl' | 'signOutUrl' | 'switchAccountUrl' | 'authorizedAppsUrl' | 'branding'>,
): GatehousePaths {
  const paths = gatehousePaths(issuerPath(options.gatehouse.settings.issuer));
  const switchAccount = hostLink('switchAccountUrl', options.switchAccountUrl);
  const signOut = hostLink('signOutUrl', options.signOutUrl);
  const authorizedApps = hostLink('authorizedAppsUrl', options.authorizedAppsUrl);
  const notYou =
    switchAccount !== undefined
      ? ({ href: switchAccount, kind: 'switch-account', returnTo: true } as const)
      : signOut !== undefined
        ? ({ href: signOut, kind: 'sign-out', returnTo: false } as const)
        : options.loginUrl !== undefined
          ? null
          : undefined;
  return {
    ...paths,
    ...(notYou === undefined ? {} : { notYou }),
    ...(authorizedApps === undefined ? {} : { authorizedApps }),
    brand: pageBrand(options.branding),
  };
}
