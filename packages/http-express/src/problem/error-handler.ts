import { StorageUnavailableError } from '@gatehouse/core';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { createStorageOutages, type StorageOutages } from '../storage-outages.js';
import { HttpProblem, problem } from './problem.js';
import { sendProblem } from './send.js';
import { toProblem } from './to-problem.js';

/** The part of a logger the error handler needs (pino's `Logger` fits). */
export interface ProblemLogger {
  error(details: object, message: string): void;
  info?(details: object, message: string): void;
}

/**
 * Express error middleware answering every error as an RFC 9457 problem. A 5xx is logged with
 * the error (method and path only: the query string may carry a token); the body never says why.
 * The refusals of `bearerAuth` / `requireScope` keep their status and `WWW-Authenticate` challenge.
 * An unavailable storage is a 503 with `Retry-After`, reported to `storageOutages` (by default one
 * of its own, logging to `logger`), which logs each outage once.
 *
 * @example
 * const api = express.Router();
 * api.get('/orders', bearerAuth(gatehouse), requireScope('orders.v1.read'), listOrders);
 * api.use(problemErrorHandler({ logger: pino() }));
 */
export function problemErrorHandler(options: { logger?: ProblemLogger | undefined; storageOutages?: StorageOutages | undefined } = {}): ErrorRequestHandler {
  const outages = options.storageOutages ?? createStorageOutages(options.logger === undefined ? {} : { logger: options.logger });
  return (error: unknown, req, res, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    if (error instanceof StorageUnavailableError) outages.failed(error);
    const { problem: body, headers, unexpected } = toProblem(error);
    if (unexpected) {
      const reqId = typeof res.locals.requestId === 'string' ? res.locals.requestId : undefined;
      options.logger?.error({ reqId, err: error, method: req.method, path: req.path, status: body.status }, 'request failed');
    }
    sendProblem(res, body, headers);
  };
}

/** The last handler of an API prefix: no route matched. */
export const notFoundProblem: RequestHandler = (req, _res, next) => {
  next(new HttpProblem(problem('not-found', `No resource matches ${req.method} on this path.`)));
};

/**
 * `.all()` of a route: the path exists, the method does not (RFC 9110 §15.5.6 wants `Allow`). A
 * route that answers GET answers HEAD too (Express does; RFC 9110 §9.3.2), so `Allow` names it.
 */
export function methodNotAllowed(allowed: readonly string[]): RequestHandler {
  const methods = allowed.includes('GET') && !allowed.includes('HEAD') ? [...allowed.slice(0, allowed.indexOf('GET') + 1), 'HEAD', ...allowed.slice(allowed.indexOf('GET') + 1)] : [...allowed];
  return (req, _res, next) => {
    next(new HttpProblem(problem('method-not-allowed', `${req.method} is not allowed here; use ${allowed.join(' or ')}.`), { Allow: methods.join(', ') }));
  };
}
