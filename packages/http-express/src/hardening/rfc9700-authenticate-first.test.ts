import type { Client } from '@gatehouse/core';
import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { authorizePath, createTestApp } from '../test-support/index.js';
import { createHardenedApp, type Hardened } from './test-support/harness.js';

// RFC 9700 §4.11.2: the authorization server MUST authenticate the user before redirecting to a
// redirect URI, or else it is an open redirector for anyone who registers a client. Client and
// redirect URI errors are a 400 page (never a redirect); every other error reaches a signed-out
// browser only after sign-in.

const ISSUER = 'http://localhost:3000';
const ATTACKER_URI = 'https://evil.example/cb';

let h: Hardened;
let attacker: Client;

beforeAll(async () => {
  h = await createHardenedApp();
  // Anyone can register a client: its redirect URI is wherever the attacker wants.
  ({ client: attacker } = await h.seedClient({ name: 'Phish', redirectUris: [ATTACKER_URI], scopes: ['messaging.v1.read'] }));
});

/** Requests that fail after the client and redirect URI were trusted. */
function redirectErrorCases(client: Client): Array<[string, string]> {
  return [
    ['response_type=zz', authorizePath(client, { response_type: 'zz', state: 's' })],
    ['response_type=token', authorizePath(client, { response_type: 'token' })],
    ['no response_type', authorizePath(client, { response_type: undefined })],
    ['an unknown scope', authorizePath(client, { scope: 'admin.v1.everything' })],
    ['a scope the client lacks', authorizePath(client, { scope: 'messaging.v1.send' })],
    ['code_challenge_method=plain', authorizePath(client, { code_challenge: 'x'.repeat(43), code_challenge_method: 'plain' })],
    ['a challenge without a method', authorizePath(client, { code_challenge: 'x'.repeat(43) })],
    ['a method without a challenge', authorizePath(client, { code_challenge_method: 'S256' })],
    ['a repeated state', `${authorizePath(client, { state: 'a' })}&state=b`],
    ['a repeated scope', `${authorizePath(client)}&scope=x&scope=y`],
  ];
}

function expectLoginRedirect(res: request.Response, authorizeUrl: string, label: string): void {
  expect(res.status, label).toBeGreaterThanOrEqual(302);
  expect(res.status, label).toBeLessThanOrEqual(303);
  const location = res.headers.location as string;
  expect(location, label).toMatch(/^\/oauth\/login(\?|$)/);
  const resolved = new URL(location, ISSUER);
  expect(resolved.origin, label).toBe(ISSUER);
  expect(resolved.searchParams.get('return_to'), label).toBe(authorizeUrl);
  expect(location, label).not.toContain('evil.example/cb?');
}

