import { describe, expect, it } from 'vitest';
import { createTestGatehouse } from '@gatehouse/core/testing';
import { sha256 } from '../crypto.js';
import { storedSecretHash } from '../domain/time-ordered-secret.js';
import type { AuthorizingUser } from './authorization-step.js';
import { REAUTHENTICATION_PARAMETER } from './authorization-step.js';
import type { RawParameters } from './authorize.js';

const REDIRECT = 'https://client.example/callback';
const ISSUER = 'http://localhost:3000';
const SCOPES = ['messaging.v1.send', 'messaging.v1.read'];

async function setup() {
  const t = await createTestGatehouse();
  const { client } = await t.seedClient({ scopes: SCOPES });
  const user = await t.seedUser();
  const signedIn = (overrides: Partial<AuthorizingUser> = {}): AuthorizingUser => ({ userKey: user.userKey, sessionId: 'session-1', authenticatedAt: t.clock.now(), ...overrides });
  const checked = async (params: RawParameters = {}) => {
    const check = await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', state: 'st', ...params });
    if (check.kind !== 'valid') throw new Error(`expected a valid request, got ${check.kind}`);
    return check.request;
  };
  const returnTo = (query = '') => `/oauth/authorize?client_id=${client.clientId}&response_type=code${query}`;
  const allow = async (scope: string) => t.gatehouse.approveAuthorization({ request: await checked({ scope }), userKey: user.userKey, sessionId: 'session-1' });
  return { t, client, user, signedIn, checked, returnTo, allow };
}

function redirectOf(step: { kind: string; redirectTo?: string }): URL {
  expect(step.kind).toBe('redirect');
  const url = new URL(step.redirectTo ?? '');
  expect(`${url.origin}${url.pathname}`).toBe(REDIRECT);
  expect(url.searchParams.get('iss')).toBe(ISSUER);
  expect(url.searchParams.get('state')).toBe('st');
  return url;
}

