import * as oauth from 'oauth4webapi';
import { describe, expect, it } from 'vitest';
import { useServerOnEveryBackend } from './support/backends.js';
import { userAllows } from './support/browser.js';
import { PASSWORD, type Provisioned } from './support/fixture.js';
import { gatehouseJson } from './support/processes.js';

// An unmodified standards client (oauth4webapi) against the real `gatehouse serve`, on SQLite and
// PostgreSQL: a public client (authorization code + PKCE, client auth None(), rotated refresh
// tokens, RFC 8252 loopback port), and a confidential client with client_credentials
// (ClientSecretBasic), whose token the user APIs refuse (docs/decisions/0027-0029).

const { workspace, backends } = useServerOnEveryBackend('standards', 'the standards-client tests');

/** The registered loopback redirect URI, without a port (RFC 8252 §7.3), and the one the native app listens on. */
const REGISTERED_LOOPBACK = 'http://127.0.0.1/callback';
const LISTENING_LOOPBACK = 'http://127.0.0.1:9/callback';
/** oauth4webapi refuses http unless told: the test server is on loopback http. */
const INSECURE = { [oauth.allowInsecureRequests]: true };

async function discover(origin: string): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(origin);
  const response = await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...INSECURE });
  return oauth.processDiscoveryResponse(issuer, response);
}

/** A user in a browser: sign in on the login page, press Allow; returns the URL the server redirected to. */
async function userAllowsAt(p: Provisioned, authorizationUrl: URL): Promise<URL> {
  return (await userAllows(p.origin, { email: p.email, password: PASSWORD }, authorizationUrl)).callback;
}

/** oauth4webapi turns a 401 with a Bearer challenge into an error carrying the challenge (RFC 6750 §3). */
async function expectInvalidToken(request: Promise<Response>): Promise<void> {
  const error = await request.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
  const challenge = error as oauth.WWWAuthenticateChallengeError;
  expect(challenge.status).toBe(401);
  expect(challenge.cause[0]).toMatchObject({ scheme: 'bearer', parameters: { error: 'invalid_token' } });
}

