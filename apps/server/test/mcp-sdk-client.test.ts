import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { describe, expect, it } from 'vitest';
import { useServerOnEveryBackend } from './support/backends.js';
import { userAllows } from './support/browser.js';
import { TestMcpClientProvider } from './support/mcp-provider.js';
import { PASSWORD } from './support/fixture.js';

// The MCP SDK's own client (`auth()` of @modelcontextprotocol/sdk, which an MCP client such as an
// IDE or an agent runs) against the real `gatehouse serve`, on SQLite and PostgreSQL: discovery from
// the resource's 401 (RFC 9728 → RFC 8414), Dynamic Client Registration (RFC 7591), the
// authorization request with PKCE and `resource` (RFC 8707), the user's sign-in and Allow in a
// browser, the code exchange, a call to the resource with the token, and a refresh.

const { workspace, backends } = useServerOnEveryBackend('mcp-sdk', 'the MCP SDK client tests');

const REDIRECT = 'http://127.0.0.1:33418/callback';

describe.each(backends)('the MCP SDK client against gatehouse serve on $name', ({ name, env }) => {
  it('discovers from the 401, registers itself, authorizes with PKCE and resource, calls the resource and refreshes', async () => {
    const p = await workspace.provision(`mcp-sdk-${name}`, env());
    await workspace.serve(p, { GATEHOUSE_REGISTRATION: 'open' });
    const resourceUrl = `${p.origin}/identity/v1/Users/me`;

    // The resource's challenge names its metadata (RFC 9728 §5.1), where the SDK starts.
    const challenge = await fetch(resourceUrl);
    expect(challenge.status).toBe(401);
    const resourceMetadataUrl = /resource_metadata="([^"]+)"/.exec(challenge.headers.get('www-authenticate') ?? '')?.[1];
    expect(resourceMetadataUrl).toEqual(expect.any(String));

    const provider = new TestMcpClientProvider(REDIRECT, undefined, 'Agent');
    expect(await auth(provider, { serverUrl: resourceUrl, resourceMetadataUrl: new URL(resourceMetadataUrl as string) })).toBe('REDIRECT');
    expect(provider.information?.client_id).toEqual(expect.any(String));
    const authorizationUrl = provider.authorizationUrl as URL;
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl.searchParams.get('resource')).toEqual(expect.any(String));

    // The user signs in and allows the agent.
    const { callback } = await userAllows(p.origin, { email: p.email, password: PASSWORD }, authorizationUrl);
    expect(`${callback.origin}${callback.pathname}`).toBe(REDIRECT);

    expect(await auth(provider, { serverUrl: resourceUrl, resourceMetadataUrl: new URL(resourceMetadataUrl as string), authorizationCode: callback.searchParams.get('code') as string })).toBe('AUTHORIZED');
    const tokens = provider.saved as OAuthTokens;
    expect(tokens.refresh_token).toEqual(expect.any(String));
    // RFC 8707: the token is for the resource the SDK named.
    const claims = JSON.parse(Buffer.from(tokens.access_token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { aud: unknown };
    expect(claims.aud).toBe(authorizationUrl.searchParams.get('resource'));
    const me = await fetch(resourceUrl, { headers: { Authorization: `Bearer ${tokens.access_token}` } });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { userName: string }).userName).toBe(p.email);

    // With tokens saved, auth() refreshes (a public client's refresh token rotates).
    expect(await auth(provider, { serverUrl: resourceUrl, resourceMetadataUrl: new URL(resourceMetadataUrl as string) })).toBe('AUTHORIZED');
    const refreshed = provider.saved as OAuthTokens;
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect((await fetch(resourceUrl, { headers: { Authorization: `Bearer ${refreshed.access_token}` } })).status).toBe(200);
  }, 120_000);
});
