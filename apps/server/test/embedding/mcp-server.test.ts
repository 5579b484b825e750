import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packAll } from '../../../../scripts/pack-all.mjs';
import { makeTestCertificates, startTestHttpsServer, type TestHttpsServer } from '../../../../packages/http-express/src/test-support/test-tls.js';
import { Browser, formWithAction } from '../support/browser.js';
import { expectBuilt, installExample, killExampleServer, run, startExampleServer, succeed, type ExampleServer } from '../support/examples.js';
import { TestMcpClientProvider } from '../support/mcp-provider.js';
import { freePort } from '../support/processes.js';

// Issue #34 item 6: examples/mcp-server — an MCP server built with @modelcontextprotocol/sdk that
// embeds Gatehouse in the same process — installed from the npm pack tarballs as a user would
// (support/examples.ts), and driven by the MCP SDK's own client: discovery from the first 401 (RFC
// 9728 → RFC 8414), Dynamic Client Registration (RFC 7591), authorization with PKCE and `resource`
// (RFC 8707; the sign-in and consent scripted over HTTP), tool calls, a refresh, the token's `aud`;
// then again with a Client ID Metadata Document served over TLS on 127.0.0.1 (a test CA); and a
// token for the server's other resource refused by the MCP server, and the other way round.

const ADA = { email: 'ada@notes.example', password: 'ada-password-123' };
const REGISTRATION_TOKEN = 'notes-initial-access-token-0123456789abcdef';

/** The JWT's claims (the test reads them; the server checks them). */
function claimsOf(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
}

