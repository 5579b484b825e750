import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * The request headers a browser-based client may send to the endpoints `browserClientCors` opens:
 * client authentication (RFC 6749 §2.3.1) and bearer tokens (RFC 6750 §2.1), form or JSON bodies,
 * and the MCP client's protocol version header on discovery (MCP 2025-06-18, Authorization).
 */
const ALLOWED_HEADERS = 'Authorization, Content-Type, MCP-Protocol-Version';
/** What a browser-based client needs to read of an answer besides the simple headers. */
const EXPOSED_HEADERS = 'WWW-Authenticate, Retry-After, Location';
/** How long a browser may reuse a preflight's answer. */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/**
 * CORS for the endpoints a client running in a browser calls itself (an MCP client in a web page,
 * a single-page app with PKCE): the metadata documents, the JWKS, token, revocation, registration,
 * UserInfo and the reference app's resource APIs (docs/decisions/0165-cors-for-browser-clients.md). Any origin, never credentials:
 * these endpoints take no cookie, only what the request carries (client authentication, a code
 * with its verifier, a bearer or registration access token), so a page of another origin can do
 * nothing the same request sent from a server could not. Pages (authorize, login, consent,
 * logout) and introspection (for resource servers, never a browser) are not opened. A preflight
 * (`OPTIONS` with `Access-Control-Request-Method`) is answered 204 with the endpoint's `methods`.
 */
export function browserClientCors(methods: readonly string[]): RequestHandler {
  const allowMethods = methods.join(', ');
  return (req: Request, res: Response, next: NextFunction) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) {
      res.setHeader('Access-Control-Allow-Methods', allowMethods);
      res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
      res.setHeader('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_SECONDS));
      res.status(204).end();
      return;
    }
    res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    next();
  };
}
