import * as oauth from 'oauth4webapi';
import { describe, expect, it } from 'vitest';
import { useServerOnEveryBackend } from './support/backends.js';
import { Browser, formWithAction } from './support/browser.js';
import { PASSWORD, type Provisioned } from './support/fixture.js';

// Remembered consent and prompt=none against the real `gatehouse serve`, driven by an unmodified
// standards client (oauth4webapi): discovery, PKCE, RFC 9207 `iss` checks and the token request are
// the library's (docs/decisions/0095-remembered-consent.md). On SQLite, and on PostgreSQL when
// GATEHOUSE_TEST_POSTGRES_URL is set (a fresh schema, dropped after).

const { workspace, backends } = useServerOnEveryBackend('consent', 'the remembered-consent tests');

const SCOPE = 'messaging.v1.read';

interface StandardClient {
  as: oauth.AuthorizationServer;
  client: oauth.Client;
  auth: oauth.ClientAuth;
}

async function standardClient(p: Provisioned): Promise<StandardClient> {
  const issuer = new URL(p.origin);
  const discovered = await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', [oauth.allowInsecureRequests]: true });
  return { as: await oauth.processDiscoveryResponse(issuer, discovered), client: { client_id: p.clientId }, auth: oauth.ClientSecretBasic(p.clientSecret) };
}

/** The library's authorization request: PKCE S256 and a random state. */
async function authorizationRequest(c: StandardClient, redirectUri: string, extra: Record<string, string> = {}) {
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(c.as.authorization_endpoint as string);
  url.search = new URLSearchParams({
    client_id: c.client.client_id,
    response_type: 'code',
    redirect_uri: redirectUri,
    scope: SCOPE,
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    ...extra,
  }).toString();
  return { url, codeVerifier, state };
}

/** Where the server sent the browser back to the client (a redirect to another origin). */
function callbackOf(response: Response, redirectUri: string): URL {
  expect(response.status).toBe(302);
  const location = new URL(response.headers.get('location') as string);
  expect(`${location.origin}${location.pathname}`).toBe(redirectUri);
  return location;
}

async function exchange(c: StandardClient, callback: URL, state: string, redirectUri: string, codeVerifier: string): Promise<oauth.TokenEndpointResponse> {
  const params = oauth.validateAuthResponse(c.as, c.client, callback, state);
  const response = await oauth.authorizationCodeGrantRequest(c.as, c.client, c.auth, params, redirectUri, codeVerifier, { [oauth.allowInsecureRequests]: true });
  return oauth.processAuthorizationCodeResponse(c.as, c.client, response);
}

describe.each(backends)('remembered consent with a standards client against gatehouse serve on $name', ({ name, env }) => {
  it('the second authorization skips the consent page; prompt=none answers at once', async () => {
    const p = await workspace.provision(`remembered-${name}`, env());
    const server = await workspace.serve(p);
    const c = await standardClient(p);
    const browser = new Browser(p.origin);

    // prompt=none before anyone signed in: login_required, at once, with iss (RFC 9207).
    const signedOut = await authorizationRequest(c, p.redirectUri, { prompt: 'none' });
    const loginRequired = callbackOf(await browser.navigate('GET', signedOut.url.toString()), p.redirectUri);
    expect(() => oauth.validateAuthResponse(c.as, c.client, loginRequired, signedOut.state)).toThrow(expect.objectContaining({ error: 'login_required' }));

    // First authorization: login, consent page, Allow.
    const first = await authorizationRequest(c, p.redirectUri);
    const loginPage = await browser.navigate('GET', first.url.toString());
    const login = formWithAction(await loginPage.text(), '/oauth/login');
    const consentPage = await browser.navigate('POST', login.action, { ...login.hidden, email: p.email, password: PASSWORD });
    expect(consentPage.status).toBe(200);
    const consent = formWithAction(await consentPage.text(), '/oauth/authorize/decision');
    const allowed = callbackOf(await browser.navigate('POST', consent.action, { ...consent.hidden, decision: 'allow' }), p.redirectUri);
    const firstTokens = await exchange(c, allowed, first.state, p.redirectUri, first.codeVerifier);
    expect(firstTokens).toMatchObject({ token_type: 'bearer', scope: SCOPE });

    // Second authorization: the server answers the authorize URL itself with the code.
    const second = await authorizationRequest(c, p.redirectUri);
    const skipped = callbackOf(await browser.request('GET', second.url.toString()), p.redirectUri);
    const secondTokens = await exchange(c, skipped, second.state, p.redirectUri, second.codeVerifier);
    expect(secondTokens.access_token).not.toBe(firstTokens.access_token);
    expect(secondTokens).toMatchObject({ scope: SCOPE });

    // prompt=none, signed in with the consent remembered: a code at once.
    const silent = await authorizationRequest(c, p.redirectUri, { prompt: 'none' });
    const silentTokens = await exchange(c, callbackOf(await browser.request('GET', silent.url.toString()), p.redirectUri), silent.state, p.redirectUri, silent.codeVerifier);
    expect(silentTokens).toMatchObject({ scope: SCOPE });

    // prompt=none for a scope never allowed: consent_required.
    const more = await authorizationRequest(c, p.redirectUri, { prompt: 'none', scope: `${SCOPE} messaging.v1.send` });
    const consentRequired = callbackOf(await browser.request('GET', more.url.toString()), p.redirectUri);
    expect(() => oauth.validateAuthResponse(c.as, c.client, consentRequired, more.state)).toThrow(expect.objectContaining({ error: 'consent_required' }));

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    const audit = server.logs.filter((line) => line.audit === true).map((line) => line.event);
    expect(audit.filter((event) => event === 'consent.granted')).toHaveLength(1);
    expect(audit.filter((event) => event === 'consent.remembered')).toHaveLength(2);
  }, 120_000);
});
