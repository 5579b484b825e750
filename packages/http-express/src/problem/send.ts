import type { Response } from 'express';
import type { Problem } from './problem.js';

/** RFC 9457 §3: the media type of a problem details body. */
export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** Writes a problem with its status and headers. */
export function sendProblem(res: Response, value: Problem, headers: Record<string, string> = {}): void {
  res.status(value.status);
  for (const [name, header] of Object.entries(headers)) res.setHeader(name, header);
  res.setHeader('Content-Type', `${PROBLEM_CONTENT_TYPE}; charset=utf-8`);
  res.setHeader('Cache-Control', 'no-store');
  res.send(JSON.stringify(value));
}
