import { issuerPath } from '@gatehouse/http-express';
import { gatehousePaths, html, layout, sendPage, type SafeHtml } from '@gatehouse/http-express/pages';
import type { Client } from '@gatehouse/core';
import { Router } from 'express';
import { authorizeUrl, tokenExchangeCurl } from '../demo.js';

export const DEMO_CALLBACK_PATH = '/demo/callback';

const first = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * GET <issuer path>/demo/callback: the demo client's redirect URI. Shows the authorization code it
 * received (or the error) and the curl command that exchanges it at the token endpoint, in the
 * pages' layout (stylesheet, viewport for phones). While it shows a code it links nowhere and loads
 * only Gatehouse's own stylesheet, with no Referer (docs/security.md, RFC 9700 §4.2.4); an error
 * (e.g. Deny) offers a way back: the demo request again, and the start page.
 */
export function demoCallbackRouter(options: { issuer: string; demoClient: () => Promise<Pick<Client, 'clientId' | 'scopes'> | undefined> }): Router {
  const issuer = options.issuer.replace(/\/+$/, '');
  const paths = gatehousePaths(issuerPath(issuer));
  const router = Router();
  router.get(`${paths.base}${DEMO_CALLBACK_PATH}`, async (req, res) => {
    const code = first(req.query.code);
    const error = first(req.query.error);
    const client = await options.demoClient();
    const clientId = client?.clientId ?? '$CLIENT_ID';
    let title: string;
    let body: SafeHtml;
    if (code !== undefined) {
      const state = first(req.query.state);
      title = 'Authorization code received';
      body = html`<h1>Authorization code received</h1>
<p>Code: <code id="code">${code}</code></p>
${state === undefined ? '' : html`<p>State: <code id="state">${state}</code></p>`}
<p>Exchange it within a minute (it works once), with the client secret printed when the server first started:</p>
<pre id="curl">${tokenExchangeCurl({ issuer, clientId, code })}</pre>`;
    } else if (error !== undefined) {
      const again = client === undefined ? undefined : authorizeUrl({ issuer, clientId: client.clientId, scopes: client.scopes });
      title = error === 'access_denied' ? 'Access denied' : 'Authorization failed';
      body = html`<h1>${title}</h1>
${error === 'access_denied' ? html`<p>You chose Deny, so the demo app received no access.</p>` : ''}
<p>Error: <code id="error">${error}</code></p>
${first(req.query.error_description) === undefined ? '' : html`<p class="muted">${first(req.query.error_description) ?? ''}</p>`}
<div class="actions">${again === undefined ? '' : html`<a class="button" href="${again}">Try again</a>`}<a class="button secondary" href="${paths.base}/">Go to the start page</a></div>`;
    } else {
      title = 'Demo callback';
      body = html`<h1>Demo callback</h1><p>No authorization code in this request.</p>
<div class="actions"><a class="button secondary" href="${paths.base}/">Go to the start page</a></div>`;
    }
    sendPage(res, code === undefined && error === undefined ? 400 : 200, layout({ title, body, stylesheetHref: paths.stylesheet }));
  });
  return router;
}
