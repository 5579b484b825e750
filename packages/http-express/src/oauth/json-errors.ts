import { OAuthError, type OAuthErrorCode } from '@gatehouse/core';
import type { Response } from 'express';
import { requestLogger, type HttpLogger } from '../logger.js';
import { setNoStore } from './no-store.js';

/** The status of an error of the token, revocation and introspection endpoints (RFC 6749 §5.2). */
export function statusOf(code: OAuthErrorCode): number {
  if (code === 'invalid_client') return 401;
  if (code === 'server_error') return 500;
  if (code === 'temporarily_unavailable') return 503;
  return 400;
}

/**
 * Sends an RFC 6749 §5.2 error: `{ error, error_description }`, JSON whatever `Accept` says,
 * `no-store`. `invalid_client` is a 401 with `WWW-Authenticate: Basic realm="gatehouse"`.
 */
export function sendOAuthError(res: Response, code: OAuthErrorCode, description: string, status = statusOf(code)): void {
  setNoStore(res);
  if (code === 'invalid_client') res.setHeader('WWW-Authenticate', 'Basic realm="gatehouse"');
  res.status(status).json({ error: code, error_description: description });
}

/**
 * Answers any error of a JSON OAuth endpoint: an `OAuthError` in its RFC shape (its private
 * detail only to the log), anything else as `server_error` with the detail only in the log.
 */
export function sendJsonFailure(res: Response, logger: HttpLogger, error: unknown): void {
  const log = requestLogger(logger, res);
  if (error instanceof OAuthError) {
    log.info({ oauthError: error.code, detail: error.detail }, 'oauth request refused');
    sendOAuthError(res, error.code, error.description);
    return;
  }
  log.error({ err: error }, 'unexpected error');
  setNoStore(res);
  res.status(500).json({ error: 'server_error', error_description: 'The server could not handle the request.' });
}
