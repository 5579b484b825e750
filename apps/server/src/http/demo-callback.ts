import { Router } from 'express';
import { tokenExchangeCurl } from '../demo.js';

export const DEMO_CALLBACK_PATH = '/demo/callback';

const escapeHtml = (value: string): string =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

const first = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * GET /demo/callback: the demo client's redirect URI. Shows the authorization code it received
 * (or the error) and the curl command that exchanges it at the token endpoint.
 */
export function demoCallbackRouter(options: { issuer: string; demoClientId: () => Promise<string | undefined> }): Router {
  const router = Router();
  router.get(DEMO_CALLBACK_PATH, async (req, res) => {
    const code = first(req.query.code);
    const error = first(req.query.error);
    const clientId = (await options.demoClientId()) ?? '$CLIENT_ID';
    let body: string;
    if (code !== undefined) {
      const curl = tokenExchangeCurl({ issuer: options.issuer, clientId, code });
      body = `<h1>Authorization code received</h1>
<p>Code: <code id="code">${escapeHtml(code)}</code></p>
${first(req.query.state) === undefined ? '' : `<p>State: <code id="state">${escapeHtml(first(req.query.state) as string)}</code></p>`}
<p>Exchange it within a minute (it works once), with the client secret printed when the server first started:</p>
<pre id="curl">${escapeHtml(curl)}</pre>`;
    } else if (error !== undefined) {
      body = `<h1>Authorization failed</h1>
<p>Error: <code id="error">${escapeHtml(error)}</code></p>
<p>${escapeHtml(first(req.query.error_description) ?? '')}</p>`;
    } else {
      body = '<h1>Demo callback</h1><p>No authorization code in this request.</p>';
    }
    res
      .status(code === undefined && error === undefined ? 400 : 200)
      .set({
        'Content-Type': 'text/html; charset=utf-8',
        'Cache-Control': 'no-store',
        'X-Frame-Options': 'DENY',
        'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
        'Referrer-Policy': 'no-referrer',
        'X-Content-Type-Options': 'nosniff',
      })
      .send(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Gatehouse demo callback</title>
<style>body{font-family:system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem}pre{background:#f4f4f4;padding:1rem;white-space:pre-wrap;word-break:break-all}code{word-break:break-all}</style>
</head><body>
${body}
</body></html>`);
  });
  return router;
}
