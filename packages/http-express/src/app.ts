import { StorageUnavailableError } from '@gatehouse/core';
import express, { type NextFunction, type Request, type Response } from 'express';
import { authorizationServerMetadataRouter, gatehouseRoutes, GATEHOUSE_ROUTER_PREFIXES } from './embed/router.js';
import { requestContext, requestLogger, silentLogger } from './logger.js';
import { sendJsonFailure } from './oauth/json-errors.js';
import { gatehousePaths, issuerPath, OAUTH_JSON_PATHS, OAUTH_PATH_PREFIX } from './oauth/paths.js';
import { homePage } from './pages/home.js';
import { portalPaths } from './portal/paths.js';
import { loadSignedIn, loginUrl } from './security/session.js';
import type { GatehouseHttpOptions } from './options.js';
import { byPrefix, inSequence } from './routing.js';
import { createPortalRouter } from './portal/index.js';
import { errorPage, sendClientErrorPage, sendUnavailablePage } from './pages/error.js';
import { clientErrorStatus, logClientError } from './client-error.js';
import { sendPage } from './pages/send.js';
import { problem } from './problem/problem.js';
import { sendProblem } from './problem/send.js';
import { toProblem } from './problem/to-problem.js';
import { createStorageOutages } from './storage-outages.js';
import { securityHeaders } from './security/headers.js';
import { createResourceRouter, RESOURCE_PREFIXES } from './resource/index.js';
import { PROTECTED_RESOURCE_METADATA_PATH, protectedResourceMetadataRouter } from './protected-resource/metadata.js';
import { findResource } from '@gatehouse/core';

function wantsHtml(req: Request): boolean {
  return req.method === 'GET' || req.method === 'HEAD' ? req.accepts(['json', 'html']) === 'html' : req.is('application/x-www-form-urlencoded') === 'application/x-www-form-urlencoded';
}

/**
 * The Gatehouse HTTP application of the reference server, built from the pieces an embedder
 * uses: request ids and access log, security headers, Gatehouse's routes (`createGatehouseRouter`'s),
 * the portal and the resource APIs, all at the issuer's path (the issuer is the APIs' resource
 * identifier; their RFC 9728 metadata is at the root: docs/decisions/0183), `extraRouters`, then 404 and a
 * last-resort error handler that never shows a stack (the detail goes to the logger only); an
 * error Express or a parser raised with a 4xx `status` is answered with that status, logged at
 * info (docs/decisions/0180).
 *
 * @example
 * const app = createGatehouseApp({ gatehouse, logger: pino(), trustProxy: 'loopback' });
 * app.listen(3000);
 */
