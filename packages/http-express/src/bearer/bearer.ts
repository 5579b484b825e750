import type { Gatehouse, VerifiedAccessToken } from '@gatehouse/core';
import { canonicalResourceUri, findResource, OAuthError } from '@gatehouse/core';
import type { Request, RequestHandler, Response } from 'express';
import { HttpProblem, problem, type Problem } from '../problem/problem.js';
import { protectedResourceMetadataUrl } from '../protected-resource/metadata.js';
import { leanFormBody } from '../security/lean-form.js';
import { BEARER_REALM, bearerChallenge, checkedRealm, type BearerErrorCode } from './challenge.js';
import { authorizationSentTwice } from '../security/authorization-header.js';

/** RFC 6750 §2.1: `Bearer` (any case), one or more spaces, then a token68. */
const BEARER_HEADER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
const SCHEME = /^([^\s]+)/;

/** Where the bearer middleware leaves the verified token (and its realm) for the routes. */
export interface BearerLocals {
  accessToken: VerifiedAccessToken;
  /** The realm `bearerAuth` challenged with; `requireScope` uses it too. */
  bearerRealm: string;
  /** The URL of the resource's RFC 9728 metadata `bearerAuth` challenged with, if any; `requireScope` uses it too. */
  bearerResourceMetadata?: string;
}

export interface BearerAuthOptions {
  /** The `realm` of the `WWW-Authenticate: Bearer` challenges (RFC 6750 §3). Default `"gatehouse"`. */
  realm?: string;
  /**
   * The resource these routes are (a configured resource's URI, `settings.resources`; RFC 8707):
   * only tokens whose `aud` is it are accepted, and every challenge carries
   * `resource_metadata="<its RFC 9728 metadata URL>"` (§5.1). Without it, only tokens for the
   * default audience (`settings.audience`) are accepted: a token for another resource never works
   * here (docs/decisions/0111-protected-resource-metadata.md).
   */
  resource?: string;
}

export interface RequireScopeOptions {
  /** The challenge's realm; default: the one of the `bearerAuth` that ran before, else `"gatehouse"`. */
  realm?: string;
}

/**
 * A refusal of the bearer middleware: an RFC 9457 problem with its status and its RFC 6750 §3
 * challenge. The challenge is also set on the response at once, so it survives an error handler
 * that only reads `status` (Express's default one keeps it either way, from `headers`).
 */
function refusal(res: Response, body: Problem, challenge: { error?: BearerErrorCode; scope?: string; realm: string; resourceMetadata?: string | undefined }): HttpProblem {
  const headers = { 'WWW-Authenticate': bearerChallenge(challenge) };
  res.setHeader('WWW-Authenticate', headers['WWW-Authenticate']);
  return new HttpProblem(body, headers);
}

/**
 * Authenticates the request by its `Authorization: Bearer` header (RFC 6750 §2.1), the only
 * method accepted: a token in the query (§2.3) or in a form body (§2.2) is refused with 400
 * `invalid_request`, also beside one in the header (§3.1: "more than one method"). It reads no
 * body itself: a form body is seen when a parser in front of it read one (the host's
 * `express.urlencoded()`; Gatehouse's own routes read theirs).
 * The JWT is verified with the in-process keys, and a revoked grant's tokens are refused at once.
 * The verified token is left for `accessTokenOf(res)`. Its audience must be `options.resource`, or
 * without one the default audience (RFC 8707; a token for another resource is `invalid_token`).
 * When the routes are a configured resource (`resource`, or a default audience that is one), every
 * challenge carries `resource_metadata` (RFC 9728 §5.1), which `protectedResourceMetadataRouter` serves.
 *
 * A refusal is thrown as an `HttpProblem` (401, 400; `requireScope`: 403) carrying `status`,
 * `statusCode`, `expose` and `headers`, with `WWW-Authenticate` already set on the response:
 * `bearerErrorHandler()` or `problemErrorHandler()` answer it as problem JSON, and even Express's
 * default handler answers with its status and challenge, never 500.
 *
 * @example
 * import express from 'express';
 * import { bearerAuth, bearerErrorHandler, requireScope, userKeyOf } from '@gatehouse/http-express';
 *
 * const app = express();
 * app.get('/orders', bearerAuth(gatehouse, { realm: 'orders' }), requireScope('orders.v1.read'), (_req, res) => {
 *   res.json(ordersOf(userKeyOf(res)));
 * });
 * app.use(bearerErrorHandler());
 *
 * @example
 * // An MCP server that is a configured resource (RFC 8707, RFC 9728):
 * app.use(protectedResourceMetadataRouter(gatehouse, { resources: ['https://mcp.example.com/mcp'] }));
 * app.post('/mcp', bearerAuth(gatehouse, { resource: 'https://mcp.example.com/mcp' }), requireScope('orders.v1.read'), mcpHandler);
 */
