import { Router, type NextFunction, type Request, type Response } from 'express';
import type { GatehouseRouterOptions } from '../options.js';
import { silentLogger } from '../logger.js';
import { browserClientCors } from '../security/cors.js';
import { csrfSettings, provideCsrfToken } from '../security/csrf.js';
import { repeatedParameterProblem } from '../security/form-body.js';
import { leanFormBody } from '../security/lean-form.js';
import { createAttemptLimits, DEFAULT_RATE_LIMIT } from '../security/rate-limit.js';
import { loadSignedIn, safeReturnTo } from '../security/session.js';
import { sharedWiring } from '../security/shared-storage.js';
import { authorizeByPost, authorizeEndpoint, decisionEndpoint } from './authorize.js';
import type { OAuthContext } from './context.js';
import { introspectionEndpoint } from './introspect.js';
import { OAuthJsonRefusal, sendJsonFailure } from './json-errors.js';
import { loginForm, loginSubmit } from './login.js';
import { logoutForm, logoutSubmit } from './logout.js';
import { passwordHelpUrlProblem, type PasswordHelp } from './pages/login.js';
import { jwksEndpoint, metadataEndpoint } from './metadata.js';
import { pageFormBodyFor, refuseRepeatedSecurityCookies } from './page-forms.js';
import { pagePathsFor } from './page-paths.js';
import { OAUTH_JSON_PATHS, OAUTH_PATHS, OAUTH_POST_PATHS } from './paths.js';
import { registrationRouter } from './register.js';
import { revocationEndpoint } from './revoke.js';
import { tokenEndpoint } from './token.js';
import { createStorageOutages } from '../storage-outages.js';
import { addUserInfoEndpoint } from './userinfo.js';

/** RFC 6749 §5.2: a body the token, revocation or introspection endpoint cannot accept is invalid_request. */
const oauthFormBody = leanFormBody({
  onError: (_req, _res, failure, next) => next(new OAuthJsonRefusal('invalid_request', failure.description, failure.status === 413 ? 413 : 400)),
});

/**
 * The token endpoint's form: the same, but several `resource` parameters (which RFC 8707 §2.2
 * allows a client to send) are `invalid_target`: Gatehouse issues a token for one resource at a
 * time (docs/decisions/0110-resource-indicators.md).
 */
const tokenFormBody = leanFormBody({
  onError: (_req, _res, failure, next) =>
    next(
      failure.description === repeatedParameterProblem('resource')
        ? new OAuthJsonRefusal('invalid_target', 'Send one resource parameter: an access token is for one resource.', 400)
        : new OAuthJsonRefusal('invalid_request', failure.description, failure.status === 413 ? 413 : 400),
    ),
});

function onlyPost(req: Request, _res: Response, next: NextFunction): void {
  next(new OAuthJsonRefusal('invalid_request', `${req.method} is not allowed here; use POST.`, 405, { Allow: 'POST' }));
}

/** `options.passwordHelp`, its link checked once, when the router is made (docs/decisions/0156). */
function checkedPasswordHelp(help: PasswordHelp | undefined): PasswordHelp | undefined {
  const problem = help?.url === undefined ? undefined : passwordHelpUrlProblem(help.url);
  if (problem !== undefined) throw new TypeError(`passwordHelp.url ${problem}.`);
  return help;
}

/**
 * The OAuth endpoints: authorize with its login and consent pages, token, revocation,
 * introspection, logout, RFC 8414 metadata and the JWKS (and, for an OpenID Provider, UserInfo
 * and the OpenID Connect Discovery document), at paths relative to where the router
 * is mounted (the issuer's path); links, forms and redirects of its pages use that path
 * (docs/decisions/0090). Installs no 404 and no error page: unknown paths go on to the next layer.
 * `createGatehouseRouter` adds the stylesheet, security headers and an error page for its paths.
 */
