import { Router } from 'express';
import type { GatehouseHttpOptions } from '../options.js';
import { notFoundProblem, problemErrorHandler } from '../problem/error-handler.js';
import { attributesRouter } from './attributes.js';
import { onlyUnder } from '../routing.js';
import { browserClientCors } from '../security/cors.js';
import { formBodyForBearerCheck } from './body.js';
import { identityRouter } from './identity.js';
import { messagingRouter } from './messaging.js';
import { openApiRouter } from './openapi.js';

/** The prefixes this router owns: everything under them answers in RFC 9457 problems. */
export const RESOURCE_PREFIXES = ['/identity', '/messaging', '/admin'];

/**
 * The bearer-protected APIs of the API reference, openapi.yaml (identity, messaging, attribute administration) and
 * `GET /openapi.json`. Unknown routes under its prefixes are 404 problems; every error under
 * them is a problem, whatever the app's own error handler does.
 *
 * The bearer check is the OAuth part's (`gatehouse`); what the APIs do is the product part's
 * (`product`, docs/decisions/0161): without it, only `GET /openapi.json` and the 404 problems.
 *
 * @example
 * app.use(createResourceRouter({ gatehouse, product: createProductApi({ gatehouse, repositories }) }));
 */
export function createResourceRouter(options: Pick<GatehouseHttpOptions, 'gatehouse' | 'product' | 'logger' | 'storageOutages'>): Router {
  // One router holding every route (no router per area): a request walks one list of layers.
  const router = Router();
  openApiRouter(router);
  // A single-page app or a browser-based MCP client calls the APIs with its bearer token: open to
  // any origin, never with credentials, as the token endpoint is (docs/decisions/0165).
  router.use(RESOURCE_PREFIXES, browserClientCors(['GET', 'HEAD', 'POST', 'PUT', 'DELETE']));
  router.use(onlyUnder(RESOURCE_PREFIXES, formBodyForBearerCheck));
  if (options.product) {
    identityRouter(options.gatehouse, options.product, router);
    messagingRouter(options.gatehouse, options.product, router);
    attributesRouter(options.gatehouse, options.product, router);
  }
  router.use(RESOURCE_PREFIXES, notFoundProblem);
  router.use([...RESOURCE_PREFIXES, '/openapi.json'], problemErrorHandler({ logger: options.logger, storageOutages: options.storageOutages }));
  return router;
}
