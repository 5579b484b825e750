import type { Response } from 'express';
import { setPageHeaders, type PageCspOptions } from '../security/headers.js';
import type { SafeHtml } from './html.js';

/**
 * Sends an HTML page with the page security headers (CSP, with what `csp` allows; anti-framing, no-store).
 *
 * @example
 * sendPage(res, 200, layout({ title: 'Orders', body: html`<h1>Your orders</h1>`, stylesheetHref: gatehousePaths('/auth').stylesheet }));
 */
export function sendPage(res: Response, status: number, page: SafeHtml, csp: PageCspOptions = {}): void {
  setPageHeaders(res, csp);
  res.status(status).type('text/html; charset=utf-8').send(page.value);
}