export function createOAuthRouter(options: GatehouseRouterOptions): Router {
  const { gatehouse } = options;
  // As written: the metadata's issuer is the `iss` of every token and response (defineSettings refuses a trailing slash; docs/decisions/0183).
  const issuer = gatehouse.settings.issuer;
  const logger = options.logger ?? silentLogger;
  // The storage's shared failure counts by default; a shared storage without shared secrets does not start (decision 0145).
  const { failureStore } = sharedWiring(options);
  const ctx: OAuthContext = {
    gatehouse,
    logger,
    storageOutages: options.storageOutages ?? createStorageOutages({ logger }),
    limits: createAttemptLimits(gatehouse.clock, options.rateLimit ?? DEFAULT_RATE_LIMIT, failureStore),
    issuer,
    paths: pagePathsFor(options),
    loginUrl: options.loginUrl,
    consentUrl: options.consentUrl,
    startPage: options.startPage === undefined ? undefined : safeReturnTo(options.startPage),
    afterSignIn: options.afterSignIn === undefined ? undefined : safeReturnTo(options.afterSignIn),
    csrf: csrfSettings(issuer, options.csrfKey),
    passwordHelp: checkedPasswordHelp(options.passwordHelp),
  };
  const pageFormBody = pageFormBodyFor(ctx.paths);
  const router = Router();
  const page = [refuseRepeatedSecurityCookies(issuer, ctx.paths), loadSignedIn(gatehouse), provideCsrfToken(ctx.csrf)];

  // What a client running in a browser calls itself is open to any origin, without credentials (docs/decisions/0165).
  router.use([OAUTH_PATHS.metadata, OAUTH_PATHS.openidConfiguration, OAUTH_PATHS.jwks], browserClientCors(['GET', 'HEAD']));
  router.use([OAUTH_PATHS.token, OAUTH_PATHS.revoke], browserClientCors(['POST']));
  router.use(OAUTH_PATHS.userinfo, browserClientCors(['GET', 'POST']));
  router.use(OAUTH_PATHS.register, browserClientCors(['GET', 'POST', 'PUT', 'DELETE']));
  router.get(OAUTH_PATHS.metadata, metadataEndpoint(ctx));
  router.get(OAUTH_PATHS.jwks, jwksEndpoint(ctx));
  if (gatehouse.settings.openid) {
    // OpenID Connect Discovery 1.0 §4 (the issuer's path, then the well-known path) and UserInfo (OIDC Core §5.3).
    router.get(OAUTH_PATHS.openidConfiguration, metadataEndpoint(ctx));
    addUserInfoEndpoint(router, ctx);
  }

  // RFC 7591 / RFC 7592, under the host's policy (docs/decisions/0115-dynamic-client-registration.md); it answers its own errors.
  if (gatehouse.settings.registration.policy !== 'off') router.use(OAUTH_PATHS.register, registrationRouter(ctx, options.registrationLimits, { failureStore, ipv6PrefixLength: options.rateLimit?.ipv6PrefixLength }));
  router.post(OAUTH_PATHS.token, tokenFormBody, tokenEndpoint(ctx));
  router.post(OAUTH_PATHS.revoke, oauthFormBody, revocationEndpoint(ctx));
  router.post(OAUTH_PATHS.introspect, oauthFormBody, introspectionEndpoint(ctx));
  router.all([...OAUTH_POST_PATHS], onlyPost);
  // The one place the OAuth JSON endpoints' errors are answered (RFC 6749 §5.2).
  router.use([...OAUTH_JSON_PATHS], (error: unknown, _req: Request, res: Response, _next: NextFunction) => sendJsonFailure(res, ctx.logger, error, ctx.storageOutages));

  router.get(OAUTH_PATHS.authorize, ...page, authorizeEndpoint(ctx));
  // OIDC Core §3.1.2.1: GET and POST (docs/decisions/0199-authorization-requests-by-post.md).
  router.post(OAUTH_PATHS.authorize, pageFormBody, ...page, authorizeByPost(ctx));
  router.post(OAUTH_PATHS.decision, pageFormBody, ...page, decisionEndpoint(ctx));
  router.get(OAUTH_PATHS.login, ...page, loginForm(ctx));
  router.post(OAUTH_PATHS.login, pageFormBody, ...page, loginSubmit(ctx));
  router.get(OAUTH_PATHS.logout, ...page, logoutForm(ctx));
  router.post(OAUTH_PATHS.logout, pageFormBody, ...page, logoutSubmit(ctx));

  return router;
}
