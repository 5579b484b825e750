import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';
import { describe, expect, it } from 'vitest';
import { useServerOnEveryBackend } from './support/backends.js';
import { Browser, formWithAction } from './support/browser.js';
import { PASSWORD, type Provisioned } from './support/fixture.js';
import { gatehouseJson } from './support/processes.js';

// Unmodified OpenID Connect relying parties against the real `gatehouse serve`, on SQLite and
// PostgreSQL (SPEC §9; docs/decisions/0130-0136): oauth4webapi's OpenID functions (nonce, ID token
// claims, UserInfo) and openid-client 6 in its default OpenID Connect mode (discovery, the code
// flow with PKCE and nonce, UserInfo, refresh, prompt=none, RP-initiated logout).

const { workspace, backends } = useServerOnEveryBackend('openid', 'the OpenID Connect interop tests');

const REDIRECT_URI = 'http://127.0.0.1:9/callback';
const SIGNED_OUT_URI = 'http://127.0.0.1:9/signed-out';
const INSECURE = { [oauth.allowInsecureRequests]: true };

/** A confidential OpenID client registered with the CLI on a provisioned database. */
async function registerSite(p: Provisioned, extra: string[] = []): Promise<{ clientId: string; clientSecret: string }> {
  return gatehouseJson<{ clientId: string; clientSecret: string }>(
    ['clients', 'create', '--name', 'Relying party', '--redirect-uri', REDIRECT_URI, '--post-logout-redirect-uri', SIGNED_OUT_URI, '--scope', 'openid profile email phone offline_access messaging.v1.read', ...extra],
    p.env,
  );
}

/** A browser signed in to Gatehouse: it signs in at the first authorization request and presses Allow when asked. */
class User {
  readonly browser: Browser;
  constructor(private readonly p: Provisioned) {
    this.browser = new Browser(p.origin);
  }

  /** Opens an authorization URL; signs in and allows when the pages ask; returns where the server sent the browser back to the client. */
  async authorize(url: URL): Promise<URL> {
    let page = await this.browser.navigate('GET', url.pathname + url.search);
    if (page.status === 200) {
      let html = await page.text();
      if (html.includes('action="/oauth/login"')) {
        const login = formWithAction(html, '/oauth/login');
        page = await this.browser.navigate('POST', login.action, { ...login.hidden, email: this.p.email, password: PASSWORD });
        if (page.status === 200) html = await page.text();
      }
      if (page.status === 200) {
        const consent = formWithAction(html, '/oauth/authorize');
        page = await this.browser.navigate('POST', consent.action, { ...consent.hidden, decision: 'allow' });
      }
    }
    expect(page.status).toBe(302);
    return new URL(page.headers.get('location') as string);
  }
}