export function createGatehouseApp(appOptions: GatehouseHttpOptions): express.Express {
  const logger = appOptions.logger ?? silentLogger;
  // One outage tracker for every router of the application, so that an outage is logged once.
  const storageOutages = appOptions.storageOutages ?? createStorageOutages({ logger });
  const options: GatehouseHttpOptions = { ...appOptions, storageOutages };
  const issuer = options.gatehouse.settings.issuer;
  const base = issuerPath(issuer);
  const jsonPaths = OAUTH_JSON_PATHS.map((path) => `${base}${path}`);
  const paths = gatehousePaths(base);
  const portal = portalPaths(base);
  const home = base === '' ? '/' : `${base}/`;
  const isPagePath = (req: Request): boolean => req.path.startsWith(`${base}${OAUTH_PATH_PREFIX}/`) || req.path.startsWith(portal.root) || req.path === '/' || req.path === home;
  /** The way back offered by the 404 and error pages: the start page, which is the portal when signed in. */
  const wayBack = { href: home, label: 'Go to the start page' };
  const app = express();
  app.disable('x-powered-by');
  // No ETag: answers with tokens or personal data are no-store, where a validator is never used,
  // and hashing every body would cost each request for the few public documents (decision 0066).
  app.set('etag', false);
  app.set('trust proxy', options.trustProxy ?? false);
  // Express 5's default, stated: repeated query parameters become arrays, which the core refuses.
  app.set('query parser', 'simple');

  app.use(inSequence(requestContext(logger), securityHeaders(issuer)));
  // Each router is entered only for the paths it serves, so a request walks its own router's
  // layers and not every router's (the routers keep their full paths; see `byPrefix`).
  // A sign-in not started by an app lands on the portal, and error pages link to the start page
  // (unless the options say otherwise).
  const ownRoutes = gatehouseRoutes({ afterSignIn: portal.clients, startPage: home, authorizedAppsUrl: portal.authorizedApps, ...options });
  const portalRouter = createPortalRouter(options);
  // The resource APIs are the default audience, the issuer, and are served under the issuer's
  // path, so that the resource identifier is a prefix of every API URL (RFC 9728 §3.3); when it is
  // a configured resource, its RFC 9728 metadata is served here, at the root with the path
  // inserted (§3.1), and their challenges point to it (docs/decisions/0111, 0183).
  const { settings } = options.gatehouse;
  const apisResource = findResource(settings.resources, settings.audience);
  const resourceRoutes = [[...RESOURCE_PREFIXES, '/openapi.json'], createResourceRouter(options)] as const;
  app.use(
    byPrefix([
      ...(base === '' ? [[GATEHOUSE_ROUTER_PREFIXES, ownRoutes] as const, [['/portal'], portalRouter] as const, resourceRoutes] : []),
      ...(apisResource === undefined ? [] : [[[PROTECTED_RESOURCE_METADATA_PATH], protectedResourceMetadataRouter(options.gatehouse, { resources: [apisResource.resource] })] as const]),
    ]),
  );
  if (base !== '') {
    // An issuer with a path: Gatehouse's routes, the portal and the resource APIs under it, and
    // RFC 8414 §3.1 metadata at the root.
    app.use(base, byPrefix([[['/portal'], portalRouter], resourceRoutes]), ownRoutes);
    app.use(authorizationServerMetadataRouter(options.gatehouse));
  }
  // The start page: the portal when signed in, else a short page with "Sign in".
  app.get(base === '' ? '/' : [base, home], loadSignedIn(options.gatehouse), (_req: Request, res: Response) => {
    if (res.locals.signedIn) {
      res.setHeader('Cache-Control', 'no-store');
      res.redirect(302, portal.clients);
      return;
    }
    sendPage(res, 200, homePage({ signInHref: loginUrl(portal.clients, paths.login), paths }));
  });
  for (const router of options.extraRouters ?? []) app.use(router);

  app.use((req: Request, res: Response) => {
    if (jsonPaths.includes(req.path) || !(wantsHtml(req) || isPagePath(req))) {
      sendProblem(res, problem('not-found', 'There is nothing at this address.'));
      return;
    }
    sendPage(res, 404, errorPage({ title: 'Page not found', message: 'There is nothing at this address.', link: wayBack, paths }));
  });

  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    // The OAuth JSON endpoints' errors have one answer (RFC 6749 §5.2), also when raised before their router.
    if (jsonPaths.includes(req.path)) {
      sendJsonFailure(res, logger, error, storageOutages);
      return;
    }
    // A page for a browser, else the error's problem (RFC 9457).
    const answer = (sendErrorPage: () => void): void => {
      if (wantsHtml(req) || isPagePath(req)) return sendErrorPage();
      const { problem: body, headers } = toProblem(error);
      sendProblem(res, body, headers);
    };
    // An outage of the storage: 503 with Retry-After, logged once per outage by the tracker (decision 0100).
    if (error instanceof StorageUnavailableError && !res.headersSent) {
      storageOutages.failed(error);
      answer(() => sendUnavailablePage(res, error, { link: wayBack, paths }));
      return;
    }
    // What Express or a parser refused as the client's mistake (a malformed %-escape in a path
    // parameter: 400): that status, as a page or a problem, logged at info (decision 0180).
    const clientError = clientErrorStatus(error);
    if (clientError !== undefined && !res.headersSent) {
      logClientError(logger, res, clientError, error);
      answer(() => sendClientErrorPage(res, clientError, { link: wayBack, paths }));
      return;
    }
    requestLogger(logger, res).error({ err: error, method: req.method, path: req.path }, 'unhandled error');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (wantsHtml(req) || isPagePath(req)) {
      sendPage(res, 500, errorPage({ title: 'Something went wrong', message: 'The server could not handle the request. Please try again later.', link: wayBack, paths }));
      return;
    }
    sendProblem(res, problem('internal', 'The server could not handle the request.'));
  });
  return app;
}
