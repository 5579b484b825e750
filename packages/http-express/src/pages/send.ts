import type { Response } from 'express';
import { setPageHeaders } from '../security/headers.js';
import type { SafeHtml } from './html.js';

/** Sends an HTML page with the page security headers (CSP, anti-framing, no-store). */
export function sendPage(res: Response, status: number, page: SafeHtml): void {
  setPageHeaders(res);
  res.status(status).type('text/html; charset=utf-8').send(page.value);
}