describe.each(backends)('oauth4webapi against gatehouse serve on $name', ({ name, env }) => {
  it('a public client: authorization code + PKCE with None() client auth, a loopback port, rotated refresh tokens, revocation', async () => {
    const p = await workspace.provision(`public-${name}`, env());
    const registered = await gatehouseJson<{ clientId: string; clientSecret: string | null; grantTypes: string[] }>(
      ['clients', 'create', '--public', '--name', 'Native app', '--redirect-uri', REGISTERED_LOOPBACK, '--scope', 'messaging.v1.read'],
      p.env,
    );
    expect(registered.clientSecret).toBeNull();
    await workspace.serve(p);

    const as = await discover(p.origin);
    expect(as.token_endpoint_auth_methods_supported).toContain('none');
    const client: oauth.Client = { client_id: registered.clientId };
    const clientAuth = oauth.None();

    const codeVerifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const authorizationUrl = new URL(as.authorization_endpoint as string);
    authorizationUrl.search = new URLSearchParams({
      client_id: client.client_id,
      response_type: 'code',
      redirect_uri: LISTENING_LOOPBACK,
      scope: 'messaging.v1.read',
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
    }).toString();
    const callback = await userAllowsAt(p, authorizationUrl);
    expect(`${callback.origin}${callback.pathname}`).toBe(LISTENING_LOOPBACK);

    // RFC 9207: oauth4webapi checks iss (the metadata says it is always sent) and state.
    const params = oauth.validateAuthResponse(as, client, callback, state);
    const tokenResponse = await oauth.authorizationCodeGrantRequest(as, client, clientAuth, params, LISTENING_LOOPBACK, codeVerifier, INSECURE);
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, tokenResponse);
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.scope).toBe('messaging.v1.read');
    expect(tokens.refresh_token).toEqual(expect.any(String));

    const me = await oauth.protectedResourceRequest(tokens.access_token, 'GET', new URL('/identity/v1/Users/me', p.origin), undefined, undefined, INSECURE);
    expect(me.status).toBe(200);
    expect(((await me.json()) as { userName: string }).userName).toBe(p.email);

    // Refresh: always rotated for a public client (the deployment's rotation is off by default).
    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token as string, INSECURE),
    );
    expect(refreshed.refresh_token).toEqual(expect.any(String));
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);

    // Revocation by client_id alone (RFC 7009 §5): the grant's tokens stop working at once.
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, clientAuth, refreshed.refresh_token as string, INSECURE));
    await expectInvalidToken(oauth.protectedResourceRequest(refreshed.access_token, 'GET', new URL('/identity/v1/Users/me', p.origin), undefined, undefined, INSECURE));
  }, 120_000);

  it('a public client presenting a reused rotated refresh token loses the grant', async () => {
    const p = await workspace.provision(`reuse-${name}`, { ...env(), GATEHOUSE_REFRESH_REUSE_GRACE_SECONDS: '0' });
    const registered = await gatehouseJson<{ clientId: string }>(
      ['clients', 'create', '--public', '--name', 'SPA', '--redirect-uri', REGISTERED_LOOPBACK, '--scope', 'messaging.v1.read'],
      p.env,
    );
    await workspace.serve(p);
    const as = await discover(p.origin);
    const client: oauth.Client = { client_id: registered.clientId };
    const codeVerifier = oauth.generateRandomCodeVerifier();
    const authorizationUrl = new URL(as.authorization_endpoint as string);
    authorizationUrl.search = new URLSearchParams({
      client_id: client.client_id,
      response_type: 'code',
      redirect_uri: REGISTERED_LOOPBACK,
      code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
    }).toString();
    const params = oauth.validateAuthResponse(as, client, await userAllowsAt(p, authorizationUrl), oauth.expectNoState);
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REGISTERED_LOOPBACK, codeVerifier, INSECURE),
    );
    const next = await oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token as string, INSECURE));
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const reused = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token as string, INSECURE);
    await expect(oauth.processRefreshTokenResponse(as, client, reused)).rejects.toMatchObject({ error: 'invalid_grant' });
    const revoked = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), next.refresh_token as string, INSECURE);
    await expect(oauth.processRefreshTokenResponse(as, client, revoked)).rejects.toMatchObject({ error: 'invalid_grant' });
  }, 120_000);

  it('a confidential client: client_credentials with ClientSecretBasic; Users/me refuses its token with a 403 problem', async () => {
    const p = await workspace.provision(`machine-${name}`, env());
    const registered = await gatehouseJson<{ clientId: string; clientSecret: string }>(
      ['clients', 'create', '--name', 'Nightly job', '--grant-type', 'client_credentials', '--scope', 'messaging.v1.read admin.v1.attributes.read'],
      p.env,
    );
    await workspace.serve(p);
    const as = await discover(p.origin);
    expect(as.grant_types_supported).toContain('client_credentials');
    const client: oauth.Client = { client_id: registered.clientId };
    const clientAuth = oauth.ClientSecretBasic(registered.clientSecret);

    const response = await oauth.clientCredentialsGrantRequest(as, client, clientAuth, new URLSearchParams({ scope: 'messaging.v1.read' }), INSECURE);
    const tokens = await oauth.processClientCredentialsResponse(as, client, response);
    expect(tokens.scope).toBe('messaging.v1.read');
    expect(tokens.refresh_token).toBeUndefined();
    const claims = JSON.parse(Buffer.from(tokens.access_token.split('.')[1] as string, 'base64url').toString()) as Record<string, unknown>;
    expect(claims).toMatchObject({ sub: registered.clientId, client_id: registered.clientId });
    expect(claims).not.toHaveProperty('principal');

    const introspection = await oauth.processIntrospectionResponse(as, client, await oauth.introspectionRequest(as, client, clientAuth, tokens.access_token, INSECURE));
    expect(introspection).toMatchObject({ active: true, sub: registered.clientId, client_id: registered.clientId });

    const me = await oauth.protectedResourceRequest(tokens.access_token, 'GET', new URL('/identity/v1/Users/me', p.origin), undefined, undefined, INSECURE);
    expect(me.status).toBe(403);
    expect(me.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await me.json()).toMatchObject({ status: 403, errorCode: 'FORBIDDEN' });

    // Revoked: refused at once.
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, clientAuth, tokens.access_token, INSECURE));
    await expectInvalidToken(oauth.protectedResourceRequest(tokens.access_token, 'GET', new URL('/identity/v1/Users/me', p.origin), undefined, undefined, INSECURE));
  }, 120_000);
});
