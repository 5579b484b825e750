import { createMemoryUserDirectory, s256Challenge } from '@gatehouse/core/testing';
import { DomainError } from '@gatehouse/core';
import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { completeGatehouseLogin } from '../embed/host-login.js';
import { authorizePath, basicAuth, createHostApp, createTestApp, formAction, linksOf, onwardOf } from '../test-support/index.js';

// Issue #28, "Security round 3": the probes that did not hold, tried again over HTTP as an attacker
// would, kept in CI (docs/decisions/0105 to 0109, docs/security.md).

const VERIFIER = 'v'.repeat(50);
const ATTACKER_VERIFIER = 'a'.repeat(50);

describe('1. a remembered consent is never replayed to another loopback port of a public client (RFC 8252 §8.6)', () => {
  it('asks again on any port, and prompt=none answers consent_required without a code', async () => {
    const t = await createTestApp();
    const user = await t.seedUser();
    const { client } = await t.gatehouse.registerClient({ name: 'Native app', redirectUris: ['http://127.0.0.1/native'], scopes: ['messaging.v1.read'], public: true });
    const browser = await t.signedInBrowser(user.email);
    // The user allows the real app once, on its port.
    const allowed = await browser.authorize(client, { redirect_uri: 'http://127.0.0.1:4000/native', code_challenge: s256Challenge(VERIFIER), code_challenge_method: 'S256' });
    expect(allowed.code).toBeDefined();

    // Another local program on port 31337, with its own PKCE challenge.
    const attacker = { redirect_uri: 'http://127.0.0.1:31337/native', code_challenge: s256Challenge(ATTACKER_VERIFIER), code_challenge_method: 'S256' };
    const silent = await browser.get(authorizePath(client, { ...attacker, prompt: 'none' }));
    expect(silent.status).toBe(302);
    const answer = new URL(silent.headers.location as string);
    expect(answer.port).toBe('31337');
    expect(answer.searchParams.get('error')).toBe('consent_required');
    expect(answer.searchParams.get('code')).toBeNull();
    const page = await browser.get(authorizePath(client, attacker));
    expect(page.status).toBe(200);
    expect(formAction(page.text, '/oauth/authorize/decision')).toBeDefined();
  });
});

describe('2. revoking an app stops its code in flight', () => {
  it('the held code is invalid_grant after the user revokes the app, and the app is not listed again', async () => {
    const t = await createTestApp();
    const user = await t.seedUser();
    const { client, clientSecret } = await t.seedClient({ name: 'Holder app' });
    const browser = await t.signedInBrowser(user.email);
    const { code } = await browser.authorize(client);

    const apps = await browser.get('/portal/authorized-apps');
    const revokeAction = linksOf(apps.text).find((link) => link.endsWith(`/${client.clientId}/revoke`)) as string;
    const confirm = await browser.get(revokeAction);
    const revoked = await browser.postForm(formAction(confirm.text, revokeAction) as string, {});
    expect(revoked.status).toBe(303);

    const exchanged = await request(t.app).post('/oauth/token').set('Authorization', basicAuth(client.clientId, clientSecret)).type('form').send({ grant_type: 'authorization_code', code, redirect_uri: client.redirectUris[0] });
    expect(exchanged.status).toBe(400);
    expect(exchanged.body).toMatchObject({ error: 'invalid_grant' });
    expect((await browser.get('/portal/authorized-apps')).text).not.toContain('Holder app');
  });
});

describe('3. prompt=login through the host\'s login page needs a sign-in newer than the request', () => {
  it('a host that hands over its old session is refused; the login request stays usable for a fresh one', async () => {
    const directory = createMemoryUserDirectory([{ userKey: 'host-1', email: 'ada@host.example', givenName: 'Ada', familyName: 'L' }]);
    const hostSignedInAt = new Date(0);
    const host = await createHostApp({
      routerOptions: { loginUrl: '/login' },
      gatehouse: { userDirectory: directory },
      beforeOwnRoutes: (app, t) => {
        // A host that sees its own (old) session and hands it over, whatever the request asks.
        app.get('/login', async (req, res) => {
          try {
            await completeGatehouseLogin(t.gatehouse, res, { loginRequest: String(req.query.login_request), userKey: 'host-1', authenticatedAt: hostSignedInAt });
          } catch (error) {
            if (!(error instanceof DomainError)) throw error;
            res.status(401).type('text/plain').send(`${error.kind} ${error.field ?? ''}`);
          }
        });
        app.post('/login', express.urlencoded({ extended: false }), async (req, res) => {
          await completeGatehouseLogin(t.gatehouse, res, { loginRequest: String(req.body.login_request), userKey: 'host-1', authenticatedAt: t.gatehouse.clock.now() });
        });
      },
    });
    const { client } = await host.seedClient({ scopes: ['messaging.v1.read'] });
    const agent = host.agent();
    const query = new URLSearchParams({ client_id: client.clientId, response_type: 'code', redirect_uri: client.redirectUris[0] as string, prompt: 'login' });
    const toLogin = await agent.get(`/auth/oauth/authorize?${query}`);
    const loginUrl = new URL(toLogin.headers.location as string, 'http://127.0.0.1');
    const stale = await agent.get(`${loginUrl.pathname}${loginUrl.search}`);
    expect(stale.status).toBe(401);
    expect(stale.text).toBe('unauthenticated authenticatedAt');
    expect(await host.gatehouse.describeLoginRequest(loginUrl.searchParams.get('login_request') as string)).toMatchObject({ promptLogin: true });
    // The host asks for the password: the same login request completes, and the flow goes on to consent.
    const fresh = await agent.post('/login').type('form').send({ login_request: loginUrl.searchParams.get('login_request') });
    expect(fresh.status).toBe(200);
    const consent = await agent.get(onwardOf(fresh));
    expect(consent.status).toBe(200);
  });
});

