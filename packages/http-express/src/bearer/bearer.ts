import type { Gatehouse, VerifiedAccessToken } from '@gatehouse/core';
import { OAuthError } from '@gatehouse/core';
import type { Request, RequestHandler, Response } from 'express';
import { HttpProblem, problem } from '../problem/problem.js';
import { bearerChallenge } from './challenge.js';

/** RFC 6750 §2.1: `Bearer` (any case), one or more spaces, then a token68. */
const BEARER_HEADER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
const SCHEME = /^([^\s]+)/;

/** Where the bearer middleware leaves the verified token for the routes. */
export interface BearerLocals {
  accessToken: VerifiedAccessToken;
}

/**
 * Authenticates the request by its `Authorization: Bearer` header (RFC 6750 §2.1), the only
 * method accepted: a token in the query (§2.3) or in a form body (§2.2) is refused with 400.
 * The JWT is verified with the in-process keys, and a revoked grant's tokens are refused at once.
 *
 * @example
 * router.get('/identity/v1/Users/me', bearerAuth(gatehouse), (req, res) => res.json(accessTokenOf(res).userKey));
 */
export function bearerAuth(gatehouse: Pick<Gatehouse, 'verifyAccessToken'>): RequestHandler {
  return async (req, res, next) => {
    refuseTokenOutsideHeader(req);
    const header = req.headers.authorization;
    const scheme = header === undefined ? undefined : SCHEME.exec(header.trim())?.[1];
    if (scheme === undefined || scheme.toLowerCase() !== 'bearer') {
      // RFC 6750 §3.1: a request without bearer credentials gets the challenge and no error code.
      throw new HttpProblem(problem('unauthenticated', 'This API needs an access token in the header Authorization: Bearer <token>.'), {
        'WWW-Authenticate': bearerChallenge(),
      });
    }
    const token = BEARER_HEADER.exec(header as string)?.[1];
    if (token === undefined) {
      // RFC 6750 §3.1: a malformed request is invalid_request (400).
      throw new HttpProblem(problem('invalid-request', 'The Authorization header must be "Bearer" followed by one token.'), {
        'WWW-Authenticate': bearerChallenge({ error: 'invalid_request' }),
      });
    }
    try {
      (res.locals as Partial<BearerLocals>).accessToken = await gatehouse.verifyAccessToken(token);
    } catch (error) {
      if (error instanceof OAuthError && error.code === 'invalid_token') {
        throw new HttpProblem(problem('invalid-token', error.description), { 'WWW-Authenticate': bearerChallenge({ error: 'invalid_token' }) });
      }
      throw error;
    }
    next();
  };
}

/**
 * Lets the request through only when the token carries `scope` (RFC 6750 §3.1: otherwise
 * 403 insufficient_scope, the challenge naming the scope needed).
 */
export function requireScope(scope: string): RequestHandler {
  return (_req, res, next) => {
    if (!accessTokenOf(res).scopes.includes(scope)) {
      throw new HttpProblem(problem('insufficient-scope', `This request needs the scope ${scope}.`, { scope }), {
        'WWW-Authenticate': bearerChallenge({ error: 'insufficient_scope', scope }),
      });
    }
    next();
  };
}

/** The token the bearer middleware verified; a route without the middleware is a programming error. */
export function accessTokenOf(res: Response): VerifiedAccessToken {
  const token = (res.locals as Partial<BearerLocals>).accessToken;
  if (!token) throw new Error('bearerAuth must run before this handler.');
  return token;
}

function refuseTokenOutsideHeader(req: Request): void {
  const inQuery = Object.hasOwn(req.query as object, 'access_token');
  const body: unknown = req.body;
  const inForm =
    req.is('application/x-www-form-urlencoded') === 'application/x-www-form-urlencoded' &&
    typeof body === 'object' &&
    body !== null &&
    Object.hasOwn(body, 'access_token');
  if (inQuery || inForm) {
    throw new HttpProblem(
      problem('invalid-request', 'Send the access token in the Authorization header only, never in the URL or the body.', {
        invalidParams: [{ name: 'access_token', reason: 'Tokens are accepted in the Authorization header only.' }],
      }),
      { 'WWW-Authenticate': bearerChallenge({ error: 'invalid_request' }) },
    );
  }
}