describe.each(backends)('OpenID Connect relying parties against gatehouse serve on $name', ({ name, env }) => {
  it('oauth4webapi: discovery in OIDC mode, the code flow with nonce, the ID token claims, UserInfo', async () => {
    const p = await workspace.provision(`o4w-${name}`, env());
    const site = await registerSite(p);
    await workspace.serve(p);

    const issuer = new URL(p.origin);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...INSECURE }));
    expect(as).toMatchObject({ userinfo_endpoint: `${p.origin}/oauth/userinfo`, id_token_signing_alg_values_supported: ['RS256', 'ES256'] });
    const rp: oauth.Client = { client_id: site.clientId };
    const clientAuth = oauth.ClientSecretBasic(site.clientSecret);

    const codeVerifier = oauth.generateRandomCodeVerifier();
    const nonce = oauth.generateRandomNonce();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint as string);
    url.search = new URLSearchParams({
      client_id: rp.client_id,
      response_type: 'code',
      redirect_uri: REDIRECT_URI,
      scope: 'openid profile email',
      state,
      nonce,
      code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
    }).toString();
    const callback = await new User(p).authorize(url);
    const params = oauth.validateAuthResponse(as, rp, callback, state);
    const response = await oauth.authorizationCodeGrantRequest(as, rp, clientAuth, params, REDIRECT_URI, codeVerifier, INSECURE);
    // oauth4webapi checks the ID token: signature (RS256, the JWKS), iss, aud, exp, iat, nonce, at_hash, auth_time.
    const tokens = await oauth.processAuthorizationCodeResponse(as, rp, response, { expectedNonce: nonce, requireIdToken: true });
    const claims = oauth.getValidatedIdTokenClaims(tokens);
    expect(claims).toMatchObject({ iss: p.origin, sub: p.userKey, aud: site.clientId, nonce, amr: ['pwd'] });
    expect(claims?.auth_time).toEqual(expect.any(Number));
    expect(claims?.sid).toEqual(expect.any(String));

    const info = await oauth.processUserInfoResponse(as, rp, p.userKey, await oauth.userInfoRequest(as, rp, tokens.access_token, INSECURE));
    expect(info).toEqual({ sub: p.userKey, name: 'Ada Lovelace', given_name: 'Ada', family_name: 'Lovelace', locale: 'en-US', email: p.email });
  }, 120_000);

  it('openid-client 6: discovery, code flow with PKCE and nonce, UserInfo, refresh with a new ID token, prompt=none, ES256 per client, logout', async () => {
    const p = await workspace.provision(`oc-${name}`, env());
    const site = await registerSite(p);
    await workspace.serve(p);

    // The default (OpenID Connect) discovery: <issuer>/.well-known/openid-configuration.
    const config = await client.discovery(new URL(p.origin), site.clientId, site.clientSecret, undefined, { execute: [client.allowInsecureRequests] });
    expect(config.serverMetadata().issuer).toBe(p.origin);
    const codeVerifier = client.randomPKCECodeVerifier();
    const nonce = client.randomNonce();
    const state = client.randomState();
    const user = new User(p);
    const callback = await user.authorize(
      client.buildAuthorizationUrl(config, {
        redirect_uri: REDIRECT_URI,
        scope: 'openid profile email phone offline_access',
        code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
        nonce,
        state,
      }),
    );
    const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: codeVerifier, expectedNonce: nonce, expectedState: state, idTokenExpected: true });
    const claims = tokens.claims();
    expect(claims).toMatchObject({ sub: p.userKey, aud: site.clientId, nonce });

    const info = await client.fetchUserInfo(config, tokens.access_token, p.userKey);
    expect(info).toMatchObject({ sub: p.userKey, email: p.email, phone_number: '+15551234567', name: 'Ada Lovelace' });

    // OIDC Core §12.2: the refresh's ID token has the same sub and auth_time, and no nonce.
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token as string);
    const again = refreshed.claims();
    expect(again).toMatchObject({ sub: claims?.sub, auth_time: claims?.auth_time });
    expect(again).not.toHaveProperty('nonce');

    // prompt=none: the signed-in browser gets a code at once; the ID token of the first sign-in is a good hint.
    const silentState = client.randomState();
    const silent = await user.authorize(client.buildAuthorizationUrl(config, { redirect_uri: REDIRECT_URI, scope: 'openid profile', prompt: 'none', id_token_hint: tokens.id_token as string, state: silentState }));
    const silentTokens = await client.authorizationCodeGrant(config, silent, { expectedState: silentState, idTokenExpected: true });
    expect(silentTokens.claims()?.sub).toBe(p.userKey);
    // A browser that is not signed in: login_required, which openid-client raises.
    const stranger = new Browser(p.origin);
    const strangerState = client.randomState();
    const refused = await stranger.request('GET', client.buildAuthorizationUrl(config, { redirect_uri: REDIRECT_URI, scope: 'openid', prompt: 'none', state: strangerState }).toString());
    expect(refused.status).toBe(302);
    await expect(client.authorizationCodeGrant(config, new URL(refused.headers.get('location') as string), { expectedState: strangerState })).rejects.toMatchObject({ error: 'login_required' });

    // A client registered for ES256 ID tokens (id_token_signed_response_alg).
    const es = await registerSite(p, ['--id-token-signed-response-alg', 'ES256']);
    const esConfig = await client.discovery(new URL(p.origin), es.clientId, { client_secret: es.clientSecret, id_token_signed_response_alg: 'ES256' }, undefined, {
      execute: [client.allowInsecureRequests],
    });
    const esNonce = client.randomNonce();
    const esCallback = await user.authorize(client.buildAuthorizationUrl(esConfig, { redirect_uri: REDIRECT_URI, scope: 'openid', nonce: esNonce }));
    const esTokens = await client.authorizationCodeGrant(esConfig, esCallback, { expectedNonce: esNonce, idTokenExpected: true });
    expect(JSON.parse(Buffer.from((esTokens.id_token as string).split('.')[0] as string, 'base64url').toString())).toMatchObject({ alg: 'ES256' });

    // RP-Initiated Logout: the end-session URL openid-client builds from discovery, with the ID
    // token of this sign-in as hint: no confirmation, back to the registered URI with the state.
    const logoutState = client.randomState();
    const endSession = client.buildEndSessionUrl(config, { id_token_hint: tokens.id_token as string, post_logout_redirect_uri: SIGNED_OUT_URI, state: logoutState });
    const signedOut = await user.browser.request('GET', endSession.toString());
    expect(signedOut.status).toBe(303);
    expect(signedOut.headers.get('location')).toBe(`${SIGNED_OUT_URI}?state=${logoutState}`);
    // The sign-in is over, and so is the access it gave: prompt=none now says login_required, the tokens are refused.
    const afterState = client.randomState();
    const after = await user.browser.request('GET', client.buildAuthorizationUrl(config, { redirect_uri: REDIRECT_URI, scope: 'openid', prompt: 'none', state: afterState }).toString());
    await expect(client.authorizationCodeGrant(config, new URL(after.headers.get('location') as string), { expectedState: afterState })).rejects.toMatchObject({ error: 'login_required' });
    await expect(client.fetchUserInfo(config, tokens.access_token, p.userKey)).rejects.toMatchObject({ status: 401 });
  }, 180_000);

  it('without openid nothing changes: an OAuth request of an OpenID client gets no ID token, and UserInfo refuses its token', async () => {
    const p = await workspace.provision(`oauth-${name}`, env());
    const site = await registerSite(p);
    await workspace.serve(p);
    const config = await client.discovery(new URL(p.origin), site.clientId, site.clientSecret, undefined, { execute: [client.allowInsecureRequests] });
    const codeVerifier = client.randomPKCECodeVerifier();
    const callback = await new User(p).authorize(
      client.buildAuthorizationUrl(config, { redirect_uri: REDIRECT_URI, scope: 'messaging.v1.read', code_challenge: await client.calculatePKCECodeChallenge(codeVerifier), code_challenge_method: 'S256' }),
    );
    const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: codeVerifier });
    expect(tokens.id_token).toBeUndefined();
    expect(tokens.scope).toBe('messaging.v1.read');
    await expect(client.fetchUserInfo(config, tokens.access_token, client.skipSubjectCheck)).rejects.toMatchObject({ status: 403 });
  }, 120_000);
});