describe('4. what signed-out browsers make Gatehouse store is bounded', () => {
  it('limits login requests per address (429 with Retry-After), and refuses a request too long to keep', async () => {
    const host = await createHostApp({ routerOptions: { loginUrl: '/login', rateLimit: { maxFailures: 1000, windowSeconds: 60, maxAnonymousRequestsPerIp: 3 } } });
    const { client } = await host.seedClient();
    const path = `/auth/oauth/authorize?${new URLSearchParams({ client_id: client.clientId, response_type: 'code', redirect_uri: client.redirectUris[0] as string })}`;
    for (let attempt = 0; attempt < 3; attempt += 1) expect((await request(host.app).get(path)).status).toBe(302);
    const limited = await request(host.app).get(path);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.headers.location).toBeUndefined();
    expect(await host.repositories.interactions.createAnonymous({ interactionHash: 'probe', kind: 'login', returnTo: '/x', userKey: null, sessionId: null, createdAt: new Date(0), expiresAt: new Date(0), consumedAt: null }, 3)).toBe(false);

    const roomy = await createHostApp({ routerOptions: { loginUrl: '/login' } });
    const { client: other } = await roomy.seedClient();
    const long = await request(roomy.app).get(`/auth/oauth/authorize?${new URLSearchParams({ client_id: other.clientId, response_type: 'code', redirect_uri: other.redirectUris[0] as string, state: 's'.repeat(5_000) })}`);
    expect(long.status).toBe(400);
    expect(long.text).toContain('The authorization request is too long.');
  });
});

describe('5. refresh-token rotation never forks the grant (RFC 9700 §4.14.2)', () => {
  it('two clients racing with one token within the grace: one token stays live, the other\'s next use revokes the grant', async () => {
    const t = await createTestApp({ settings: { refreshToken: { rotate: true, reuseGraceSeconds: 10 } } });
    const user = await t.seedUser();
    const { client, clientSecret } = await t.seedClient();
    const { body } = await t.tokensOverHttp({ client, clientSecret, email: user.email });
    const refresh = (refreshToken: string) =>
      request(t.app).post('/oauth/token').set('Authorization', basicAuth(client.clientId, clientSecret)).type('form').send({ grant_type: 'refresh_token', refresh_token: refreshToken });
    const [first, second] = await Promise.all([refresh(body.refresh_token as string), refresh(body.refresh_token as string)]);
    expect([first?.status, second?.status]).toEqual([200, 200]);
    // Whichever lost, its token is dead: presenting it revokes the grant, the winner's token with it.
    const outcomes = [];
    for (const answer of [first, second]) outcomes.push((await refresh(answer?.body.refresh_token as string)).status);
    expect(outcomes.filter((status) => status === 400).length).toBeGreaterThanOrEqual(1);
    const afterwards = await Promise.all([first, second].map(async (answer) => (await refresh(answer?.body.refresh_token as string)).status));
    expect(afterwards).toEqual([400, 400]);
    const me = await request(t.app).get('/identity/v1/Users/me').set('Authorization', `Bearer ${first?.body.access_token as string}`);
    expect(me.status).toBe(401);
  });
});

describe('6. an ES256 signature\'s malleable twin (high S) gives nothing the token did not (docs/decisions/0125)', () => {
  it('verifies to the same claims, and one revocation ends both', async () => {
    const t = await createTestApp();
    const user = await t.seedUser();
    const { client, clientSecret } = await t.seedClient();
    const { body } = await t.tokensOverHttp({ client, clientSecret, email: user.email });
    const token = body.access_token as string;
    const twin = malleableTwin(token);
    expect(twin).not.toBe(token);
    const me = (bearer: string) => request(t.app).get('/identity/v1/Users/me').set('Authorization', `Bearer ${bearer}`);
    const [original, other] = await Promise.all([me(token), me(twin)]);
    expect(original.status).toBe(200);
    expect(other.status).toBe(200);
    expect(other.body).toEqual(original.body);
    const introspect = (bearer: string) => request(t.app).post('/oauth/introspect').set('Authorization', basicAuth(client.clientId, clientSecret)).type('form').send({ token: bearer });
    const [a, b] = await Promise.all([introspect(token), introspect(twin)]);
    expect(b.body).toEqual(a.body);
    // Revoking the twin (RFC 7009) revokes the grant: the original is refused at once too.
    expect((await request(t.app).post('/oauth/revoke').set('Authorization', basicAuth(client.clientId, clientSecret)).type('form').send({ token: twin })).status).toBe(200);
    expect((await me(token)).status).toBe(401);
    expect((await me(twin)).status).toBe(401);
  });
});

/** P-256's group order n: (r, s) and (r, n − s) are both valid ECDSA signatures of one message. */
const P256_ORDER = BigInt('0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551');

/** The token with its signature's S replaced by n − S (RFC 7518 §3.4: the signature is R ‖ S, 32 bytes each). */
function malleableTwin(token: string): string {
  const [header, payload, signature] = token.split('.') as [string, string, string];
  const bytes = Buffer.from(signature, 'base64url');
  const s = BigInt(`0x${bytes.subarray(32).toString('hex')}`);
  const twin = Buffer.concat([bytes.subarray(0, 32), Buffer.from((P256_ORDER - s).toString(16).padStart(64, '0'), 'hex')]);
  return `${header}.${payload}.${twin.toString('base64url')}`;
}
