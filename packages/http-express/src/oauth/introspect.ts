import type { Request, Response } from 'express';
import type { FormFields } from '../security/form-body.js';
import { authenticateClientOf } from './client-auth.js';
import type { OAuthContext } from './context.js';
import { sendJsonFailure } from './json-errors.js';
import { sendNoStoreJson } from './no-store-json.js';
import { TokenParameters, parseParameters } from './params.js';

/**
 * POST /oauth/introspect (RFC 7662). Client-authenticated (§2.1); a client sees only its own
 * tokens as active, anything else is `{ "active": false }` (§2.2).
 */
export function introspectionEndpoint(ctx: OAuthContext) {
  return async (req: Request, res: Response): Promise<void> => {
    try {
      const client = await authenticateClientOf(ctx, req, res);
      if (!client) return;
      const params = parseParameters(TokenParameters, req.body as FormFields);
      const answer = await ctx.gatehouse.introspectToken({ client, token: params.token, tokenTypeHint: params.token_type_hint });
      sendNoStoreJson(res, 200, answer);
    } catch (error) {
      sendJsonFailure(res, ctx.logger, error);
    }
  };
}
