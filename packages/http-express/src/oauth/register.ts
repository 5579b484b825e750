import { OAuthError } from '@gatehouse/core';
import express, { Router, type NextFunction, type Request, type Response } from 'express';
import { requestLogger } from '../logger.js';
import { gatehouseFor } from '../request-scope.js';
import { ipBucket } from '../security/ip-bucket.js';
import { createFailureLimiter, type FailureStore, type LimitKey } from '../security/rate-limit.js';
import { REPEATED_MEMBER, refuseRepeatedMembers } from '../security/json-members.js';
import { clientIp, endpointUrl, type OAuthContext } from './context.js';
import { OAuthJsonRefusal, sendJsonFailure } from './json-errors.js';
import { sendNoStoreJson, setNoStore } from './no-store.js';
import { OAUTH_PATHS } from './paths.js';
import { authorizationSentTwice } from '../security/authorization-header.js';

/** The limits of the registration endpoint (docs/decisions/0115-dynamic-client-registration.md). */
export interface RegistrationLimits {
  /** Registration requests per client IP address (an IPv6 /64 counts as one) within the window; then 429. Default 20. */
  maxPerIp?: number;
  /** Default 3600 seconds. */
  windowSeconds?: number;
  /** The largest JSON body read; a larger one is 413. Default 16 KiB. */
  bodyLimitBytes?: number;
}

export const DEFAULT_REGISTRATION_LIMITS: Required<RegistrationLimits> = { maxPerIp: 20, windowSeconds: 3600, bodyLimitBytes: 16 * 1024 };

const JSON_TYPES = ['application/json', 'application/*+json'];

/** A JSON body's parse failures (body-parser's types) as RFC 7591 §3.2.2 errors. */
function bodyRefusal(error: { type?: string; status?: number }, limit: number): OAuthJsonRefusal {
  if (error.type === 'entity.too.large') return new OAuthJsonRefusal('invalid_client_metadata', `The body is larger than ${limit} bytes.`, 413);
  if (error.type === 'entity.parse.failed') return new OAuthJsonRefusal('invalid_client_metadata', 'The body is not valid JSON.', 400);
  if (error.type === REPEATED_MEMBER) return new OAuthJsonRefusal('invalid_client_metadata', 'The body names a member twice in one object.', 400);
  if (error.type === 'charset.unsupported' || error.type === 'encoding.unsupported') return new OAuthJsonRefusal('invalid_client_metadata', 'The body must be JSON in UTF-8, not compressed.', 415);
  return new OAuthJsonRefusal('invalid_client_metadata', 'The body could not be read.', error.status === 413 ? 413 : 400);
}

/**
 * `Authorization: Bearer <token>` (RFC 6750 §2.1): the initial access token of a registration
 * (RFC 7591 §3) or the registration access token of a management request (RFC 7592 §3).
 */
function bearerToken(req: Request): string | undefined {
  const header = req.get('authorization');
  if (header === undefined) return undefined;
  if (authorizationSentTwice(req)) throw new OAuthError('invalid_token', 'The Authorization header must be sent once.');
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
  if (!match) throw new OAuthError('invalid_token', 'The Authorization header must be "Bearer" and a token.');
  return match[1];
}

/**
 * The registration endpoint and its management (RFC 7591, RFC 7592), mounted at `/oauth/register`
 * when `settings.registration.policy` is not `off`:
 * - `POST /oauth/register` (JSON metadata; `Authorization: Bearer <initial access token>` under
 *   `token`): 201 with the RFC 7591 §3.2.1 answer and `registration_client_uri`; counted per IP;
 * - `GET`, `PUT`, `DELETE /oauth/register/<client_id>` with `Authorization: Bearer
 *   <registration_access_token>`: read (200), replace (200), delete (204); a wrong token is 401.
 *   A read and a replace answer a new registration access token (RFC 7592 §3), which replaces
 *   the one presented (docs/decisions/0185-registration-access-token-rotated.md).
 * Errors are RFC 7591 §3.2.2 JSON, never cached: `invalid_client_metadata` and
 * `invalid_redirect_uri` (400), a body too large (413), too many registrations (429),
 * `invalid_token` (401 with `WWW-Authenticate: Bearer`).
 */
