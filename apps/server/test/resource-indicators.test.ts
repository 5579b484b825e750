import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as oauth from 'oauth4webapi';
import { describe, expect, it } from 'vitest';
import { useServerOnEveryBackend } from './support/backends.js';
import { userAllows } from './support/browser.js';
import { PASSWORD, type Provisioned } from './support/fixture.js';
import { gatehouseJson } from './support/processes.js';

// An unmodified standards client (oauth4webapi) asking `gatehouse serve` for tokens of given
// resources (RFC 8707), discovering the server's own APIs through their RFC 9728 metadata, a
// resource server introspecting the tokens of its resource (RFC 7662 §2.1), and a client that
// registers itself (RFC 7591, managed by RFC 7592), on SQLite and PostgreSQL (docs/decisions/0110,
// 0111, 0112, 0115).

const { workspace, backends } = useServerOnEveryBackend('resources', 'the resource-indicator tests');

const MCP = 'https://mcp.example.com/mcp';
const REDIRECT_URI = 'http://127.0.0.1/callback';
const INSECURE = { [oauth.allowInsecureRequests]: true };

/** A provisioned server with an orders scope and the MCP resource configured, and its files. */
async function provision(name: string, env: Record<string, string>): Promise<Provisioned> {
  const scopesFile = join(workspace.dir, `${name}-scopes.json`);
  const resourcesFile = join(workspace.dir, `${name}-resources.json`);
  writeFileSync(scopesFile, JSON.stringify([{ scope: 'orders.v1.read', description: 'See your orders' }]));
  writeFileSync(resourcesFile, JSON.stringify([{ resource: MCP, name: 'Orders MCP', scopes: ['orders.v1.read'], accessTokenTtlSeconds: 900 }]));
  return workspace.provision(name, { ...env, GATEHOUSE_SCOPES_FILE: scopesFile, GATEHOUSE_RESOURCES_FILE: resourcesFile });
}

async function discover(origin: string): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(origin);
  return oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...INSECURE }));
}

/** The user signs in and presses Allow (the consent page names the resource); the URL the server redirected to. */
async function userAllowsAt(p: Provisioned, authorizationUrl: URL): Promise<URL> {
  const { consentPage, callback } = await userAllows(p.origin, { email: p.email, password: PASSWORD }, authorizationUrl);
  expect(consentPage).toContain('Orders MCP');
  return callback;
}

const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString()) as Record<string, unknown>;

