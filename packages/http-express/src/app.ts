import type { Gatehouse } from '@gatehouse/core';
import express, { type NextFunction, type Request, type Response } from 'express';
import { requestContext, requestLogger, silentLogger, type HttpLogger } from './logger.js';
import { OAUTH_PATHS } from './oauth/metadata.js';
import { byPrefix, inSequence } from './routing.js';
import { createOAuthRouter } from './oauth/router.js';
import { createAssetsRouter } from './pages/assets.js';
import { createPortalRouter } from './portal/index.js';
import { errorPage } from './pages/error.js';
import { sendPage } from './pages/send.js';
import { problem } from './problem/problem.js';
import { sendProblem } from './problem/send.js';
import { securityHeaders } from './security/headers.js';
import type { FailureStore, RateLimitSettings } from './security/rate-limit.js';
import { createResourceRouter, RESOURCE_PREFIXES } from './resource/index.js';
import { STYLESHEET_PATH } from './pages/styles.js';

export interface GatehouseHttpOptions {
  /** The core, from `createGatehouse` (its settings give the issuer). */
  gatehouse: Gatehouse;
  /** Where request and security lines go (a pino logger fits); default: silent. */
  logger?: HttpLogger;
  /** Express `trust proxy`: which proxies' X-Forwarded-* headers to believe (default: none). */
  trustProxy?: boolean | number | string;
  /** Failed sign-ins and failed client authentications (default 5 per 300 s per key, 25 per IP). */
  rateLimit?: RateLimitSettings;
  /**
   * The secret the session-bound CSRF tokens are keyed with (HKDF-derived under a label of its
   * own, so an existing secret may be reused). Give every instance the same one; without it the
   * tokens rest on the session token's secrecy alone (docs/decisions/0025).
   */
  csrfKey?: string | Uint8Array;
  /** Where failure counts live: default in this process's memory; a shared store (apps/server: PostgreSQL) makes instances count together. */
  failureStore?: FailureStore;
  /** Routers mounted after Gatehouse's own and before the 404 handler (health checks, demo pages, the portal). */
  extraRouters?: express.Router[];
}

/** Paths whose errors are OAuth JSON (RFC 6749 §5.2) rather than a page. */
const OAUTH_JSON_PATHS: readonly string[] = [OAUTH_PATHS.token, OAUTH_PATHS.revoke, OAUTH_PATHS.introspect, OAUTH_PATHS.jwks, OAUTH_PATHS.metadata];

function wantsHtml(req: Request): boolean {
  return req.method === 'GET' || req.method === 'HEAD' ? req.accepts(['json', 'html']) === 'html' : req.is('application/x-www-form-urlencoded') === 'application/x-www-form-urlencoded';
}

function isPagePath(req: Request): boolean {
  return req.path.startsWith('/oauth/') || req.path.startsWith('/portal') || req.path === '/';
}

/**
 * The Gatehouse HTTP application: request ids and access log, security headers, the OAuth
 * endpoints and pages, the resource APIs, `extraRouters`, then 404 and a last-resort error handler
 * that never shows a stack (the detail goes to the logger only).
 *
 * @example
 * const app = createGatehouseApp({ gatehouse, logger: pino(), trustProxy: 'loopback' });
 * app.listen(3000);
 */
export function createGatehouseApp(options: GatehouseHttpOptions): express.Express {
  const logger = options.logger ?? silentLogger;
  const issuer = options.gatehouse.settings.issuer;
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
  app.use(
    byPrefix([
      [[STYLESHEET_PATH], createAssetsRouter()],
      [['/oauth', OAUTH_PATHS.metadata], createOAuthRouter(options)],
      [['/portal'], createPortalRouter(options)],
      [[...RESOURCE_PREFIXES, '/openapi.json'], createResourceRouter(options)],
    ]),
  );
  for (const router of options.extraRouters ?? []) app.use(router);

  app.use((req: Request, res: Response) => {
    if (OAUTH_JSON_PATHS.includes(req.path) || !(wantsHtml(req) || isPagePath(req))) {
      sendProblem(res, problem('not-found', 'There is nothing at this address.'));
      return;
    }
    sendPage(res, 404, errorPage({ title: 'Page not found', message: 'There is nothing at this address.' }));
  });

  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    requestLogger(logger, res).error({ err: error, method: req.method, path: req.path }, 'unhandled error');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (OAUTH_JSON_PATHS.includes(req.path)) {
      res.setHeader('Cache-Control', 'no-store');
      res.status(500).json({ error: 'server_error', error_description: 'The server could not handle the request.' });
      return;
    }
    if (wantsHtml(req) || isPagePath(req)) {
      sendPage(res, 500, errorPage({ title: 'Something went wrong', message: 'The server could not handle the request. Please try again later.' }));
      return;
    }
    sendProblem(res, problem('internal', 'The server could not handle the request.'));
  });
  return app;
}