describe('nextAuthorizationStep: remembered consent', () => {
  it('asks a signed-out user to sign in, back to the same request', async () => {
    const { t, checked, returnTo } = await setup();
    expect(await t.gatehouse.nextAuthorizationStep({ request: await checked(), user: undefined, returnTo: returnTo() })).toEqual({ kind: 'sign-in', returnTo: returnTo(), reauthenticate: false });
  });

  it('asks for consent the first time, marking no scope as new', async () => {
    const { t, signedIn, checked, returnTo } = await setup();
    expect(await t.gatehouse.nextAuthorizationStep({ request: await checked(), user: signedIn(), returnTo: returnTo() })).toEqual({ kind: 'consent', newScopes: [] });
    expect(t.audit.events.filter((event) => event.type.startsWith('consent.'))).toEqual([]);
  });

  it('after Allow, issues a code at once for the same scopes, with a consent.remembered audit', async () => {
    const { t, client, user, signedIn, checked, returnTo, allow } = await setup();
    await allow('messaging.v1.send messaging.v1.read');
    expect(await t.repositories.consents.find(user.userKey, client.clientId)).toEqual({ userKey: user.userKey, clientId: client.clientId, scopes: ['messaging.v1.read', 'messaging.v1.send'], grantedAt: t.clock.now() });
    t.clock.advance(30);
    const step = await t.gatehouse.nextAuthorizationStep({ request: await checked({ scope: 'messaging.v1.read messaging.v1.send' }), user: signedIn({ sessionId: 'session-2' }), returnTo: returnTo() });
    const code = redirectOf(step).searchParams.get('code') ?? '';
    expect(await t.repositories.codes.findByHash(storedSecretHash(code))).toMatchObject({ clientId: client.clientId, userKey: user.userKey, scopes: ['messaging.v1.read', 'messaging.v1.send'], sessionId: 'session-2', consumedAt: null });
    expect(t.audit.ofType('consent.remembered')).toEqual([{ type: 'consent.remembered', at: t.clock.now(), userKey: user.userKey, clientId: client.clientId, reason: 'messaging.v1.read messaging.v1.send' }]);
    expect(t.audit.ofType('consent.granted')).toHaveLength(1);
  });

  it('issues a code at once for fewer scopes than were allowed', async () => {
    const { t, signedIn, checked, returnTo, allow } = await setup();
    await allow('messaging.v1.send messaging.v1.read');
    const step = await t.gatehouse.nextAuthorizationStep({ request: await checked({ scope: 'messaging.v1.read' }), user: signedIn(), returnTo: returnTo() });
    expect(redirectOf(step).searchParams.get('code')).toMatch(/^[0-9A-Za-z]{8}_[A-Za-z0-9]{43,}$/);
  });

  it('asks again for more scopes, marking those not allowed before; the Allow then adds them', async () => {
    const { t, client, user, signedIn, checked, returnTo, allow } = await setup();
    await allow('messaging.v1.read');
    const request = await checked({ scope: 'messaging.v1.read messaging.v1.send' });
    expect(await t.gatehouse.nextAuthorizationStep({ request, user: signedIn(), returnTo: returnTo() })).toEqual({ kind: 'consent', newScopes: ['messaging.v1.send'] });
    await t.gatehouse.approveAuthorization({ request, userKey: user.userKey, sessionId: 'session-1' });
    expect((await t.repositories.consents.find(user.userKey, client.clientId))?.scopes).toEqual(['messaging.v1.read', 'messaging.v1.send']);
    expect((await t.gatehouse.nextAuthorizationStep({ request, user: signedIn(), returnTo: returnTo() })).kind).toBe('redirect');
  });

  it('does not use the consent another user gave', async () => {
    const { t, signedIn, checked, returnTo, allow } = await setup();
    await allow('messaging.v1.read');
    const other = await t.seedUser({ email: 'other@example.com' });
    expect(await t.gatehouse.nextAuthorizationStep({ request: await checked({ scope: 'messaging.v1.read' }), user: signedIn({ userKey: other.userKey }), returnTo: returnTo() })).toEqual({ kind: 'consent', newScopes: [] });
  });

  it('forgets the consent when the user revokes the app', async () => {
    const { t, user, client, signedIn, checked, returnTo, allow } = await setup();
    await allow('messaging.v1.read');
    await t.gatehouse.revokeAuthorizedApp({ userKey: user.userKey, clientId: client.clientId });
    expect(await t.gatehouse.nextAuthorizationStep({ request: await checked({ scope: 'messaging.v1.read' }), user: signedIn(), returnTo: returnTo() })).toEqual({ kind: 'consent', newScopes: [] });
  });

  it('forgets the consent when the client is deleted', async () => {
    const { t, user, client, allow } = await setup();
    await allow('messaging.v1.read');
    await t.gatehouse.deleteClient({ ownerUserKey: null, clientId: client.clientId });
    expect(await t.repositories.consents.find(user.userKey, client.clientId)).toBeUndefined();
  });

  it('does not remember a denial', async () => {
    const { t, user, client, checked } = await setup();
    t.gatehouse.denyAuthorization({ request: await checked(), userKey: user.userKey });
    expect(await t.repositories.consents.find(user.userKey, client.clientId)).toBeUndefined();
  });
});

describe('nextAuthorizationStep: prompt=consent', () => {
  it('asks even when the consent is remembered, marking nothing new', async () => {
    const { t, signedIn, checked, returnTo, allow } = await setup();
    await allow('messaging.v1.read messaging.v1.send');
    expect(await t.gatehouse.nextAuthorizationStep({ request: await checked({ prompt: 'consent' }), user: signedIn(), returnTo: returnTo() })).toEqual({ kind: 'consent', newScopes: [] });
    expect(t.audit.ofType('consent.remembered')).toEqual([]);
  });
});

