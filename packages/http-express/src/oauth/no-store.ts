import type { Response } from 'express';

/** RFC 6749 §5.1: token responses (and their errors) are never cached. */
const NO_STORE_HEADERS = { 'Cache-Control': 'no-store', Pragma: 'no-cache' } as const;

/** RFC 6749 §5.1: marks the answer as not to be cached (an error, or an empty 200). */
export function setNoStore(res: Response): void {
  for (const [name, value] of Object.entries(NO_STORE_HEADERS)) res.setHeader(name, value);
}

/**
 * Sends a JSON answer of the token, revocation or introspection endpoint in one write: the body
 * serialized once, its headers given to `writeHead` together (they merge with those set before, e.g.
 * the security headers), never cached (RFC 6749 §5.1).
 */
export function sendNoStoreJson(res: Response, status: number, body: unknown): void {
  const json = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(json), ...NO_STORE_HEADERS });
  res.end(json);
}
