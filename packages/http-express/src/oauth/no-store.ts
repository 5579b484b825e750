import type { Response } from 'express';
import { sendJsonAnswer } from '../json-answer.js';

/** RFC 6749 §5.1: token responses (and their errors) are never cached. */
const NO_STORE_HEADERS = { 'Cache-Control': 'no-store', Pragma: 'no-cache' } as const;

/** RFC 6749 §5.1: marks the answer as not to be cached (an error, or an empty 200). */
export function setNoStore(res: Response): void {
  for (const [name, value] of Object.entries(NO_STORE_HEADERS)) res.setHeader(name, value);
}

/** Sends a JSON answer of the token, revocation or introspection endpoint in one write, never cached (RFC 6749 §5.1). */
export function sendNoStoreJson(res: Response, status: number, body: unknown): void {
  sendJsonAnswer(res, status, body, NO_STORE_HEADERS);
}