export function bearerAuth(gatehouse: Pick<Gatehouse, 'verifyAccessToken'> & Partial<Pick<Gatehouse, 'settings'>>, options: BearerAuthOptions = {}): RequestHandler {
  const { resource, challenge } = bearerSetup(gatehouse, options);
  const expected = resource === undefined ? undefined : { resource };
  const { realm, resourceMetadata } = challenge;
  return async (req, res, next) => {
    const locals = res.locals as Partial<BearerLocals>;
    locals.bearerRealm = realm;
    if (resourceMetadata !== undefined) locals.bearerResourceMetadata = resourceMetadata;
    refuseTokenOutsideHeader(req, res, challenge);
    if (authorizationSentTwice(req)) {
      // RFC 6750 §3.1: a malformed request is invalid_request (400).
      throw refusal(res, problem('invalid-request', 'The Authorization header must be sent once.'), { ...challenge, error: 'invalid_request' });
    }
    const header = req.headers.authorization;
    const scheme = header === undefined ? undefined : SCHEME.exec(header.trim())?.[1];
    if (scheme === undefined || scheme.toLowerCase() !== 'bearer') {
      // RFC 6750 §3.1: a request without bearer credentials gets the challenge and no error code.
      throw refusal(res, problem('unauthenticated', 'This API needs an access token in the header Authorization: Bearer <token>.'), challenge);
    }
    const token = BEARER_HEADER.exec(header as string)?.[1];
    if (token === undefined) {
      // RFC 6750 §3.1: a malformed request is invalid_request (400).
      throw refusal(res, problem('invalid-request', 'The Authorization header must be "Bearer" followed by one token.'), { ...challenge, error: 'invalid_request' });
    }
    try {
      locals.accessToken = await (expected === undefined ? gatehouse.verifyAccessToken(token) : gatehouse.verifyAccessToken(token, expected));
    } catch (error) {
      if (error instanceof OAuthError && error.code === 'invalid_token') {
        throw refusal(res, problem('invalid-token', error.description), { ...challenge, error: 'invalid_token' });
      }
      throw error;
    }
    next();
  };
}

/** What `bearerAuth(gatehouse, options)` expects (its resource, canonical) and challenges with (realm, RFC 9728 metadata URL). */
function bearerSetup(gatehouse: Partial<Pick<Gatehouse, 'settings'>>, options: BearerAuthOptions): { resource: string | undefined; challenge: { realm: string; resourceMetadata?: string } } {
  const realm = checkedRealm(options.realm ?? BEARER_REALM);
  const resource = options.resource === undefined ? undefined : checkedResource(gatehouse.settings, options.resource);
  // The routes' resource, or the default audience when it is a configured resource (RFC 9728 §5.1).
  const described = resource ?? (gatehouse.settings && findResource(gatehouse.settings.resources, gatehouse.settings.audience)?.resource);
  const resourceMetadata = described === undefined ? undefined : protectedResourceMetadataUrl(described);
  return { resource, challenge: { realm, ...(resourceMetadata === undefined ? {} : { resourceMetadata }) } };
}

const FORM_TYPE = 'application/x-www-form-urlencoded';

/**
 * For a bearer-protected route that does not read its body itself (UserInfo's POST), put before
 * `bearerAuth(gatehouse, options)` with the same options: reads an `application/x-www-form-urlencoded`
 * body, with the token endpoint's reader and bound (UTF-8, at most 16 KiB, each parameter once),
 * so that `bearerAuth` sees an `access_token` sent in it and refuses it: RFC 6750 §2.2 is not
 * supported, and a token in the header as well "uses more than one method" (§3.1), both
 * 400 `invalid_request` (docs/decisions/0132, 0180). A body of any other type is left unread.
 * A form it cannot accept is refused as `bearerAuth` refuses, with the `invalid_request`
 * challenge: 400 (a repeated parameter, a malformed body), 413 when too large, 415 in another charset.
 *
 * @example
 * router.post('/oauth/userinfo', formBodyForBearerAuth(gatehouse), bearerAuth(gatehouse), requireScope('openid'), userInfo);
 */
