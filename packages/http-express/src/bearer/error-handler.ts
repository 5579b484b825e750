import { OAuthError, StorageUnavailableError } from '@gatehouse/core';
import type { ErrorRequestHandler } from 'express';
import type { StorageOutages } from '../storage-outages.js';
import { HttpProblem } from '../problem/problem.js';
import { UserlessTokenProblem } from './bearer.js';
import { sendProblem } from '../problem/send.js';
import { toProblem } from '../problem/to-problem.js';

/** A refusal of `bearerAuth` / `requireScope` / `userKeyOf`, or a bearer error of the core's `verifyAccessToken`. */
function isBearerFailure(error: unknown): boolean {
  if (error instanceof UserlessTokenProblem) return true;
  if (error instanceof HttpProblem) return error.headers['WWW-Authenticate']?.startsWith('Bearer ') ?? false;
  return error instanceof OAuthError && (error.code === 'invalid_token' || error.code === 'insufficient_scope');
}

/**
 * Express error middleware for a host's own bearer-protected routes: answers the refusals of
 * `bearerAuth`, `requireScope` and `userKeyOf` (and an `invalid_token` / `insufficient_scope` `OAuthError` of
 * `gatehouse.verifyAccessToken`) as RFC 6750 §3 demands — 400, 401 or 403 with
 * `WWW-Authenticate: Bearer realm="…", error="…"` — and an RFC 9457 problem JSON body. A token that
 * could not be checked because Gatehouse's storage is unavailable is a 503 problem with
 * `Retry-After` (reported to `storageOutages`, when given). Every other error goes on, untouched,
 * to the host's next error handler. (`problemErrorHandler()` answers every error as a problem instead.)
 *
 * @example
 * app.get('/orders', bearerAuth(gatehouse, { realm: 'orders' }), requireScope('orders.v1.read'), listOrders);
 * app.use(bearerErrorHandler());
 * app.use(myOwnErrorHandler); // gets everything else
 */
export function bearerErrorHandler(options: { storageOutages?: StorageOutages } = {}): ErrorRequestHandler {
  return (error: unknown, _req, res, next) => {
    if (error instanceof StorageUnavailableError && !res.headersSent) options.storageOutages?.failed(error);
    if (res.headersSent || !(isBearerFailure(error) || error instanceof StorageUnavailableError)) {
      next(error);
      return;
    }
    const { problem, headers } = toProblem(error);
    sendProblem(res, problem, headers);
  };
}