describe('nextAuthorizationStep: prompt=none', () => {
  it('answers login_required for a signed-out user', async () => {
    const { t, checked, returnTo } = await setup();
    const url = redirectOf(await t.gatehouse.nextAuthorizationStep({ request: await checked({ prompt: 'none' }), user: undefined, returnTo: returnTo() }));
    expect(url.searchParams.get('error')).toBe('login_required');
    expect(url.searchParams.get('code')).toBeNull();
  });

  it('a client that registered itself: login_required on the error page, nothing sent to its redirect URI (docs/decisions/0184)', async () => {
    const t = await createTestGatehouse({ settings: { registration: { policy: 'open' } } });
    const { client } = await t.gatehouse.registerDynamicClient({
      metadata: { client_name: 'Phish', redirect_uris: ['https://evil.example/cb'], token_endpoint_auth_method: 'none', scope: 'messaging.v1.read' },
      initialAccessToken: undefined,
    });
    const check = await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', state: 'st', prompt: 'none', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' });
    if (check.kind !== 'valid') throw check.error;
    expect(check.request.redirectUriVouched).toBe(false);
    const step = await t.gatehouse.nextAuthorizationStep({ request: check.request, user: undefined, returnTo: '/oauth/authorize' });
    expect(step).toMatchObject({ kind: 'error-page', error: { code: 'login_required' } });
    // A client the operator registered is vouched for: the error goes back to it, as OIDC Core §3.1.2.6 says.
    const { t: operators, checked, returnTo } = await setup();
    expect((await checked({ prompt: 'none' })).redirectUriVouched).toBeUndefined();
    expect(redirectOf(await operators.gatehouse.nextAuthorizationStep({ request: await checked({ prompt: 'none' }), user: undefined, returnTo: returnTo() })).searchParams.get('error')).toBe('login_required');
  });

  it('a client that registered itself, signed in: its errors go back only once the user has allowed it; before, the error page (docs/decisions/0198)', async () => {
    const t = await createTestGatehouse({ settings: { registration: { policy: 'open' } } });
    const user = await t.seedUser();
    const { client } = await t.gatehouse.registerDynamicClient({
      metadata: { client_name: 'Phish', redirect_uris: ['https://evil.example/cb'], token_endpoint_auth_method: 'none', scope: 'messaging.v1.read messaging.v1.send' },
      initialAccessToken: undefined,
    });
    const checked = async (params: RawParameters) => {
      const check = await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', state: 'st', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256', ...params });
      if (check.kind !== 'valid') throw check.error;
      return check.request;
    };
    const signedIn: AuthorizingUser = { userKey: user.userKey, sessionId: 'session-1', authenticatedAt: t.clock.now() };
    const step = async (params: RawParameters) => t.gatehouse.nextAuthorizationStep({ request: await checked(params), user: signedIn, returnTo: '/oauth/authorize' });
    // Never allowed: a silent request's errors are shown, not sent to a site anyone could register.
    expect(await step({ prompt: 'none', scope: 'messaging.v1.read' })).toMatchObject({ kind: 'error-page', error: { code: 'consent_required' } });
    t.clock.advance(5);
    expect(await step({ prompt: 'none', scope: 'messaging.v1.read', max_age: '1' })).toMatchObject({ kind: 'error-page', error: { code: 'login_required' } });
    // A request that fails its checks is shown too, signed in or not: nothing redirects to it.
    expect(await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', state: 'st', scope: 'no.such.scope' })).toMatchObject({ kind: 'show-error', error: { code: 'invalid_scope' } });
    // Once the user allowed it, it is the user's app: OIDC Core §3.1.2.6's errors go back to it.
    await t.gatehouse.approveAuthorization({ request: await checked({ scope: 'messaging.v1.read' }), userKey: user.userKey, sessionId: 'session-1' });
    const more = await step({ prompt: 'none', scope: 'messaging.v1.read messaging.v1.send' });
    expect(more.kind).toBe('redirect');
    expect(new URL((more as { redirectTo: string }).redirectTo).searchParams.get('error')).toBe('consent_required');
  });

  it('answers consent_required when nothing, or fewer scopes, were allowed', async () => {
    const { t, signedIn, checked, returnTo, allow } = await setup();
    const first = redirectOf(await t.gatehouse.nextAuthorizationStep({ request: await checked({ prompt: 'none' }), user: signedIn(), returnTo: returnTo() }));
    expect(first.searchParams.get('error')).toBe('consent_required');
    await allow('messaging.v1.read');
    const more = redirectOf(await t.gatehouse.nextAuthorizationStep({ request: await checked({ prompt: 'none', scope: 'messaging.v1.read messaging.v1.send' }), user: signedIn(), returnTo: returnTo() }));
    expect(more.searchParams.get('error')).toBe('consent_required');
    expect(t.audit.ofType('consent.remembered')).toEqual([]);
  });

  it('issues a code at once when the user is signed in and the consent remembered', async () => {
    const { t, signedIn, checked, returnTo, allow } = await setup();
    await allow('messaging.v1.read');
    const url = redirectOf(await t.gatehouse.nextAuthorizationStep({ request: await checked({ prompt: 'none', scope: 'messaging.v1.read' }), user: signedIn(), returnTo: returnTo() }));
    expect(url.searchParams.get('code')).toMatch(/^[0-9A-Za-z]{8}_[A-Za-z0-9]{43,}$/);
    expect(t.audit.ofType('consent.remembered')).toHaveLength(1);
  });
});

