import type { Response } from 'express';

/** RFC 6749 §5.1: token responses (and their errors) are never cached. */
export function setNoStore(res: Response): void {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Pragma', 'no-cache');
}
