import { randomUUID } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { requestContext } from '../logger.js';

/** The id format @gatehouse/http-express accepts from X-Request-Id (and so keeps). */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Gives each request its id before the Express app sees it, and runs the app inside that
 * context, so every line logged while handling it carries `reqId`: the app's access-log line,
 * and the audit events the core records, which know nothing of HTTP.
 * A well-formed incoming X-Request-Id (a proxy's) is kept; otherwise one is made and handed to
 * the app as if it had come in, so the app's id and the logs' id are the same.
 */
export function withRequestContext(handler: RequestListener): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    const incoming = req.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    req.headers['x-request-id'] = requestId;
    requestContext.run({ requestId }, () => handler(req, res));
  };
}