describe('nextAuthorizationStep: prompt=login', () => {
  async function markerOf(step: { kind: string; returnTo?: string }): Promise<string> {
    expect(step).toMatchObject({ kind: 'sign-in', reauthenticate: true });
    return new URL(step.returnTo ?? '', 'http://x').searchParams.get(REAUTHENTICATION_PARAMETER) ?? '';
  }

  it('asks a signed-in user to sign in again, with a marker, and goes on once a newer session comes back with it', async () => {
    const { t, user, signedIn, checked, returnTo, allow } = await setup();
    await allow('messaging.v1.read');
    const request = await checked({ prompt: 'login', scope: 'messaging.v1.read' });
    const first = await t.gatehouse.nextAuthorizationStep({ request, user: signedIn(), returnTo: returnTo('&prompt=login') });
    const marker = await markerOf(first);
    expect(marker).toMatch(/^[A-Za-z0-9]{43,}$/);
    expect(first).toMatchObject({ returnTo: `${returnTo('&prompt=login')}&${REAUTHENTICATION_PARAMETER}=${marker}` });
    expect(await t.repositories.interactions.findByHash(sha256(marker))).toMatchObject({ kind: 'reauthentication', userKey: user.userKey, sessionId: 'session-1' });

    const back = first.kind === 'sign-in' ? first.returnTo : '';
    // The same session coming back with the marker has not signed in again.
    expect((await t.gatehouse.nextAuthorizationStep({ request, user: signedIn(), returnTo: back })).kind).toBe('sign-in');
    t.clock.advance(5);
    const step = await t.gatehouse.nextAuthorizationStep({ request, user: signedIn({ sessionId: 'session-2', authenticatedAt: t.clock.now() }), returnTo: back });
    expect(redirectOf(step).searchParams.get('code')).toMatch(/^[0-9A-Za-z]{8}_[A-Za-z0-9]{43,}$/);
  });

  it('refuses a session older than the marker, an expired marker, and an unknown one', async () => {
    const { t, signedIn, checked, returnTo } = await setup();
    const request = await checked({ prompt: 'login' });
    const older = signedIn({ sessionId: 'old', authenticatedAt: t.clock.now() });
    t.clock.advance(10);
    const marker = await markerOf(await t.gatehouse.nextAuthorizationStep({ request, user: undefined, returnTo: returnTo('&prompt=login') }));
    const back = returnTo(`&prompt=login&${REAUTHENTICATION_PARAMETER}=${marker}`);
    expect(await t.gatehouse.reauthenticated({ request, user: older, returnTo: back })).toBe(false);
    expect(await t.gatehouse.reauthenticated({ request, user: signedIn({ sessionId: 'new' }), returnTo: back })).toBe(true);
    expect(await t.gatehouse.reauthenticated({ request, user: signedIn({ sessionId: 'new' }), returnTo: returnTo(`&prompt=login&${REAUTHENTICATION_PARAMETER}=${'A'.repeat(43)}`) })).toBe(false);
    expect(await t.gatehouse.reauthenticated({ request, user: undefined, returnTo: back })).toBe(false);
    t.clock.advance(t.gatehouse.settings.interactionTtlSeconds);
    expect(await t.gatehouse.reauthenticated({ request, user: signedIn({ sessionId: 'newer' }), returnTo: back })).toBe(false);
  });

  it('does not take a login or consent request as a marker', async () => {
    const { t, signedIn, checked, returnTo } = await setup();
    const request = await checked({ prompt: 'login' });
    const { loginRequest } = await t.gatehouse.startLogin({ returnTo: returnTo() });
    t.clock.advance(1);
    expect(await t.gatehouse.reauthenticated({ request, user: signedIn({ sessionId: 'new' }), returnTo: returnTo(`&prompt=login&${REAUTHENTICATION_PARAMETER}=${loginRequest}`) })).toBe(false);
  });

  it('replaces a stale marker in the return path instead of adding a second one', async () => {
    const { t, signedIn, checked, returnTo } = await setup();
    const request = await checked({ prompt: 'login' });
    const stale = returnTo(`&prompt=login&${REAUTHENTICATION_PARAMETER}=${'B'.repeat(43)}`);
    const step = await t.gatehouse.nextAuthorizationStep({ request, user: signedIn(), returnTo: stale });
    const url = new URL(step.kind === 'sign-in' ? step.returnTo : '', 'http://x');
    expect(url.searchParams.getAll(REAUTHENTICATION_PARAMETER)).toHaveLength(1);
    expect(url.searchParams.get(REAUTHENTICATION_PARAMETER)).not.toBe('B'.repeat(43));
  });

  it('is always satisfied without prompt=login', async () => {
    const { t, checked, returnTo } = await setup();
    expect(await t.gatehouse.reauthenticated({ request: await checked(), user: undefined, returnTo: returnTo() })).toBe(true);
  });
});

