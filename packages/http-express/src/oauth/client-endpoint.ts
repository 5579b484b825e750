import type { Client, RequestScopedGatehouse } from '@gatehouse/core';
import type { Request, Response } from 'express';
import { gatehouseFor } from '../request-scope.js';
import type { FormFields } from '../security/form-body.js';
import { authenticateClientOf } from './client-auth.js';
import type { OAuthContext } from './context.js';
import { sendNoStoreJson, setNoStore } from './no-store.js';

/** What a client-authenticated endpoint works with: the client, the form and the core for this request. */
export interface ClientRequest {
  client: Client;
  form: FormFields;
  gatehouse: RequestScopedGatehouse;
}

/**
 * The one shape of the token, revocation and introspection endpoints: authenticate the client
 * first of all (docs/security.md "Rate limits"), call, then answer 200 `no-store` (RFC 6749 §5.1)
 * with the JSON `call` returns, or an empty body when it returns undefined (RFC 7009 §2.2).
 * Nothing is caught here: every failure, a refused client included, goes to the router's OAuth
 * JSON error handler (`sendJsonFailure`). `readAhead` starts a read that does not depend on the
 * client (the token endpoint's code) before the client is authenticated; `call` gets it as `ahead`.
 *
 * @example
 * router.post('/oauth/introspect', oauthFormBody, clientEndpoint(ctx, ({ client, form, gatehouse }) => gatehouse.introspectToken({ client, token: form.token, tokenTypeHint: undefined })));
 */
export function clientEndpoint<Ahead = undefined>(
  ctx: OAuthContext,
  call: (request: ClientRequest & { ahead: Ahead | undefined }) => Promise<object | undefined>,
  readAhead?: (request: Omit<ClientRequest, 'client'>) => Ahead,
) {
  return async (req: Request, res: Response): Promise<void> => {
    const form = req.body as FormFields;
    const gatehouse = gatehouseFor(ctx.gatehouse, res);
    // Started before the client's authentication, so that its read overlaps the rate limiter's
    // (docs/decisions/0172-code-exchange-in-two-round-trips.md); only a read.
    const ahead = readAhead?.({ form, gatehouse });
    const client = await authenticateClientOf(ctx, req, res);
    const answer = await call({ client, form, gatehouse, ahead });
    if (answer !== undefined) return sendNoStoreJson(res, 200, answer);
    setNoStore(res);
    res.status(200).end();
  };
}
