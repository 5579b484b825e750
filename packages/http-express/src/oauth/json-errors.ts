import { OAuthError, StorageUnavailableError, type OAuthErrorCode } from '@gatehouse/core';
import type { Response } from 'express';
import { clientErrorStatus, clientErrorWords, logClientError } from '../client-error.js';
import { requestLogger, type HttpLogger } from '../logger.js';
import { retryAfterSeconds, type StorageOutages } from '../storage-outages.js';
import { setNoStore } from './no-store.js';

/** The status of an error of the token, revocation and introspection endpoints (RFC 6749 §5.2). */
export function statusOf(code: OAuthErrorCode): number {
  if (code === 'invalid_client') return 401;
  if (code === 'server_error') return 500;
  if (code === 'temporarily_unavailable') return 503;
  return 400;
}

/**
 * An RFC 6749 §5.2 error answered with a status its code does not imply, and headers: a method
 * other than POST (405, `Allow`), a body too large (413), too many failed client authentications
 * (429, `Retry-After`).
 */
export class OAuthJsonRefusal extends OAuthError {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: OAuthErrorCode, description: string, status: number, headers: Readonly<Record<string, string>> = {}) {
    super(code, description);
    this.status = status;
    this.headers = headers;
  }
}

/**
 * Sends an RFC 6749 §5.2 error: `{ error, error_description }`, JSON whatever `Accept` says,
 * `no-store`. `invalid_client` is a 401 with `WWW-Authenticate: Basic realm="gatehouse"`.
 */
export function sendOAuthError(res: Response, code: OAuthErrorCode, description: string, status = statusOf(code)): void {
  setNoStore(res);
  if (code === 'invalid_client') res.setHeader('WWW-Authenticate', 'Basic realm="gatehouse"');
  // For the host's metrics: which error the answer carried (apps/server counts token errors by it).
  res.locals.oauthError = code;
  res.status(status).json({ error: code, error_description: description });
}

/**
 * The one place an error of the OAuth JSON endpoints (token, revocation, introspection, and the
 * metadata and JWKS documents) is answered: an `OAuthError` in its RFC 6749 §5.2 shape (its
 * private detail only to the log); an unavailable storage as a 503 `temporarily_unavailable` with
 * `Retry-After`, reported to `outages` (which logs each outage once; nothing was written, so the
 * request may be sent again, the same code included: docs/decisions/0100); an error Express or a
 * parser raised with a 4xx `status` (a malformed %-escape in a path parameter) as `invalid_request`
 * with that status, logged at info (docs/decisions/0180); anything else as a 500
 * `server_error` without any detail, the error logged. After the headers have gone, the
 * connection is closed.
 */
export function sendJsonFailure(res: Response, logger: HttpLogger, error: unknown, outages: StorageOutages): void {
  const log = requestLogger(logger, res);
  if (res.headersSent) {
    log.error({ err: error }, 'unexpected error after the answer began');
    res.destroy();
    return;
  }
  if (error instanceof OAuthError) {
    log.info({ oauthError: error.code, detail: error.detail }, 'oauth request refused');
    if (error instanceof OAuthJsonRefusal) for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
    sendOAuthError(res, error.code, error.description, error instanceof OAuthJsonRefusal ? error.status : statusOf(error.code));
    return;
  }
  if (error instanceof StorageUnavailableError) {
    outages.failed(error);
    res.setHeader('Retry-After', String(retryAfterSeconds(error)));
    sendOAuthError(res, 'temporarily_unavailable', 'The authorization server cannot reach its database right now; try again later.', 503);
    return;
  }
  // What Express or a parser refused as the client's mistake (a malformed %-escape in a path
  // parameter, a body too large): invalid_request with that status (RFC 6749 §5.2; decision 0180).
  const clientError = clientErrorStatus(error);
  if (clientError !== undefined) {
    logClientError(logger, res, clientError, error);
    sendOAuthError(res, 'invalid_request', clientErrorWords(clientError).message, clientError);
    return;
  }
  log.error({ err: error }, 'unexpected error');
  sendOAuthError(res, 'server_error', 'The server could not handle the request.');
}