describe('examples/mcp-server, installed from the npm pack tarballs, driven by the MCP SDK\'s client', () => {
  let temp: string;
  let app: string;
  let server: ExampleServer | undefined;
  let documents: TestHttpsServer | undefined;
  let origin: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    expectBuilt();
    temp = mkdtempSync(join(tmpdir(), 'gatehouse-mcp-server-'));
    ({ app } = await installExample('mcp-server', temp, packAll(join(temp, 'packs'))));
    const tls = makeTestCertificates();
    writeFileSync(join(temp, 'test-ca.pem'), tls.ca);
    documents = await startTestHttpsServer(tls);
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    env = {
      PORT: String(port),
      HOST: '127.0.0.1',
      NOTES_ORIGIN: origin,
      NOTES_DATABASE: join(temp, 'data/notes.db'),
      NOTES_REGISTRATION_TOKEN: REGISTRATION_TOKEN,
      // The metadata documents of this test are served on 127.0.0.1 with the test CA's certificate.
      NOTES_DOCUMENT_CA_FILE: join(temp, 'test-ca.pem'),
      NOTES_DOCUMENT_ALLOW_LOOPBACK: 'true',
    };
    await succeed(process.execPath, ['cli.js', 'users', 'create', '--email', ADA.email, '--password', ADA.password], { cwd: app, timeoutMs: 30_000, env });
    server = await startExampleServer(app, env, 'notes-mcp-server listening on');
  }, 600_000);

  afterAll(async () => {
    await killExampleServer(server);
    await documents?.close();
    if (temp) rmSync(temp, { recursive: true, force: true });
  }, 30_000);

  /** The user's part in the browser: sign in on Gatehouse's login page (once per browser), then Allow; the code on the redirect. */
  async function signInAndAllow(browser: Browser, authorizationUrl: URL, check: (consentHtml: string) => void = () => undefined): Promise<string> {
    let page = await browser.navigate('GET', authorizationUrl.toString());
    let html = await page.text();
    if (html.includes('name="password"')) {
      const login = formWithAction(html, '/auth/oauth/login');
      page = await browser.navigate('POST', login.action, { ...login.hidden, email: ADA.email, password: ADA.password });
      html = await page.text();
    }
    expect(page.status).toBe(200);
    check(html);
    const decision = formWithAction(html, '/auth/oauth/authorize/decision');
    const answer = await browser.request('POST', decision.action, { ...decision.hidden, decision: 'allow' });
    expect(answer.status).toBe(302);
    const back = new URL(answer.headers.get('location') as string);
    expect(back.searchParams.get('iss')).toBe(`${origin}/auth`);
    return back.searchParams.get('code') as string;
  }

  /** connect → 401 → discovery, registration (or a metadata document), authorization → the user allows → finishAuth → connect again. */
  async function connect(provider: TestMcpClientProvider, browser: Browser, check?: (consentHtml: string) => void): Promise<Client> {
    const first = new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), { authProvider: provider });
    await expect(new Client({ name: 'notes-agent', version: '1.0.0' }).connect(first)).rejects.toThrow(/Unauthorized/);
    const authorizationUrl = provider.authorizationUrl as URL;
    expect(authorizationUrl.searchParams.get('resource')).toBe(`${origin}/mcp`);
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    await first.finishAuth(await signInAndAllow(browser, authorizationUrl, check));
    const client = new Client({ name: 'notes-agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), { authProvider: provider }));
    return client;
  }

  const textOf = (result: Awaited<ReturnType<Client['callTool']>>) => (result.content as Array<{ type: string; text: string }>)[0]?.text ?? '';

  it('passes its own tests and type-checks against the types the tarballs ship', async () => {
    const tests = await run('npm', ['test'], { cwd: app, timeoutMs: 120_000 });
    expect(tests.code, `${tests.stdout}\n${tests.stderr}`).toBe(0);
    expect(tests.stdout).toMatch(/^# fail 0$/m);
    const check = await run('npm', ['run', 'check'], { cwd: app, timeoutMs: 120_000 });
    expect(check.code, `${check.stdout}\n${check.stderr}`).toBe(0);
  }, 300_000);

  let provider: TestMcpClientProvider;
  let browser: Browser;
  let mcp: Client;

  it('discovers, registers itself, authorizes with PKCE and resource, and calls the tools as the signed-in user', async () => {
    provider = new TestMcpClientProvider('http://127.0.0.1:33418/callback');
    browser = new Browser(origin);
    mcp = await connect(provider, browser, (html) => expect(html).toContain('Add notes for you'));
    // Registered by RFC 7591, a public client.
    expect(provider.information?.client_id).toMatch(/^[A-Za-z0-9]+$/);
    const tokens = provider.saved as OAuthTokens;
    expect(claimsOf(tokens.access_token)).toMatchObject({ aud: `${origin}/mcp`, iss: `${origin}/auth`, scope: 'notes.v1.read notes.v1.write' });

    expect((await mcp.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['add_note', 'list_notes']);
    expect(JSON.parse(textOf(await mcp.callTool({ name: 'add_note', arguments: { text: 'Buy punch cards' } })))).toMatchObject({ text: 'Buy punch cards' });
    expect(JSON.parse(textOf(await mcp.callTool({ name: 'list_notes', arguments: {} }))).map((note: { text: string }) => note.text)).toEqual(['Buy punch cards']);
  });

  it('refreshes when the access token is refused, and goes on with the new one', async () => {
    const before = provider.saved as OAuthTokens;
    provider.saved = { ...before, access_token: `${before.access_token.slice(0, -4)}AAAA` };
    expect(JSON.parse(textOf(await mcp.callTool({ name: 'list_notes', arguments: {} })))).toHaveLength(1);
    const after = provider.saved as OAuthTokens;
    expect(after.access_token).not.toBe(before.access_token);
    // A public client's refresh token rotates (docs/decisions/0027, 0106).
    expect(after.refresh_token).not.toBe(before.refresh_token);
    expect(claimsOf(after.access_token).aud).toBe(`${origin}/mcp`);
    await mcp.close();
  });

  it('does it again as the client of a Client ID Metadata Document, whose host the consent page shows', async () => {
    const documentUrl = `${documents?.origin}/agents/notes-agent.json`;
    const cimd = new TestMcpClientProvider('http://127.0.0.1:33419/callback', documentUrl);
    documents?.handle((req, res) => {
      if (req.url !== '/agents/notes-agent.json') return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=300' });
      res.end(JSON.stringify({ client_id: documentUrl, client_name: 'Notes agent (document)', redirect_uris: [cimd.redirectUrl], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] }));
    });
    const client = await connect(cimd, browser, (html) => {
      expect(html).toContain('Notes agent (document)');
      expect(html).toContain(new URL(documentUrl).host);
    });
    expect(cimd.information?.client_id).toBe(documentUrl);
    expect(claimsOf((cimd.saved as OAuthTokens).access_token).aud).toBe(`${origin}/mcp`);
    expect(JSON.parse(textOf(await client.callTool({ name: 'list_notes', arguments: {} }))).map((note: { text: string }) => note.text)).toEqual(['Buy punch cards']);
    await client.close();
  });

  it('keeps each resource\'s tokens to it: a token for the REST API is refused by the MCP server, and the other way round', async () => {
    // A client registered with the initial access token (oauth4webapi, RFC 7591) may ask for the other resource.
    const issuer = new URL(`${origin}/auth`);
    const options = { [oauth.allowInsecureRequests]: true };
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...options, algorithm: 'oauth2' }));
    const registered = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(as, { redirect_uris: ['http://127.0.0.1:33420/callback'], token_endpoint_auth_method: 'none', client_name: 'Notes reader' }, { ...options, initialAccessToken: REGISTRATION_TOKEN }),
    );
    const verifier = oauth.generateRandomCodeVerifier();
    const authorizationUrl = new URL(as.authorization_endpoint as string);
    for (const [name, value] of Object.entries({ client_id: registered.client_id, response_type: 'code', redirect_uri: 'http://127.0.0.1:33420/callback', scope: 'notes.v1.read', resource: `${origin}/api`, code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' })) {
      authorizationUrl.searchParams.set(name, value);
    }
    const code = await signInAndAllow(browser, authorizationUrl);
    const client: oauth.Client = { client_id: registered.client_id };
    const callback = new URL(`http://127.0.0.1:33420/callback?code=${code}&iss=${encodeURIComponent(issuer.href.replace(/\/$/, ''))}`);
    const params = oauth.validateAuthResponse(as, client, callback);
    const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, 'http://127.0.0.1:33420/callback', verifier, { ...options, additionalParameters: { resource: `${origin}/api` } });
    const apiTokens = await oauth.processAuthorizationCodeResponse(as, client, response);
    expect(claimsOf(apiTokens.access_token).aud).toBe(`${origin}/api`);

    const api = await fetch(`${origin}/api/notes`, { headers: { Authorization: `Bearer ${apiTokens.access_token}` } });
    expect(api.status).toBe(200);
    expect(((await api.json()) as { notes: unknown[] }).notes).toHaveLength(1);
    const mcpRefused = await fetch(`${origin}/mcp`, { method: 'POST', headers: { Authorization: `Bearer ${apiTokens.access_token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, body: '{}' });
    expect(mcpRefused.status).toBe(401);
    expect(mcpRefused.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(mcpRefused.headers.get('www-authenticate')).toContain(`resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`);
    const apiRefused = await fetch(`${origin}/api/notes`, { headers: { Authorization: `Bearer ${(provider.saved as OAuthTokens).access_token}` } });
    expect(apiRefused.status).toBe(401);
  });

  it('refuses the anonymous client a token for the resource anonymous clients are not offered', async () => {
    const authorizationUrl = new URL(provider.authorizationUrl as URL);
    authorizationUrl.searchParams.set('resource', `${origin}/api`);
    const answer = await browser.request('GET', authorizationUrl.toString());
    // The error page, not a redirect: the client registered itself (docs/decisions/0198).
    expect(answer.status).toBe(400);
    expect(answer.headers.get('location')).toBeNull();
    expect(await answer.text()).toContain('invalid_target');
  });

  it('stops on SIGTERM with exit code 0', async () => {
    const running = server as ExampleServer;
    running.child.kill('SIGTERM');
    expect(await running.exited).toBe(0);
  });
});
