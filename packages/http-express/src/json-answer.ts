import type { OutgoingHttpHeaders } from 'node:http';
import type { Response } from 'express';

/**
 * Sends a JSON answer in one write: `body` serialized once, its type, length and `headers` given
 * to `writeHead` together (they merge with those set before, e.g. the security headers), instead
 * of Express's `res.json`/`res.send`, which work out the type, charset, length and freshness per
 * answer (docs/performance.md). A HEAD request gets the headers only (Node leaves the body out).
 */
export function sendJsonAnswer(res: Response, status: number, body: unknown, headers: OutgoingHttpHeaders, mediaType = 'application/json'): void {
  const json = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': `${mediaType}; charset=utf-8`, 'Content-Length': Buffer.byteLength(json), ...headers });
  res.end(json);
}
