import type { Gatehouse, ProductApi } from '@gatehouse/core';
import type { Router } from 'express';
import type { HttpLogger } from './logger.js';
import type { PageBranding } from './pages/branding.js';
import type { PasswordHelp } from './oauth/pages/login.js';
import type { RegistrationLimits } from './oauth/register.js';
import type { FailureStore, RateLimitSettings } from './security/rate-limit.js';
import type { RouterStorage } from './security/shared-storage.js';
import type { StorageOutages } from './storage-outages.js';

/** What Gatehouse's router needs (`createGatehouseRouter`, and `createGatehouseApp` on top of it). */
export interface GatehouseRouterOptions {
  /** The core, from `createGatehouse` (its settings give the issuer, whose path is the mount path). */
  gatehouse: Gatehouse;
  /** Where request and security lines go (a pino logger fits); default: silent. */
  logger?: HttpLogger;
  /**
   * Where the storage's outages are tracked (`createStorageOutages`): a request that fails because
   * the storage is unavailable is answered 503 with `Retry-After`, and each outage is logged once.
   * Give the same one to `watchStorage` (which sees the recovery) and to a readiness probe.
   * Default: one of the router's own, logging to `logger`.
   */
  storageOutages?: StorageOutages;
  /** Failed sign-ins and failed client authentications (default 5 per 300 s per key, 25 per IP). */
  rateLimit?: RateLimitSettings;
  /**
   * The storage the core's repositories come from (`openPostgresStorage`, `openSqliteStorage`):
   * failures are counted in its shared `failedAttempts` (PostgreSQL) when no `failureStore` is
   * given, and when several instances share it (`sharedByInstances`, PostgreSQL's default) the
   * router refuses to start without a `csrfKey` or a shared failure store
   * (docs/decisions/0145-embedders-production-wiring.md).
   */
  storage?: RouterStorage;
  /**
   * The secret the session-bound CSRF tokens are keyed with (HKDF-derived under a label of its
   * own, so an existing secret may be reused). Give every instance the same one (required when the
   * `storage` is shared by instances); without it the tokens rest on the session token's secrecy
   * alone (docs/decisions/0025).
   */
  csrfKey?: string | Uint8Array;
  /**
   * Where failure counts live: default the `storage`'s shared ones when it has them (PostgreSQL),
   * else this process's memory; a store given here wins.
   */
  failureStore?: FailureStore;
  /**
   * The limits of the registration endpoint when `settings.registration.policy` is not `off`
   * (docs/decisions/0115-dynamic-client-registration.md): registrations per IP address in a
   * window (default 20 per hour, counted in `failureStore`) and the largest body (default 16 KiB).
   */
  registrationLimits?: RegistrationLimits;
  /**
   * The host's own login page (docs/decisions/0091): a browser that must sign in is sent there
   * with `login_request=<id>` instead of to Gatehouse's login page; the host signs the user in its
   * own way and calls `completeGatehouseLogin`. A path (`/login`) or an absolute URL.
   */
  loginUrl?: string;
  /**
   * The host's own consent page: instead of Gatehouse's, the browser is sent there with
   * `consent_request=<id>`; the host shows `gatehouse.describeConsentRequest(id)` and calls
   * `completeGatehouseConsent`.
   */
  consentUrl?: string;
  /**
   * The host's sign-out page (a path or an http(s) URL): the consent page's "Not you? Sign out"
   * leads there. With `loginUrl` and neither this nor `switchAccountUrl`, the consent page shows
   * no such link (docs/decisions/0142). The host's sign-out should call `logoutGatehouseUser`.
   */
  signOutUrl?: string;
  /**
   * The host's page that signs the user out and in as someone else (a path or an http(s) URL):
   * the consent page's "Not you? Use another account" leads there with `return_to=<the
   * authorization request>` (a same-origin path: check it before sending the browser there,
   * after `logoutGatehouseUser`). Takes the place of `signOutUrl`'s link.
   */
  switchAccountUrl?: string;
  /**
   * The "Authorized apps" page, when one is mounted (the portal's: `<issuer path>/portal/authorized-apps`,
   * or the host's own): the consent page says the access can be withdrawn there. Without it the
   * page does not name one. `createGatehouseApp` sets it to the portal's.
   */
  authorizedAppsUrl?: string;
  /**
   * The host's product name, logo (a same-origin path) and accent colour (a CSS colour, checked
   * at start-up) on Gatehouse's pages, in place of Gatehouse's (docs/decisions/0142).
   */
  branding?: PageBranding;
  /**
   * Where a sign-in that was not started by an authorization request lands (a same-origin path
   * under the issuer's path, e.g. the portal: `/auth/portal/clients`), and where the login page
   * sends a browser already signed in. Default: the login page's "You are signed in".
   * `createGatehouseApp` sets it to the portal.
   */
  afterSignIn?: string;
  /**
   * A page to offer as the way back on Gatehouse's error pages (an invalid authorization link), a
   * same-origin path: the reference app's start page. Default: none (the host's pages are its own).
   */
  startPage?: string;
  /**
   * What the sign-in page's "Forgot your password?" says: `text` (default: ask the person who runs
   * this service) and a `url` after it (`https`, `http`, `mailto` or a same-origin path; another
   * kind is refused when the router is made). Gatehouse has no reset by e-mail: the operator sets a
   * new password (docs/decisions/0156-a-way-back-from-the-sign-in-page.md).
   */
  passwordHelp?: PasswordHelp;
}

/** What `createGatehouseApp` needs: the router's options, plus what only a whole application has. */
export interface GatehouseHttpOptions extends GatehouseRouterOptions {
  /**
   * The product APIs (`createProductApi`; docs/decisions/0161): the identity, messaging and
   * attribute administration resource APIs serve them. Without it those APIs are not mounted
   * (their paths answer 404 problems); the OAuth endpoints, the pages and the portal need none.
   */
  product?: ProductApi;
  /** Express `trust proxy`: which proxies' X-Forwarded-* headers to believe (default: none). */
  trustProxy?: boolean | number | string;
  /** Routers mounted after Gatehouse's own and before the 404 handler (health checks, demo pages, the portal). */
  extraRouters?: Router[];
}
