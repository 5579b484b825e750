import type { IncomingMessage } from 'node:http';

/**
 * Whether the request carries the Authorization header more than once. Node keeps the first and
 * drops the others (`req.headers.authorization`), so a proxy that read the last would act on other
 * credentials than Gatehouse: a repeated header is refused, as a repeated parameter is
 * (RFC 9110 §5.3: Authorization is not a list; RFC 6749 §3.1, §3.2).
 *
 * @example
 * if (authorizationSentTwice(req)) return refuse('The Authorization header must be sent once.');
 */
export function authorizationSentTwice(req: Pick<IncomingMessage, 'rawHeaders'>): boolean {
  let seen = 0;
  const raw = req.rawHeaders;
  for (let index = 0; index < raw.length; index += 2) {
    const name = raw[index] as string;
    if (name.length === 13 && name.toLowerCase() === 'authorization' && ++seen > 1) return true;
  }
  return false;
}