describe('a fresh sign-in issues one code (docs/decisions/0202)', () => {
  async function freshSignIn(params: RawParameters, query: string) {
    const context = await setup();
    const { t, signedIn, checked, returnTo, allow } = context;
    await allow('messaging.v1.read');
    const request = await checked({ scope: 'messaging.v1.read', ...params });
    const earlier = signedIn();
    t.clock.advance(120);
    const step = await t.gatehouse.nextAuthorizationStep({ request, user: earlier, returnTo: returnTo(query) });
    expect(step).toMatchObject({ kind: 'sign-in', reauthenticate: true });
    const back = step.kind === 'sign-in' ? step.returnTo : '';
    t.clock.advance(5);
    const fresh = signedIn({ sessionId: 'session-2', authenticatedAt: t.clock.now() });
    return { ...context, request, back, fresh };
  }

  it('prompt=login with a remembered consent: the request issues one code; the same URL again asks for a sign-in with a new marker', async () => {
    const { t, request, back, fresh } = await freshSignIn({ prompt: 'login' }, '&prompt=login');
    expect(redirectOf(await t.gatehouse.nextAuthorizationStep({ request, user: fresh, returnTo: back })).searchParams.get('code')).not.toBeNull();
    const again = await t.gatehouse.nextAuthorizationStep({ request, user: fresh, returnTo: back });
    expect(again).toMatchObject({ kind: 'sign-in', reauthenticate: true });
    expect(again.kind === 'sign-in' ? again.returnTo : '').not.toBe(back);
    expect(await t.gatehouse.reauthenticated({ request, user: fresh, returnTo: back })).toBe(false);
  });

  it('max_age: a reload of the request long after the sign-in asks again instead of issuing a code with an auth_time older than max_age', async () => {
    for (const maxAge of ['0', '60']) {
      const { t, request, back, fresh } = await freshSignIn({ max_age: maxAge }, `&max_age=${maxAge}`);
      // The sign-in is 5 s old: within max_age=60 on its own, for max_age=0 by the marker.
      expect(redirectOf(await t.gatehouse.nextAuthorizationStep({ request, user: fresh, returnTo: back })).searchParams.get('code')).not.toBeNull();
      t.clock.advance(300);
      expect(await t.gatehouse.nextAuthorizationStep({ request, user: fresh, returnTo: back })).toMatchObject({ kind: 'sign-in', reauthenticate: true });
    }
  });

  it('claimReauthentication (the consent form\'s Allow, the host\'s consent): true once; of two at once, one', async () => {
    const { t, request, back, fresh } = await freshSignIn({ prompt: 'login' }, '&prompt=login');
    // Showing the consent page spends nothing: the page and its Allow are two requests.
    expect(await t.gatehouse.nextAuthorizationStep({ request: { ...request, prompts: ['login', 'consent'] }, user: fresh, returnTo: back })).toMatchObject({ kind: 'consent' });
    expect(await t.gatehouse.reauthenticated({ request, user: fresh, returnTo: back })).toBe(true);
    const claims = await Promise.all([1, 2, 3].map(() => t.gatehouse.claimReauthentication({ request, user: fresh, returnTo: back })));
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await t.gatehouse.claimReauthentication({ request, user: fresh, returnTo: back })).toBe(false);
  });

  it('claimReauthentication spends nothing where no marker was needed: without prompt=login, or within max_age', async () => {
    const { t, signedIn, checked, returnTo } = await setup();
    const plain = await checked({ scope: 'messaging.v1.read' });
    const withinMaxAge = await checked({ scope: 'messaging.v1.read', max_age: '600' });
    for (let round = 0; round < 2; round += 1) {
      expect(await t.gatehouse.claimReauthentication({ request: plain, user: signedIn(), returnTo: returnTo() })).toBe(true);
      expect(await t.gatehouse.claimReauthentication({ request: withinMaxAge, user: signedIn(), returnTo: returnTo('&max_age=600') })).toBe(true);
    }
    expect(await t.gatehouse.claimReauthentication({ request: plain, user: undefined, returnTo: returnTo() })).toBe(false);
  });
});

