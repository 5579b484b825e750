import { StorageUnavailableError } from '@gatehouse/core';
import { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { requestContext, requestLogger, silentLogger } from '../logger.js';
import { authorizationServerMetadata } from '../oauth/metadata.js';
import { pagePathsFor } from '../oauth/page-paths.js';
import { OAUTH_JSON_PATHS, OAUTH_PATH_PREFIX, OAUTH_PATHS, wellKnownMetadataPath, wellKnownOpenIdConfigurationPath } from '../oauth/paths.js';
import { createOAuthRouter } from '../oauth/router.js';
import { browserClientCors } from '../security/cors.js';
import { sendJsonFailure } from '../oauth/json-errors.js';
import type { GatehouseRouterOptions } from '../options.js';
import { createAssetsRouter } from '../pages/assets.js';
import { pageBrand } from '../pages/branding.js';
import { errorPage, sendClientErrorPage, sendUnavailablePage } from '../pages/error.js';
import { clientErrorStatus, logClientError } from '../client-error.js';
import { sendPage } from '../pages/send.js';
import { ASSET_PATHS } from '../pages/styles.js';
import { byPrefix, inSequence, onlyUnder } from '../routing.js';
import { securityHeaders } from '../security/headers.js';
import { createStorageOutages } from '../storage-outages.js';
import type { Gatehouse } from '@gatehouse/core';

/** The paths Gatehouse's router answers, relative to where it is mounted. */
export const GATEHOUSE_ROUTER_PREFIXES: readonly string[] = [OAUTH_PATH_PREFIX, OAUTH_PATHS.metadata, OAUTH_PATHS.openidConfiguration, ...ASSET_PATHS];

/**
 * The routes of Gatehouse's router without the request context, headers and error page (which
 * `createGatehouseApp` sets for the whole application): the OAuth router and the stylesheet.
 */
export function gatehouseRoutes(options: GatehouseRouterOptions): RequestHandler {
  return byPrefix([
    [ASSET_PATHS, createAssetsRouter(pageBrand(options.branding).accentColor)],
    [[OAUTH_PATH_PREFIX, OAUTH_PATHS.metadata, OAUTH_PATHS.openidConfiguration], createOAuthRouter(options)],
  ]);
}

/**
 * Gatehouse for an existing Express application (docs/architecture.md, "Embedding"): every OAuth
 * endpoint, page, form action, redirect and the stylesheet, under the path it is mounted at,
 * which must be the issuer's path (`https://host.example/auth` → `app.use('/auth', router)`;
 * at the root for an issuer without a path). It answers only its own paths (`/oauth/…`,
 * `/.well-known/oauth-authorization-server`, `/assets/gatehouse.css`, under the mount path),
 * with their security headers, a request id when the host gave none, and a last-resort error
 * page for their failures; every other request, and every other error, goes on to the host's
 * next layer: no catch-all 404. Product APIs and the portal are separate, opt-in routers
 * (`createResourceRouter`, `createPortalRouter`); RFC 8414 §3.1 metadata of an issuer with a
 * path is `authorizationServerMetadataRouter`, mounted at the host's root.
 * Works with or without the host's own body parsers in front.
 *
 * @example
 * const gatehouse = createGatehouse({ repositories, clock, settings: defineSettings({ issuer: 'https://orders.example/auth' }) });
 * app.use(express.urlencoded({ extended: false }));
 * app.use(authorizationServerMetadataRouter(gatehouse));
 * app.use('/auth', createGatehouseRouter({ gatehouse, logger }));
 * app.get('/orders', bearerAuth(gatehouse), requireScope('orders.read'), listOrders);
 */
export function createGatehouseRouter(routerOptions: GatehouseRouterOptions): Router {
  const logger = routerOptions.logger ?? silentLogger;
  // One outage tracker for the OAuth routes and this error page, so that an outage is logged once.
  const storageOutages = routerOptions.storageOutages ?? createStorageOutages({ logger });
  const options: GatehouseRouterOptions = { ...routerOptions, storageOutages };
  const issuer = options.gatehouse.settings.issuer;
  const context = requestContext(logger);
  const headers = securityHeaders(issuer);
  const paths = pagePathsFor(options);
  const router = Router();
  router.use(
    onlyUnder(
      GATEHOUSE_ROUTER_PREFIXES,
      inSequence((req, res, next) => (res.locals.requestId === undefined ? context(req, res, next) : next()), headers),
    ),
  );
  router.use(gatehouseRoutes(options));
  router.use((error: unknown, req: Request, res: Response, next: NextFunction) => {
    if (!onOwnPath(req.path)) return next(error);
    // The OAuth JSON endpoints' errors have one answer (RFC 6749 §5.2), also when raised before their router.
    if (OAUTH_JSON_PATHS.includes(req.path)) return sendJsonFailure(res, logger, error, storageOutages);
    // An outage of the storage: 503 with Retry-After, logged once per outage (decision 0100).
    if (error instanceof StorageUnavailableError && !res.headersSent) {
      storageOutages.failed(error);
      sendUnavailablePage(res, error, { paths });
      return;
    }
    // What Express or a parser refused as the client's mistake: that status, as a page (decision 0180).
    const clientError = clientErrorStatus(error);
    if (clientError !== undefined && !res.headersSent) {
      logClientError(logger, res, clientError, error);
      sendClientErrorPage(res, clientError, { paths });
      return;
    }
    requestLogger(logger, res).error({ err: error, method: req.method, path: `${req.baseUrl}${req.path}` }, 'unhandled error');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    sendPage(res, 500, errorPage({ title: 'Something went wrong', message: 'The server could not handle the request. Please try again later.', paths }));
  });
  return router;
}

const OWN_PATH = new RegExp(`^(?:${GATEHOUSE_ROUTER_PREFIXES.map((prefix) => prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})(?:/|$)`, 'i');

function onOwnPath(path: string): boolean {
  return OWN_PATH.test(path);
}

/**
 * RFC 8414 §3.1: for an issuer with a path, the metadata is at the host's root under
 * `/.well-known/oauth-authorization-server<issuer path>` (`https://host.example/auth` →
 * `/.well-known/oauth-authorization-server/auth`). This router serves exactly that path (GET and
 * HEAD), for an OpenID Provider `/.well-known/openid-configuration<issuer path>` too (the
 * Discovery document, whose own location, `<issuer>/.well-known/openid-configuration`, is
 * `createGatehouseRouter`'s), and lets everything else through; mount it at the host's root.
 * Every endpoint URL in the document is under the issuer's path.
 *
 * @example
 * app.use(authorizationServerMetadataRouter(gatehouse));
 */
export function authorizationServerMetadataRouter(gatehouse: Pick<Gatehouse, 'settings'>): Router {
  // As written: the metadata's issuer is the `iss` of every token and response (RFC 8414 §3.3; docs/decisions/0183).
  const issuer = gatehouse.settings.issuer;
  const body = authorizationServerMetadata(issuer, gatehouse.settings.scopes, gatehouse.settings);
  const headers = securityHeaders(issuer);
  const router = Router();
  const answer = (_req: Request, res: Response) => {
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.status(200).json(body);
  };
  // Open to browser-based clients, as at the issuer's path (docs/decisions/0165).
  const cors = browserClientCors(['GET', 'HEAD']);
  router.use(wellKnownMetadataPath(issuer), cors);
  router.get(wellKnownMetadataPath(issuer), headers, answer);
  // An OpenID Provider's Discovery document with the path inserted too (docs/decisions/0133).
  if (gatehouse.settings.openid) {
    router.use(wellKnownOpenIdConfigurationPath(issuer), cors);
    router.get(wellKnownOpenIdConfigurationPath(issuer), headers, answer);
  }
  return router;
}
