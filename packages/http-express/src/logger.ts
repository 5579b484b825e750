import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

type LogMethod = (obj: object, msg?: string) => void;

/** The subset of a pino logger the HTTP adapter writes to (a pino instance fits as is). */
export interface HttpLogger {
  info: LogMethod;
  warn: LogMethod;
  error: LogMethod;
  /** Where the access lines of routine requests go (health probes); without it they are not logged. */
  debug?: LogMethod;
}

/** The default: writes nothing. */
export const silentLogger: HttpLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** An incoming `X-Request-Id` is echoed only when it is short and plain; otherwise one is generated. */
const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The longest user agent an access line keeps (the rest is cut: the header is the client's to fill). */
const MAX_USER_AGENT = 256;

/**
 * Marks this request as routine (a health probe polled every few seconds): its access line goes to
 * `debug` while it succeeds (docs/operations.md "Logs").
 *
 * @example
 * router.get('/healthz', (_req, res) => { routineRequest(res); res.json({ status: 'ok' }); });
 */
export function routineRequest(res: Response): void {
  res.locals.routineRequest = true;
}

/** The request id of this request (set by `requestContext`). */
export function requestIdOf(res: Response): string {
  return typeof res.locals.requestId === 'string' ? res.locals.requestId : 'unknown';
}

/**
 * Gives every request an id (the caller's `X-Request-Id` when acceptable, else a UUID), echoes it in
 * the response and writes one access-log line when the response is finished, with the client's
 * address (`req.ip`: as `trust proxy` allows) and user agent. Only the path is logged, never the
 * query string (it may carry codes or state) nor any other header or body. A routine request
 * (`routineRequest`) that succeeded is logged at debug.
 */
export function requestContext(logger: HttpLogger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const incoming = req.get('x-request-id');
    const requestId = incoming !== undefined && ACCEPTABLE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.locals.requestId = requestId;
    res.setHeader('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    // Taken now: a router mounted on a prefix rewrites req.path while it handles the request;
    // inside one (Gatehouse's router in a host app), the mount path is put back in front.
    const path = `${req.baseUrl}${req.path}`;
    res.on('finish', () => {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      const routine = res.locals.routineRequest === true && res.statusCode < 400;
      const write = routine ? logger.debug : logger.info;
      const userAgent = req.get('user-agent');
      write?.call(
        logger,
        {
          reqId: requestId,
          method: req.method,
          path,
          status: res.statusCode,
          durationMs: Math.round(durationMs * 10) / 10,
          ip: req.ip ?? req.socket.remoteAddress,
          ...(userAgent === undefined ? {} : { userAgent: userAgent.slice(0, MAX_USER_AGENT) }),
        },
        'request',
      );
    });
    next();
  };
}

/** A logger whose lines carry the request id of `res`. */
export function requestLogger(logger: HttpLogger, res: Response): HttpLogger {
  const reqId = requestIdOf(res);
  return {
    info: (obj, msg) => logger.info({ reqId, ...obj }, msg),
    warn: (obj, msg) => logger.warn({ reqId, ...obj }, msg),
    error: (obj, msg) => logger.error({ reqId, ...obj }, msg),
  };
}