describe('nextAuthorizationStep: a marker belongs to its request (docs/decisions/0107)', () => {
  it('a prompt=login marker made for one client\'s request does not satisfy another client\'s', async () => {
    const { t, signedIn, checked, returnTo } = await setup();
    const { client: other } = await t.seedClient({ scopes: SCOPES });
    const request = await checked({ prompt: 'login' });
    const step = await t.gatehouse.nextAuthorizationStep({ request, user: signedIn(), returnTo: returnTo('&prompt=login') });
    const marker = new URL(step.kind === 'sign-in' ? step.returnTo : '', 'http://x').searchParams.get(REAUTHENTICATION_PARAMETER) ?? '';
    t.clock.advance(5);
    const fresh = signedIn({ sessionId: 'session-2', authenticatedAt: t.clock.now() });
    const otherCheck = await t.gatehouse.checkAuthorizationRequest({ client_id: other.clientId, response_type: 'code', state: 'st', prompt: 'login' });
    if (otherCheck.kind !== 'valid') throw otherCheck.error;
    const otherReturnTo = `/oauth/authorize?client_id=${other.clientId}&response_type=code&prompt=login&${REAUTHENTICATION_PARAMETER}=${marker}`;
    expect(await t.gatehouse.reauthenticated({ request: otherCheck.request, user: fresh, returnTo: otherReturnTo })).toBe(false);
    // Its own request, with the marker, is satisfied.
    expect(await t.gatehouse.reauthenticated({ request, user: fresh, returnTo: `${returnTo('&prompt=login')}&${REAUTHENTICATION_PARAMETER}=${marker}` })).toBe(true);
  });
});

describe('nextAuthorizationStep: max_age (OIDC Core §3.1.2.1)', () => {
  it('issues a code to a user who authenticated within max_age', async () => {
    const { t, signedIn, checked, returnTo, allow } = await setup();
    await allow('messaging.v1.read');
    const user = signedIn();
    t.clock.advance(300);
    const step = await t.gatehouse.nextAuthorizationStep({ request: await checked({ scope: 'messaging.v1.read', max_age: '300' }), user, returnTo: returnTo('&max_age=300') });
    expect(redirectOf(step).searchParams.get('code')).not.toBeNull();
  });

  it('asks a user who authenticated longer ago to sign in again, then goes on with the newer sign-in', async () => {
    const { t, signedIn, checked, returnTo, allow } = await setup();
    await allow('messaging.v1.read');
    const old = signedIn();
    t.clock.advance(301);
    const request = await checked({ scope: 'messaging.v1.read', max_age: '300' });
    const step = await t.gatehouse.nextAuthorizationStep({ request, user: old, returnTo: returnTo('&max_age=300') });
    expect(step).toMatchObject({ kind: 'sign-in', reauthenticate: true });
    t.clock.advance(1);
    const back = step.kind === 'sign-in' ? step.returnTo : '';
    const after = await t.gatehouse.nextAuthorizationStep({ request, user: signedIn({ sessionId: 'session-2', authenticatedAt: t.clock.now() }), returnTo: back });
    expect(redirectOf(after).searchParams.get('code')).not.toBeNull();
  });

  it('max_age=0 is satisfied by the sign-in the request asked for, however long it took', async () => {
    const { t, signedIn, checked, returnTo, allow } = await setup();
    await allow('messaging.v1.read');
    const request = await checked({ scope: 'messaging.v1.read', max_age: '0' });
    const step = await t.gatehouse.nextAuthorizationStep({ request, user: undefined, returnTo: returnTo('&max_age=0') });
    expect(step).toMatchObject({ kind: 'sign-in', reauthenticate: true });
    t.clock.advance(40);
    const user = signedIn({ sessionId: 'session-2', authenticatedAt: t.clock.now() });
    t.clock.advance(2);
    const after = await t.gatehouse.nextAuthorizationStep({ request, user, returnTo: step.kind === 'sign-in' ? step.returnTo : '' });
    expect(redirectOf(after).searchParams.get('code')).not.toBeNull();
  });

  it('answers prompt=none with login_required when the sign-in is older than max_age', async () => {
    const { t, signedIn, checked, returnTo, allow } = await setup();
    await allow('messaging.v1.read');
    const user = signedIn();
    t.clock.advance(61);
    const step = await t.gatehouse.nextAuthorizationStep({ request: await checked({ scope: 'messaging.v1.read', prompt: 'none', max_age: '60' }), user, returnTo: returnTo() });
    expect(redirectOf(step).searchParams.get('error')).toBe('login_required');
  });

  it('refuses a max_age that is not a whole number of seconds, and a login_hint over 256 characters', async () => {
    const { t, client } = await setup();
    for (const max_age of ['-1', '1.5', 'soon', '01', '1e3', '9999999999']) {
      const check = await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', max_age });
      expect(check.kind).toBe('redirect-error');
      if (check.kind === 'redirect-error') expect(check.error.code).toBe('invalid_request');
    }
    const hint = await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', login_hint: 'a'.repeat(257) });
    expect(hint.kind).toBe('redirect-error');
    const ok = await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', login_hint: 'ada@example.com', max_age: '0' });
    expect(ok.kind === 'valid' && ok.request).toMatchObject({ loginHint: 'ada@example.com', maxAge: 0 });
  });
});