describe.each(backends)('resource indicators with oauth4webapi against gatehouse serve on $name', ({ name, env }) => {
  it('discovers the APIs from their metadata, gets a token per resource (code, refresh), and each resource takes only its own', async () => {
    const p = await provision(`code-${name}`, env());
    const registered = await gatehouseJson<{ clientId: string }>(
      ['clients', 'create', '--public', '--name', 'Agent', '--redirect-uri', REDIRECT_URI, '--scope', 'orders.v1.read messaging.v1.read'],
      p.env,
    );
    await workspace.serve(p);

    // RFC 9728: the APIs' 401 names their metadata, which names the authorization server.
    const refused = await fetch(new URL('/identity/v1/Users/me', p.origin));
    expect(refused.status).toBe(401);
    const apis = new URL(p.origin);
    const metadataUrl = `${p.origin}/.well-known/oauth-protected-resource`;
    expect(refused.headers.get('www-authenticate')).toBe(`Bearer realm="gatehouse", resource_metadata="${metadataUrl}"`);
    const resourceServer = await oauth.processResourceDiscoveryResponse(apis, await oauth.resourceDiscoveryRequest(apis, INSECURE));
    expect(resourceServer).toMatchObject({ resource: p.origin, authorization_servers: [p.origin], resource_name: 'Gatehouse APIs', bearer_methods_supported: ['header'] });
    const as = await discover((resourceServer.authorization_servers as string[])[0] as string);
    const client: oauth.Client = { client_id: registered.clientId };

    // Authorize for two resources (RFC 8707 §2.1), exchange for one (§2.2).
    const codeVerifier = oauth.generateRandomCodeVerifier();
    const authorizationUrl = new URL(as.authorization_endpoint as string);
    authorizationUrl.search = new URLSearchParams([
      ['client_id', client.client_id],
      ['response_type', 'code'],
      ['redirect_uri', REDIRECT_URI],
      ['scope', 'orders.v1.read messaging.v1.read'],
      ['code_challenge', await oauth.calculatePKCECodeChallenge(codeVerifier)],
      ['code_challenge_method', 'S256'],
      ['resource', MCP],
      ['resource', p.origin],
    ]).toString();
    const params = oauth.validateAuthResponse(as, client, await userAllowsAt(p, authorizationUrl), oauth.expectNoState);
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT_URI, codeVerifier, { ...INSECURE, additionalParameters: { resource: MCP } }),
    );
    expect(claimsOf(tokens.access_token)).toMatchObject({ aud: MCP, scope: 'orders.v1.read' });
    expect(tokens.expires_in).toBe(900);

    // The APIs refuse the MCP token; a refresh narrows to the APIs, whose token they take.
    const wrongAudience = await oauth.protectedResourceRequest(tokens.access_token, 'GET', new URL('/identity/v1/Users/me', p.origin), undefined, undefined, INSECURE).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(wrongAudience).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
    expect((wrongAudience as oauth.WWWAuthenticateChallengeError).cause[0]).toMatchObject({ parameters: { error: 'invalid_token', resource_metadata: metadataUrl } });
    const forApis = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token as string, { ...INSECURE, additionalParameters: { resource: p.origin } }),
    );
    expect(claimsOf(forApis.access_token)).toMatchObject({ aud: p.origin, scope: 'messaging.v1.read' });
    const me = await oauth.protectedResourceRequest(forApis.access_token, 'GET', new URL('/identity/v1/Users/me', p.origin), undefined, undefined, INSECURE);
    expect(me.status).toBe(200);

    // Never wider: a resource the grant does not cover is invalid_target (a 400 JSON error).
    const wider = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), forApis.refresh_token as string, { ...INSECURE, additionalParameters: { resource: 'https://other.example.com' } });
    await expect(oauth.processRefreshTokenResponse(as, client, wider)).rejects.toMatchObject({ error: 'invalid_target', status: 400 });
  }, 120_000);

  it('a resource server introspects the tokens of its resource, and sees a revoked one inactive at once', async () => {
    const p = await provision(`introspect-${name}`, env());
    const machine = await gatehouseJson<{ clientId: string; clientSecret: string }>(
      ['clients', 'create', '--name', 'Nightly job', '--grant-type', 'client_credentials', '--scope', 'orders.v1.read'],
      p.env,
    );
    const server = await gatehouseJson<{ clientId: string; clientSecret: string; resourceServerFor: string[] }>(
      ['clients', 'create', '--name', 'Orders MCP server', '--grant-type', 'client_credentials', '--scope', 'orders.v1.read', '--resource-server-for', MCP],
      p.env,
    );
    expect(server.resourceServerFor).toEqual([MCP]);
    await workspace.serve(p);
    const as = await discover(p.origin);
    const job: oauth.Client = { client_id: machine.clientId };
    const jobAuth = oauth.ClientSecretBasic(machine.clientSecret);
    const rs: oauth.Client = { client_id: server.clientId };
    const rsAuth = oauth.ClientSecretBasic(server.clientSecret);

    const forMcp = await oauth.processClientCredentialsResponse(as, job, await oauth.clientCredentialsGrantRequest(as, job, jobAuth, { resource: MCP }, INSECURE));
    const plain = await oauth.processClientCredentialsResponse(as, job, await oauth.clientCredentialsGrantRequest(as, job, jobAuth, {}, INSECURE));
    expect(claimsOf(forMcp.access_token)).toMatchObject({ aud: MCP });
    const introspect = async (token: string) => oauth.processIntrospectionResponse(as, rs, await oauth.introspectionRequest(as, rs, rsAuth, token, INSECURE));
    expect(await introspect(forMcp.access_token)).toMatchObject({ active: true, aud: MCP, client_id: machine.clientId, scope: 'orders.v1.read' });
    expect(await introspect(plain.access_token)).toEqual({ active: false });

    await oauth.processRevocationResponse(await oauth.revocationRequest(as, job, jobAuth, forMcp.access_token, INSECURE));
    expect(await introspect(forMcp.access_token)).toEqual({ active: false });

    // Several resources at the token endpoint: one resource per token (invalid_target).
    const several = await oauth.clientCredentialsGrantRequest(as, job, jobAuth, [['resource', MCP], ['resource', p.origin]], INSECURE);
    await expect(oauth.processClientCredentialsResponse(as, job, several)).rejects.toMatchObject({ error: 'invalid_target', status: 400 });
  }, 120_000);

  it('registers itself (RFC 7591), gets a token for a resource, then reads and deletes its registration (RFC 7592)', async () => {
    const p = await provision(`register-${name}`, { ...env(), GATEHOUSE_REGISTRATION: 'open', GATEHOUSE_REGISTRATION_RESOURCES: MCP });
    await workspace.serve(p);
    const as = await discover(p.origin);
    expect(as.registration_endpoint).toBe(`${p.origin}/oauth/register`);
    const registered = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(as, { client_name: 'Agent', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none', scope: 'orders.v1.read', grant_types: ['authorization_code', 'refresh_token'] }, INSECURE),
    );
    expect(registered).toMatchObject({ client_name: 'Agent', token_endpoint_auth_method: 'none', application_type: 'native' });
    const client: oauth.Client = { client_id: registered.client_id };

    const codeVerifier = oauth.generateRandomCodeVerifier();
    const authorizationUrl = new URL(as.authorization_endpoint as string);
    authorizationUrl.search = new URLSearchParams({
      client_id: client.client_id,
      response_type: 'code',
      redirect_uri: REDIRECT_URI,
      scope: 'orders.v1.read',
      code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      resource: MCP,
    }).toString();
    const params = oauth.validateAuthResponse(as, client, await userAllowsAt(p, authorizationUrl), oauth.expectNoState);
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT_URI, codeVerifier, { ...INSECURE, additionalParameters: { resource: MCP } }));
    expect(claimsOf(tokens.access_token)).toMatchObject({ aud: MCP, client_id: client.client_id });

    // RFC 7592: read with the registration access token, which answers a new one (RFC 7592 §3,
    // docs/decisions/0185); delete with that one; the client is gone.
    const bearer = (token: unknown) => ({ Authorization: `Bearer ${token as string}` });
    const read = await fetch(registered.registration_client_uri as string, { headers: bearer(registered.registration_access_token) });
    expect(read.status).toBe(200);
    const information = (await read.json()) as Record<string, unknown>;
    expect(information).toMatchObject({ client_id: client.client_id, client_name: 'Agent', registration_access_token: expect.any(String) });
    expect(information.registration_access_token).not.toBe(registered.registration_access_token);
    expect((await fetch(registered.registration_client_uri as string, { method: 'DELETE', headers: bearer(information.registration_access_token) })).status).toBe(204);
    const refresh = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token as string, INSECURE);
    await expect(oauth.processRefreshTokenResponse(as, client, refresh)).rejects.toMatchObject({ status: 401 });
  }, 120_000);
});