export function formBodyForBearerAuth(gatehouse: Partial<Pick<Gatehouse, 'settings'>>, options: BearerAuthOptions = {}): RequestHandler {
  const { challenge } = bearerSetup(gatehouse, options);
  const read = leanFormBody({
    onError: (_req, res, failure, next) => {
      const kind = failure.status === 413 ? 'payload-too-large' : failure.status === 415 ? 'unsupported-media-type' : 'invalid-request';
      next(refusal(res, problem(kind, failure.description), { ...challenge, error: 'invalid_request' }));
    },
  });
  return (req, res, next) => {
    if (req.is(FORM_TYPE) !== FORM_TYPE) return next();
    read(req, res, next);
  };
}

/** `bearerAuth`'s resource in canonical form; a `TypeError` when malformed or (settings known) not configured. */
function checkedResource(settings: Gatehouse['settings'] | undefined, resource: string): string {
  const canonical = canonicalResourceUri(resource);
  if (canonical === undefined || (settings !== undefined && findResource(settings.resources, canonical) === undefined)) {
    throw new TypeError(`bearerAuth: the resource ${JSON.stringify(resource)} is not a configured resource (settings.resources).`);
  }
  return canonical;
}

/**
 * Lets the request through only when the token `bearerAuth` verified carries `scope`
 * (RFC 6750 §3.1: otherwise 403 insufficient_scope, the challenge naming the scope needed).
 *
 * @example
 * router.get('/orders', bearerAuth(gatehouse), requireScope('orders.v1.read'), listOrders);
 */
export function requireScope(scope: string, options: RequireScopeOptions = {}): RequestHandler {
  const configured = options.realm === undefined ? undefined : checkedRealm(options.realm);
  return (_req, res, next) => {
    if (!accessTokenOf(res).scopes.includes(scope)) {
      const locals = res.locals as Partial<BearerLocals>;
      const realm = configured ?? locals.bearerRealm ?? BEARER_REALM;
      throw refusal(res, problem('insufficient-scope', `This request needs the scope ${scope}.`, { scope }), { error: 'insufficient_scope', scope, realm, resourceMetadata: locals.bearerResourceMetadata });
    }
    next();
  };
}

/**
 * The token the bearer middleware verified: `subjectType` (`'user'`, or `'client'` for a
 * client-credentials token, whose `userKey` is null: see `userKeyOf`), `userKey`, `clientId`,
 * `scopes`, `grantId` and the JWT `claims`. A route without `bearerAuth` before it is a
 * programming error (an `Error`, answered 500).
 *
 * @example
 * app.get('/orders', bearerAuth(gatehouse), (_req, res) => res.json({ client: accessTokenOf(res).clientId }));
 */
export function accessTokenOf(res: Response): VerifiedAccessToken {
  const token = (res.locals as Partial<BearerLocals>).accessToken;
  if (!token) throw new Error('bearerAuth must run before this handler.');
  return token;
}

/**
 * The user a token acts for, for an API that acts for a user. A client's own token (client
 * credentials, RFC 6749 §4.4: `accessTokenOf(res).subjectType === 'client'`) has no user: it is
 * refused with a 403 problem (`FORBIDDEN`), never answered with someone's data.
 *
 * @example
 * app.get('/orders/mine', bearerAuth(gatehouse), (_req, res) => res.json(ordersOf(userKeyOf(res))));
 */
export function userKeyOf(res: Response): string {
  const token = accessTokenOf(res);
  if (token.subjectType === 'client') throw new UserlessTokenProblem();
  return token.userKey;
}

/**
 * `userKeyOf`'s refusal of a client-credentials token: a 403 problem, which `bearerErrorHandler()`
 * answers as it answers the other refusals of a bearer route (and `problemErrorHandler()` too).
 */
export class UserlessTokenProblem extends HttpProblem {
  constructor() {
    super(problem('forbidden', 'This API acts for a user; a client-credentials token has no user. Use a token from the authorization code flow.'));
    this.name = 'UserlessTokenProblem';
  }
}

function refuseTokenOutsideHeader(req: Request, res: Response, challenge: { realm: string; resourceMetadata?: string }): void {
  const inQuery = Object.hasOwn(req.query as object, 'access_token');
  const body: unknown = req.body;
  const inForm =
    req.is('application/x-www-form-urlencoded') === 'application/x-www-form-urlencoded' &&
    typeof body === 'object' &&
    body !== null &&
    Object.hasOwn(body, 'access_token');
  if (inQuery || inForm) {
    throw refusal(
      res,
      problem('invalid-request', 'Send the access token in the Authorization header only, never in the URL or the body.', {
        invalidParams: [{ name: 'access_token', reason: 'Tokens are accepted in the Authorization header only.' }],
      }),
      { ...challenge, error: 'invalid_request' },
    );
  }
}
