import type { Request, Response, Router } from 'express';
import { accessTokenOf, bearerAuth, formBodyForBearerAuth, requireScope } from '../bearer/bearer.js';
import { bearerErrorHandler } from '../bearer/error-handler.js';
import { gatehouseFor } from '../request-scope.js';
import type { OAuthContext } from './context.js';
import { sendNoStoreJson } from './no-store.js';
import { OAUTH_PATHS } from './paths.js';

/**
 * GET and POST /oauth/userinfo (OIDC Core §5.3; docs/decisions/0132-userinfo.md): the claims about
 * the user of a bearer access token, as JSON, never cached. The token comes in the
 * `Authorization: Bearer` header only (RFC 6750 §2.1; one in the query or a form body is 400
 * `invalid_request`, with one in the header too: §3.1), must be for the default audience (the
 * issuer unless `settings.audience` says otherwise: a token for another resource is
 * `invalid_token`) and carry `openid` (else 403
 * `insufficient_scope`, `scope="openid"`). Refusals are RFC 6750 §3 challenges with an RFC 9457
 * problem body. Added only for an OpenID Provider (`settings.openid`).
 */
export function addUserInfoEndpoint(router: Router, ctx: OAuthContext): void {
  router
    .route(OAUTH_PATHS.userinfo)
    .get(bearerAuth(ctx.gatehouse), requireScope('openid'), userInfo(ctx))
    // The form body is read (bounded) only to refuse a token in it (RFC 6750 §2.2, §3.1; decision 0132).
    .post(formBodyForBearerAuth(ctx.gatehouse), bearerAuth(ctx.gatehouse), requireScope('openid'), userInfo(ctx));
  // RFC 6750 §3: the bearer refusals (and the core's insufficient_scope / invalid_token) as challenges.
  router.use(OAUTH_PATHS.userinfo, bearerErrorHandler());
}

function userInfo(ctx: OAuthContext) {
  return async (_req: Request, res: Response): Promise<void> => {
    const claims = await gatehouseFor(ctx.gatehouse, res).userInfo(accessTokenOf(res));
    sendNoStoreJson(res, 200, claims);
  };
}