describe('nextAuthorizationStep: remembered consent of a public client on a loopback or private-use redirect URI (RFC 8252 §8.6)', () => {
  async function publicClient(redirectUri: string, options: { public?: boolean } = { public: true }) {
    const t = await createTestGatehouse();
    const user = await t.seedUser();
    const { client } = await t.gatehouse.registerClient({ name: 'Native app', redirectUris: [redirectUri], scopes: SCOPES, ...(options.public ? { public: true } : {}) });
    const pkce = { code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' };
    const checked = async (params: RawParameters) => {
      const check = await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', state: 'st', ...pkce, ...params });
      if (check.kind !== 'valid') throw check.error;
      return check.request;
    };
    const user1: AuthorizingUser = { userKey: user.userKey, sessionId: null, authenticatedAt: t.clock.now() };
    return { t, client, user, user1, checked };
  }

  it('shows the consent page again, on any port, and answers prompt=none with consent_required', async () => {
    const { t, user, user1, checked } = await publicClient('http://127.0.0.1/native');
    await t.gatehouse.approveAuthorization({ request: await checked({ redirect_uri: 'http://127.0.0.1:4000/native' }), userKey: user.userKey, sessionId: null });
    const request = await checked({ redirect_uri: 'http://127.0.0.1:31337/native' });
    expect(request.consentMayBeRemembered).toBe(false);
    expect((await t.gatehouse.nextAuthorizationStep({ request, user: user1, returnTo: '/oauth/authorize' })).kind).toBe('consent');
    const silent = await t.gatehouse.nextAuthorizationStep({ request: await checked({ redirect_uri: 'http://127.0.0.1:31337/native', prompt: 'none' }), user: user1, returnTo: '/oauth/authorize' });
    expect(silent.kind === 'redirect' && new URL(silent.redirectTo).searchParams.get('error')).toBe('consent_required');
    expect(t.audit.ofType('consent.remembered')).toEqual([]);
  });

  it('does so for localhost, too', async () => {
    const { t, user, user1, checked } = await publicClient('http://localhost:8080/cb');
    await t.gatehouse.approveAuthorization({ request: await checked({}), userKey: user.userKey, sessionId: null });
    expect((await t.gatehouse.nextAuthorizationStep({ request: await checked({}), user: user1, returnTo: '/oauth/authorize' })).kind).toBe('consent');
  });

  it('keeps remembered consent for a public client on https, and for a confidential client on loopback (its code needs its secret)', async () => {
    const web = await publicClient('https://spa.example/cb');
    await web.t.gatehouse.approveAuthorization({ request: await web.checked({}), userKey: web.user.userKey, sessionId: null });
    expect((await web.t.gatehouse.nextAuthorizationStep({ request: await web.checked({}), user: web.user1, returnTo: '/oauth/authorize' })).kind).toBe('redirect');
    const confidential = await publicClient('http://127.0.0.1/cb', { public: false });
    await confidential.t.gatehouse.approveAuthorization({ request: await confidential.checked({}), userKey: confidential.user.userKey, sessionId: null });
    expect((await confidential.t.gatehouse.nextAuthorizationStep({ request: await confidential.checked({ redirect_uri: 'http://127.0.0.1:9999/cb' }), user: confidential.user1, returnTo: '/oauth/authorize' })).kind).toBe('redirect');
  });
});
