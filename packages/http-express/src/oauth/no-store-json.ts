import type { Response } from 'express';

/**
 * Sends a JSON answer of the token, revocation or introspection endpoint in one write: the body
 * serialized once, its headers given to `writeHead` together (they merge with those set before, e.g.
 * the security headers). RFC 6749 §5.1: `Cache-Control: no-store` and `Pragma: no-cache`.
 */
export function sendNoStoreJson(res: Response, status: number, body: unknown): void {
  const json = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(json),
    'Cache-Control': 'no-store',
    Pragma: 'no-cache',
  });
  res.end(json);
}
