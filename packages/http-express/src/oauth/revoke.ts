import type { Request, Response } from 'express';
import type { FormFields } from '../security/form-body.js';
import { authenticateClientOf } from './client-auth.js';
import type { OAuthContext } from './context.js';
import { sendJsonFailure } from './json-errors.js';
import { setNoStore } from './no-store.js';
import { TokenParameters, parseParameters } from './params.js';
import { gatehouseFor } from '../request-scope.js';

/**
 * POST /oauth/revoke (RFC 7009). Revoking either token of a grant revokes the grant. RFC 7009 §2.2:
 * 200 with an empty body, also for an unknown token or another client's (nothing is revealed).
 */
export function revocationEndpoint(ctx: OAuthContext) {
  return async (req: Request, res: Response): Promise<void> => {
    try {
      const client = await authenticateClientOf(ctx, req, res);
      if (!client) return;
      const params = parseParameters(TokenParameters, req.body as FormFields);
      await gatehouseFor(ctx.gatehouse, res).revokeToken({ client, token: params.token, tokenTypeHint: params.token_type_hint });
      setNoStore(res);
      res.status(200).end();
    } catch (error) {
      sendJsonFailure(res, ctx.logger, error);
    }
  };
}