describe('RFC 9700 §4.11.2: no redirect to the client before the user is authenticated', () => {
  it('a browser with no cookie at all is sent to the login page, never to the client', async () => {
    for (const [label, path] of redirectErrorCases(attacker)) {
      const res = await request(h.app).get(path);
      expectLoginRedirect(res, path, label);
    }
  });

  it('a forged or expired session cookie counts as signed out', async () => {
    const [label, path] = redirectErrorCases(attacker)[0] as [string, string];
    const forged = await request(h.app).get(path).set('Cookie', `gatehouse_session=${'A'.repeat(43)}`);
    expectLoginRedirect(forged, path, `${label}: forged`);
    const browser = await h.signedInBrowser('mel@example.com');
    h.clock.advance(h.settings.sessionTtlSeconds + 1);
    expectLoginRedirect(await browser.get(path), path, `${label}: expired`);
  });

  it('the consent decision, posted without a session, does not redirect to the client either', async () => {
    const anonymous = h.browser();
    await anonymous.get('/oauth/login').expect(200);
    for (const [label, path] of redirectErrorCases(attacker)) {
      const query = path.slice(path.indexOf('?') + 1);
      const res = await anonymous.postForm(`/oauth/authorize/decision?${query}`, { decision: 'allow' });
      expect([303, 403], label).toContain(res.status);
      if (res.status === 303) expectLoginRedirect(res, path, label);
      else expect(res.headers.location, label).toBeUndefined();
    }
  });

  it('client and redirect URI errors stay the 400 page with no Location, signed in or not', async () => {
    for (const path of [authorizePath(attacker, { redirect_uri: 'https://evil.example/other', response_type: 'zz' }), authorizePath({ clientId: 'nope', redirectUris: [ATTACKER_URI] }, { response_type: 'zz' })]) {
      const res = await request(h.app).get(path);
      expect(res.status, path).toBe(400);
      expect(res.headers.location, path).toBeUndefined();
      expect(res.text, path).toContain('This sign-in link is not valid');
    }
  });

  it('prompt=none with another error: no sign-in page (OIDC Core §3.1.2.1) and no redirect before sign-in; the error page says it', async () => {
    for (const path of [authorizePath(attacker, { response_type: 'zz', prompt: 'none', state: 's' }), authorizePath(attacker, { scope: 'admin.v1.everything', prompt: 'login none' })]) {
      const res = await request(h.app).get(path);
      expect(res.status, path).toBe(400);
      expect(res.headers.location, path).toBeUndefined();
      expect(res.text, path).toContain('This sign-in link is not valid');
      expect(res.text, path).not.toContain('type="password"');
    }
    // Signed in, the error goes to the client as any other.
    const browser = await h.signedInBrowser('ada@example.com');
    const signedIn = await browser.get(authorizePath(attacker, { response_type: 'zz', prompt: 'none' })).expect(302);
    expect(new URL(signedIn.headers.location as string).searchParams.get('error')).toBe('unsupported_response_type');
  });

  it('prompt=none of a client that registered itself: login_required on the error page, not at its redirect URI (docs/decisions/0184)', async () => {
    const t = await createTestApp({ settings: { registration: { policy: 'open' } } });
    const registered = await request(t.app)
      .post('/oauth/register')
      .send({ redirect_uris: [ATTACKER_URI], token_endpoint_auth_method: 'none', scope: 'messaging.v1.read' })
      .expect(201);
    const path = authorizePath({ clientId: registered.body.client_id as string, redirectUris: [ATTACKER_URI] }, { scope: 'messaging.v1.read', prompt: 'none', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' });
    const res = await request(t.app).get(path);
    expect(res.status).toBe(400);
    expect(res.headers.location).toBeUndefined();
    expect(res.text).toContain('login_required');
    expect(res.text).not.toContain('type="password"');
  });

  it('a client that registered itself gets nothing redirected, signed in or not, until the user has allowed it (docs/decisions/0198)', async () => {
    const t = await createTestApp({ settings: { registration: { policy: 'open' } } });
    await t.seedUser({ email: 'ada@example.com' });
    const registered = await request(t.app)
      .post('/oauth/register')
      .send({ redirect_uris: [ATTACKER_URI], token_endpoint_auth_method: 'none', scope: 'messaging.v1.read' })
      .expect(201);
    const phish = { clientId: registered.body.client_id as string, redirectUris: [ATTACKER_URI] };
    const browser = await t.signedInBrowser('ada@example.com');
    const pkce = { code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' };
    for (const [label, path] of [
      ...redirectErrorCases({ ...phish } as Client),
      ['prompt=none, never allowed', authorizePath(phish, { scope: 'messaging.v1.read', prompt: 'none', ...pkce })],
    ] as Array<[string, string]>) {
      const res = await browser.get(path);
      expect(res.status, label).toBe(400);
      expect(res.headers.location, label).toBeUndefined();
      expect(res.text, label).not.toContain('evil.example');
    }
  });

  it('after sign-in the request is evaluated again, and only then its error goes to the client', async () => {
    for (const [label, path] of redirectErrorCases(attacker)) {
      const anonymous = h.browser();
      const first = await anonymous.get(path);
      expectLoginRedirect(first, path, label);
      const login = await anonymous.signIn('ada@example.com', 'password123', path);
      expect(login.status, label).toBe(303);
      expect(login.headers.location, label).toBe(path);
      const again = await anonymous.get(path);
      expect(again.status, label).toBe(302);
      const location = new URL(again.headers.location as string);
      expect(`${location.origin}${location.pathname}`, label).toBe(ATTACKER_URI);
      expect(location.searchParams.get('error'), label).toMatch(/^(invalid_request|unsupported_response_type|invalid_scope)$/);
      expect(location.searchParams.get('iss'), label).toBe(ISSUER);
      expect(location.searchParams.get('code'), label).toBeNull();
    }
  });
});
