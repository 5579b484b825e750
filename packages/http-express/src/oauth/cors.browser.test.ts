import { describe, expect, it } from 'vitest';
import { useBrowserHarness } from '../test-support/browser-harness.js';

// A client running in a web page (an MCP client, a single-page app) of another origin discovers
// Gatehouse, registers itself and calls the token endpoint from the browser, in headless Chromium:
// every call needs a CORS preflight, which Gatehouse answers (docs/decisions/0165).

describe('a browser-based client of another origin (headless Chromium)', () => {
  const harness = useBrowserHarness({ clientApp: true, settings: { registration: { policy: 'open' } } }, 60_000);

  it('reads the metadata, registers itself and reads the token endpoint’s error from the page', async () => {
    const { browser, origin, clientOrigin } = harness;
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await page.goto(`${clientOrigin}/callback`);
      const seen = await page.evaluate(async ({ issuer, appOrigin }) => {
        const metadata = (await (await fetch(`${issuer}/.well-known/oauth-authorization-server`, { headers: { 'MCP-Protocol-Version': '2025-06-18' } })).json()) as { registration_endpoint: string; token_endpoint: string };
        const registration = await fetch(metadata.registration_endpoint, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ client_name: 'Web agent', redirect_uris: [`${appOrigin}/callback`], token_endpoint_auth_method: 'none' }),
        });
        const client = (await registration.json()) as { client_id: string };
        const token = await fetch(metadata.token_endpoint, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ grant_type: 'authorization_code', client_id: client.client_id, code: 'not-a-code', redirect_uri: `${appOrigin}/callback`, code_verifier: 'v'.repeat(43) }).toString(),
        });
        return { tokenEndpoint: metadata.token_endpoint, registered: registration.status, clientId: client.client_id, tokenStatus: token.status, tokenError: ((await token.json()) as { error: string }).error };
      }, { issuer: origin, appOrigin: clientOrigin });
      expect(seen).toMatchObject({ tokenEndpoint: `${origin}/oauth/token`, registered: 201, clientId: expect.any(String), tokenStatus: 400, tokenError: 'invalid_grant' });
      // The page is still not allowed to read a Gatehouse page (cookies, forms): authorize stays closed.
      const blocked = await page.evaluate(async (issuer) => {
        try {
          await fetch(`${issuer}/oauth/login`);
          return 'read';
        } catch {
          return 'blocked';
        }
      }, origin);
      expect(blocked).toBe('blocked');
    } finally {
      await context.close();
    }
  }, 60_000);
});
