import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { discoverAuthorizationServerMetadata, discoverOAuthProtectedResourceMetadata, extractWWWAuthenticateParams, selectResourceURL } from '@modelcontextprotocol/sdk/client/auth.js';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { createContainer, resolve, TOKENS } from '../container.js';

// RFC 9728 §3.3: a client that followed a challenge's resource_metadata uses the document only when
// its `resource` is the resource it asked; the MCP SDK checks that it is a prefix of the URL it
// requested. The reference server's own APIs: their resource identifier (the issuer), their
// metadata, their challenges and their tokens' aud agree with where they are served, for a root
// issuer and for one with a path (docs/decisions/0183-resource-and-issuer-urls-agree.md).

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-own-apis-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ORIGIN = 'http://localhost:3118';
let databases = 0;

/** The reference server for `issuer`, listening on a free loopback port; `fetchAt` fetches the issuer's URLs from it. */
async function withServer(issuer: string, body: (services: Awaited<ReturnType<typeof createContainer>>, fetchAt: typeof fetch) => Promise<void>): Promise<void> {
  const config = loadConfig({ GATEHOUSE_ISSUER: issuer, GATEHOUSE_DB: join(dir, `server${(databases += 1)}.db`), GATEHOUSE_LOG_LEVEL: 'silent', GATEHOUSE_DEMO: 'false' });
  const services = await createContainer(config, { logDestination: { write: () => undefined } });
  const server = resolve(services, TOKENS.httpApp).listen(0, '127.0.0.1');
  await new Promise<void>((done) => server.once('listening', done));
  const local = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const fetchAt: typeof fetch = (input, init) => fetch(String(input instanceof Request ? input.url : input).replace(ORIGIN, local), init);
  try {
    await body(services, fetchAt);
  } finally {
    await new Promise<void>((done) => server.close(() => done()));
    await resolve(services, TOKENS.storage).close();
  }
}

/** A user's access token for the reference server's APIs through the authorization code flow, asking for `resource` (RFC 8707). */
async function accessTokenFor(services: Awaited<ReturnType<typeof createContainer>>, resource: string): Promise<string> {
  const gatehouse = resolve(services, TOKENS.gatehouse);
  const user = await resolve(services, TOKENS.product).createUser({ email: 'ada@example.com', password: 'correct horse battery' });
  const { client, clientSecret } = await gatehouse.registerClient({ name: 'Agent', redirectUris: ['http://127.0.0.1/callback'], scopes: ['messaging.v1.read'], pkceRequired: false });
  expect(clientSecret).not.toBeNull();
  const check = await gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', redirect_uri: 'http://127.0.0.1/callback', scope: 'messaging.v1.read', resource });
  if (check.kind !== 'valid') throw check.error;
  const { redirectTo } = await gatehouse.approveAuthorization({ request: check.request, userKey: user.userKey, sessionId: null });
  const code = new URL(redirectTo).searchParams.get('code') as string;
  const tokens = await gatehouse.exchangeCode({ client, code, redirectUri: 'http://127.0.0.1/callback', codeVerifier: undefined, resource });
  return tokens.access_token;
}

function audienceOf(token: string): unknown {
  return (JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString('utf8')) as { aud: unknown }).aud;
}

describe("the reference server's own APIs as a protected resource (RFC 9728, RFC 8707)", () => {
  it('for a root issuer and one with a path, the MCP SDK follows the challenge of Users/me to metadata it accepts, and the token for that resource is taken', async () => {
    const cases = [
      { issuer: ORIGIN, usersMe: `${ORIGIN}/identity/v1/Users/me`, metadataUrl: `${ORIGIN}/.well-known/oauth-protected-resource` },
      { issuer: `${ORIGIN}/auth`, usersMe: `${ORIGIN}/auth/identity/v1/Users/me`, metadataUrl: `${ORIGIN}/.well-known/oauth-protected-resource/auth` },
    ];
    for (const { issuer, usersMe, metadataUrl } of cases) {
      await withServer(issuer, async (services, fetchAt) => {
        const challenged = await fetchAt(usersMe);
        expect(challenged.status, issuer).toBe(401);
        const { resourceMetadataUrl } = extractWWWAuthenticateParams(challenged);
        expect(resourceMetadataUrl?.href, issuer).toBe(metadataUrl);

        const metadata = await discoverOAuthProtectedResourceMetadata(usersMe, { resourceMetadataUrl: resourceMetadataUrl as URL }, fetchAt);
        expect(metadata, issuer).toMatchObject({ resource: issuer, authorization_servers: [issuer], resource_name: 'Gatehouse APIs' });
        // The SDK's check: the metadata's resource covers the URL requested (origin, path prefix).
        const selected = await selectResourceURL(usersMe, {} as OAuthClientProvider, metadata);
        expect(selected?.href, issuer).toBe(new URL(issuer).href);
        const authorizationServer = await discoverAuthorizationServerMetadata(metadata.authorization_servers?.[0] as string, { fetchFn: fetchAt });
        expect(authorizationServer?.issuer, issuer).toBe(issuer);

        // The token asked for that resource (as the SDK sends it: the metadata's string) has it as aud and is taken there.
        const token = await accessTokenFor(services, metadata.resource);
        expect(audienceOf(token), issuer).toBe(issuer);
        const me = await fetchAt(usersMe, { headers: { Authorization: `Bearer ${token}` } });
        expect(me.status, issuer).toBe(200);
        expect(((await me.json()) as { userName: string }).userName, issuer).toBe('ada@example.com');
        // Not served where the resource identifier would not cover them.
        if (issuer !== ORIGIN) expect((await fetchAt(`${ORIGIN}/identity/v1/Users/me`, { headers: { Authorization: `Bearer ${token}` } })).status).toBe(404);
      });
    }
  });
});
