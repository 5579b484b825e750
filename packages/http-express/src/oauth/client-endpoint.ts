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
 * JSON error handler (`sendJsonFailure`).
 *
 * @example
 * router.post('/oauth/introspect', oauthFormBody, clientEndpoint(ctx, ({ client, form, gatehouse }) => gatehouse.introspectToken({ client, token: form.token, tokenTypeHint: undefined })));
 */
export function clientEndpoint(ctx: OAuthContext, call: (request: ClientRequest) => Promise<object | undefined>) {
  return async (req: Request, res: Response): Promise<void> => {
    const client = await authenticateClientOf(ctx, req, res);
    const answer = await call({ client, form: req.body as FormFields, gatehouse: gatehouseFor(ctx.gatehouse, res) });
    if (answer !== undefined) return sendNoStoreJson(res, 200, answer);
    setNoStore(res);
    res.status(200).end();
  };
}