export function registrationRouter(
  ctx: OAuthContext,
  limits: RegistrationLimits = {},
  counting: { failureStore?: FailureStore | undefined; ipv6PrefixLength?: number | undefined } = {},
): Router {
  const { maxPerIp, windowSeconds, bodyLimitBytes } = { ...DEFAULT_REGISTRATION_LIMITS, ...limits };
  const limiter = createFailureLimiter(ctx.gatehouse.clock, counting.failureStore === undefined ? {} : { store: counting.failureStore });
  // IPv6 addresses count per network, as the other limits do (default /64).
  const ipKeys = (req: Request): LimitKey[] => [{ scope: 'ip', key: `register:ip:${ipBucket(clientIp(req), counting.ipv6PrefixLength)}`, max: maxPerIp }];
  const parseJson = express.json({ limit: bodyLimitBytes, strict: true, type: JSON_TYPES, verify: refuseRepeatedMembers });
  const router = Router();

  /** The JSON body, read here unless the host's parser already did (a declared length over the limit is refused either way). */
  function jsonBody(req: Request, res: Response, next: NextFunction): void {
    if (!req.is(JSON_TYPES)) return next(new OAuthJsonRefusal('invalid_client_metadata', 'The body must be JSON (Content-Type: application/json).', 400));
    const declared = Number(req.get('content-length') ?? Number.NaN);
    if (declared > bodyLimitBytes) return next(new OAuthJsonRefusal('invalid_client_metadata', `The body is larger than ${bodyLimitBytes} bytes.`, 413));
    parseJson(req, res, (error?: unknown) => next(error === undefined ? undefined : bodyRefusal(error as { type?: string }, bodyLimitBytes)));
  }

  /** Every registration from an address counts, accepted or not: the endpoint is open to anyone. */
  async function rateLimited(req: Request, res: Response, next: NextFunction): Promise<void> {
    const keys = ipKeys(req);
    const check = await limiter.check(keys, windowSeconds);
    if (check.limited) {
      requestLogger(ctx.logger, res).warn({ event: 'rate_limited', limit: 'registration' }, 'client registration rate limited');
      const description = `Too many client registrations from this address. Retry after ${check.retryAfterSeconds} seconds.`;
      return next(new OAuthJsonRefusal('temporarily_unavailable', description, 429, { 'Retry-After': String(check.retryAfterSeconds) }));
    }
    await limiter.recordFailure(keys, windowSeconds);
    next();
  }

  const clientUri = (clientId: string) => endpointUrl(ctx.issuer, `${OAUTH_PATHS.register}/${encodeURIComponent(clientId)}`);

  router.post('/', rateLimited, jsonBody, async (req: Request, res: Response) => {
    const { client, information } = await gatehouseFor(ctx.gatehouse, res).registerDynamicClient({ metadata: req.body as unknown, initialAccessToken: bearerToken(req) });
    requestLogger(ctx.logger, res).info({ event: 'client_registered', clientId: client.clientId }, 'client registered itself');
    sendNoStoreJson(res, 201, { ...information, registration_client_uri: clientUri(client.clientId) });
  });
  router.all('/', (req, _res, next) => next(new OAuthJsonRefusal('invalid_request', `${req.method} is not allowed here; use POST.`, 405, { Allow: 'POST' })));

  /** RFC 7592 §3: the management requests carry the registration access token. */
  function management(req: Request): { clientId: string; registrationAccessToken: string } {
    const token = bearerToken(req);
    if (token === undefined) throw new OAuthError('invalid_token', 'The registration access token is missing (Authorization: Bearer).');
    return { clientId: req.params.clientId as string, registrationAccessToken: token };
  }

  router.get('/:clientId', async (req: Request, res: Response) => {
    const information = await gatehouseFor(ctx.gatehouse, res).readDynamicClient(management(req));
    sendNoStoreJson(res, 200, { ...information, registration_client_uri: clientUri(information.client_id as string) });
  });
  router.put('/:clientId', jsonBody, async (req: Request, res: Response) => {
    const information = await gatehouseFor(ctx.gatehouse, res).updateDynamicClient({ ...management(req), metadata: req.body as unknown });
    sendNoStoreJson(res, 200, { ...information, registration_client_uri: clientUri(information.client_id as string) });
  });
  router.delete('/:clientId', async (req: Request, res: Response) => {
    await gatehouseFor(ctx.gatehouse, res).deleteDynamicClient(management(req));
    setNoStore(res);
    res.status(204).end();
  });
  router.all('/:clientId', (req, _res, next) => next(new OAuthJsonRefusal('invalid_request', `${req.method} is not allowed here.`, 405, { Allow: 'GET, PUT, DELETE' })));

  // RFC 6750 §3.1: a missing or wrong token is 401 with its challenge; everything else as the other JSON endpoints.
  router.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (error instanceof OAuthError && error.code === 'invalid_token' && !(error instanceof OAuthJsonRefusal)) {
      const challenge = `Bearer realm="gatehouse", error="invalid_token", error_description="${error.description.replace(/["\\]/g, '')}"`;
      return sendJsonFailure(res, ctx.logger, new OAuthJsonRefusal('invalid_token', error.description, 401, { 'WWW-Authenticate': challenge }), ctx.storageOutages);
    }
    if (error instanceof OAuthError && error.code === 'access_denied' && !(error instanceof OAuthJsonRefusal)) {
      return sendJsonFailure(res, ctx.logger, new OAuthJsonRefusal('access_denied', error.description, 403), ctx.storageOutages);
    }
    sendJsonFailure(res, ctx.logger, error, ctx.storageOutages);
  });
  return router;
}
