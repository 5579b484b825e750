import type { Gatehouse, RequestScopedGatehouse } from '@gatehouse/core';
import type { Response } from 'express';
import { requestIdOf } from './logger.js';

/**
 * The core's use cases for this request (made once per request): the audit events they record
 * carry its request id, as its access-log line does.
 *
 * @example
 * await gatehouseFor(ctx.gatehouse, res).exchangeCode({ client, code, redirectUri, codeVerifier });
 */
export function gatehouseFor(gatehouse: Pick<Gatehouse, 'forRequest'>, res: Response): RequestScopedGatehouse {
  const locals = res.locals as { gatehouse?: RequestScopedGatehouse };
  locals.gatehouse ??= gatehouse.forRequest(requestIdOf(res));
  return locals.gatehouse;
}
