import type { Response } from 'express';
import { requestLogger, type HttpLogger } from './logger.js';

/**
 * The 4xx status Express, its router or a body parser put on an error it raised for a request (the
 * `http-errors` convention: `status`, else `statusCode`): 400 on the `URIError` of a malformed
 * percent-escape in a path parameter, 413 on a body too large, 415 on an encoding not supported.
 * The client's mistake: each surface answers it with that status in its own shape and logs it at
 * info, never as a failure (docs/decisions/0180-client-errors-answered-as-such.md). `undefined`
 * for anything else (no status, or a 5xx).
 *
 * @example
 * clientErrorStatus(Object.assign(new URIError('Failed to decode param'), { status: 400 })); // 400
 */
export function clientErrorStatus(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { status, statusCode } = error as { status?: unknown; statusCode?: unknown };
  const value = typeof status === 'number' ? status : typeof statusCode === 'number' ? statusCode : undefined;
  return value !== undefined && Number.isInteger(value) && value >= 400 && value < 500 ? value : undefined;
}

/** Fixed words for a client error of `status`: never the error's own message, which may echo the input. */
export function clientErrorWords(status: number): { title: string; message: string } {
  switch (status) {
    case 404:
      return { title: 'Page not found', message: 'There is nothing at this address.' };
    case 413:
      return { title: 'The request is too large', message: 'The request sent more than this server accepts.' };
    case 415:
      return { title: 'The request could not be read', message: 'The request was sent in a format or encoding this server does not accept.' };
    default:
      return { title: 'The request could not be read', message: 'The address or the body of the request has a mistake in it (for example a broken %-escape in the address).' };
  }
}

/**
 * Logs a client error at info with the request id, the status, and the error's name and body-parser
 * `type` only (its message may echo the input); the access line of the request has its method and path.
 */
export function logClientError(logger: HttpLogger, res: Response, status: number, error: unknown): void {
  const { name, type } = error as { name?: unknown; type?: unknown };
  requestLogger(logger, res).info(
    { event: 'client_error', status, ...(typeof name === 'string' ? { error: name } : {}), ...(typeof type === 'string' ? { type } : {}) },
    'request refused: the client sent something that could not be read',
  );
}
