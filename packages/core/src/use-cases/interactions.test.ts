import { describe, expect, it } from 'vitest';
import { createMemoryRepositories, createMemoryUserDirectory, createTestGatehouse } from '@gatehouse/core/testing';
import type { Interaction } from '../domain/model.js';
import type { PasswordCheck } from '../ports/users.js';
import { sha256 } from '../crypto.js';
import { storedSecretHash } from '../domain/time-ordered-secret.js';
import { expectDomainError, expectOAuthError } from '../test-support/rejections.js';

const ADA = { userKey: 'orders-user-7', email: 'ada@orders.example', givenName: 'Ada', familyName: 'Lovelace' };

/** A Gatehouse embedded in a service that owns its users (no Gatehouse-owned user at all). */
async function setup(options: { passwordCheck?: PasswordCheck } = {}) {
  const users = createMemoryUserDirectory([ADA]);
  const t = await createTestGatehouse({ userDirectory: users, ...options });
  const { client, clientSecret } = await t.seedClient({ scopes: ['messaging.v1.send', 'messaging.v1.read'] });
  const returnTo = `/auth/oauth/authorize?${new URLSearchParams({ client_id: client.clientId, response_type: 'code', redirect_uri: client.redirectUris[0] as string, state: 'st' }).toString()}`;
  return { t, users, client, clientSecret, returnTo };
}

describe('a login handed to the host (startLogin / completeLogin)', () => {
  it('opens a session for the host\'s user and sends the browser back to the authorization request', async () => {
    const { t, returnTo } = await setup();
    const { loginRequest } = await t.gatehouse.startLogin({ returnTo });
    expect(loginRequest).toMatch(/^[A-Za-z0-9]{43}$/);
    const done = await t.gatehouse.completeLogin({ loginRequest, userKey: ADA.userKey, authenticatedAt: t.clock.now() });
    expect(done.redirectTo).toBe(returnTo);
    expect(done.user).toEqual(ADA);
    expect(done.session.userKey).toBe(ADA.userKey);
    expect(await t.gatehouse.resolveSession(done.sessionToken)).toEqual({ session: done.session, user: ADA });
    expect(t.audit.ofType('sign_in.succeeded')).toEqual([{ type: 'sign_in.succeeded', at: t.clock.now(), userKey: ADA.userKey, reason: 'host login' }]);
  });

  it('stores only the hash of the login request, with its expiry', async () => {
    const { t, returnTo } = await setup();
    const { loginRequest } = await t.gatehouse.startLogin({ returnTo });
    expect(await t.repositories.interactions.findByHash(sha256(loginRequest))).toEqual({
      interactionHash: sha256(loginRequest),
      kind: 'login',
      returnTo,
      userKey: null,
      sessionId: null,
      createdAt: t.clock.now(),
      expiresAt: new Date(t.clock.now().getTime() + 600_000),
      consumedAt: null,
    });
    expect(await t.repositories.interactions.findByHash(loginRequest)).toBeUndefined();
  });

  it('refuses a login request used twice, expired, unknown, malformed or of the consent kind', async () => {
    const { t, returnTo } = await setup();
    const { loginRequest } = await t.gatehouse.startLogin({ returnTo });
    await t.gatehouse.completeLogin({ loginRequest, userKey: ADA.userKey, authenticatedAt: t.clock.now() });
    await expectDomainError(t.gatehouse.completeLogin({ loginRequest, userKey: ADA.userKey, authenticatedAt: t.clock.now() }), 'not_found', 'loginRequest');

    const late = await t.gatehouse.startLogin({ returnTo });
    t.clock.advance(600);
    await expectDomainError(t.gatehouse.completeLogin({ loginRequest: late.loginRequest, userKey: ADA.userKey, authenticatedAt: t.clock.now() }), 'not_found');

    await expectDomainError(t.gatehouse.completeLogin({ loginRequest: 'A'.repeat(43), userKey: ADA.userKey, authenticatedAt: t.clock.now() }), 'not_found');
    await expectDomainError(t.gatehouse.completeLogin({ loginRequest: '../x', userKey: ADA.userKey, authenticatedAt: t.clock.now() }), 'not_found');
    const { sessionToken } = await t.gatehouse.completeLogin({ ...(await t.gatehouse.startLogin({ returnTo })), userKey: ADA.userKey, authenticatedAt: t.clock.now() });
    const session = await t.gatehouse.resolveSession(sessionToken);
    const { consentRequest } = await t.gatehouse.startConsent({ returnTo, userKey: ADA.userKey, sessionId: session?.session.sessionId ?? null });
    await expectDomainError(t.gatehouse.completeLogin({ loginRequest: consentRequest, userKey: ADA.userKey, authenticatedAt: t.clock.now() }), 'not_found');
  });

  it('refuses a returnTo that is not a path of this origin (no open redirect through a login request)', async () => {
    const { t } = await setup();
    for (const returnTo of ['https://evil.example/', '//evil.example/x', '/\\evil.example', 'oauth/authorize']) {
      await expectDomainError(t.gatehouse.startLogin({ returnTo }), 'invalid', 'returnTo');
      await expectDomainError(t.gatehouse.startConsent({ returnTo, userKey: ADA.userKey, sessionId: null }), 'invalid', 'returnTo');
    }
  });

  it('refuses a user the directory does not know', async () => {
    const { t, returnTo } = await setup();
    const { loginRequest } = await t.gatehouse.startLogin({ returnTo });
    await expectDomainError(t.gatehouse.completeLogin({ loginRequest, userKey: 'nobody', authenticatedAt: t.clock.now() }), 'unauthenticated');
    expect(t.audit.ofType('sign_in.succeeded')).toEqual([]);
  });

  it('issues tokens whose sub is the host\'s user key and whose principal is its login', async () => {
    const { t, client } = await setup();
    const { tokens } = await t.obtainTokensViaHostLogin({ client, userKey: ADA.userKey, scope: 'messaging.v1.read' });
    expect(tokens.principal).toBe(ADA.email);
    const verified = await t.gatehouse.verifyAccessToken(tokens.access_token);
    expect(verified.userKey).toBe(ADA.userKey);
    const introspected = await t.gatehouse.introspectToken({ client, token: tokens.refresh_token as string, tokenTypeHint: undefined });
    expect(introspected).toMatchObject({ active: true, username: ADA.email, sub: ADA.userKey });
  });

  it('test kit: obtainTokensViaHostLogin returns through the authorize endpoint under the issuer\'s path (docs/decisions/0090)', async () => {
    const repositories = createMemoryRepositories();
    const started: Interaction[] = [];
    const interactions = repositories.interactions;
    const t = await createTestGatehouse({
      userDirectory: createMemoryUserDirectory([ADA]),
      settings: { issuer: 'https://orders.example/auth' },
      repositories: {
        ...repositories,
        interactions: {
          ...interactions,
          create: async (interaction) => {
            started.push(interaction);
            await interactions.create(interaction);
          },
          // A login request is made for nobody: it is stored under the cap (docs/decisions/0108).
          createAnonymous: async (interaction, cap) => {
            started.push(interaction);
            return interactions.createAnonymous(interaction, cap);
          },
        },
      },
    });
    const { client } = await t.seedClient({ scopes: ['messaging.v1.read'] });
    await t.obtainTokensViaHostLogin({ client, userKey: ADA.userKey });
    expect(started.map((interaction) => new URL(interaction.returnTo, 'https://orders.example').pathname)).toEqual(['/auth/oauth/authorize']);
  });
});

describe('a consent handed to the host (startConsent / describeConsentRequest / completeConsent)', () => {
  async function consentSetup() {
    const s = await setup();
    const { loginRequest } = await s.t.gatehouse.startLogin({ returnTo: s.returnTo });
    const { session } = await s.t.gatehouse.completeLogin({ loginRequest, userKey: ADA.userKey, authenticatedAt: s.t.clock.now() });
    const { consentRequest } = await s.t.gatehouse.startConsent({ returnTo: s.returnTo, userKey: ADA.userKey, sessionId: session.sessionId });
    return { ...s, session, consentRequest };
  }

  it('describes the request to the host without using it, then Allow issues a code bound to the session', async () => {
    const { t, client, session, consentRequest } = await consentSetup();
    const details = await t.gatehouse.describeConsentRequest(consentRequest);
    expect(details).toEqual({ clientId: client.clientId, clientName: 'Test client', scopes: ['messaging.v1.send', 'messaging.v1.read'], newScopes: [], redirectUri: client.redirectUris[0], userKey: ADA.userKey, origin: { registration: 'static', documentHost: undefined, loopbackRedirectsOnly: false }, presentation: { origin: { registration: 'static', documentHost: undefined, loopbackRedirectsOnly: false }, registeredBy: { kind: 'operator' }, links: {}, firstParty: false } });
    expect(await t.gatehouse.describeConsentRequest(consentRequest)).toEqual(details);

    const { redirectTo } = await t.gatehouse.completeConsent({ consentRequest, decision: 'allow' });
    const url = new URL(redirectTo);
    expect(`${url.origin}${url.pathname}`).toBe(client.redirectUris[0]);
    expect(url.searchParams.get('state')).toBe('st');
    const code = url.searchParams.get('code') as string;
    expect((await t.repositories.codes.findByHash(storedSecretHash(code)))?.sessionId).toBe(session.sessionId);
    const tokens = await t.gatehouse.exchangeCode({ client, code, redirectUri: client.redirectUris[0] as string, codeVerifier: undefined });
    expect(tokens.principal).toBe(ADA.email);

    expect(await t.gatehouse.describeConsentRequest(consentRequest)).toBeUndefined();
    await expectDomainError(t.gatehouse.completeConsent({ consentRequest, decision: 'allow' }), 'not_found', 'consentRequest');
  });

  it('remembers an Allow: the next request of the client skips the consent step, one for more scopes marks them new', async () => {
    const { t, client, session, consentRequest, returnTo } = await consentSetup();
    await t.gatehouse.completeConsent({ consentRequest, decision: 'allow' });
    expect((await t.repositories.consents.find(ADA.userKey, client.clientId))?.scopes).toEqual(['messaging.v1.read', 'messaging.v1.send']);
    const check = await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', scope: 'messaging.v1.read' });
    if (check.kind !== 'valid') throw new Error('expected a valid request');
    const user = { userKey: ADA.userKey, sessionId: session.sessionId, authenticatedAt: session.authenticatedAt };
    expect((await t.gatehouse.nextAuthorizationStep({ request: check.request, user, returnTo })).kind).toBe('redirect');
    expect(t.audit.ofType('consent.remembered')).toHaveLength(1);

    await t.repositories.consents.forget(ADA.userKey, client.clientId);
    await t.repositories.consents.remember({ userKey: ADA.userKey, clientId: client.clientId, scopes: ['messaging.v1.read'], grantedAt: t.clock.now() });
    const { consentRequest: again } = await t.gatehouse.startConsent({ returnTo, userKey: ADA.userKey, sessionId: session.sessionId });
    expect(await t.gatehouse.describeConsentRequest(again)).toMatchObject({ scopes: ['messaging.v1.send', 'messaging.v1.read'], newScopes: ['messaging.v1.send'] });
  });

  it('does not remember a Deny', async () => {
    const { t, client, consentRequest } = await consentSetup();
    await t.gatehouse.completeConsent({ consentRequest, decision: 'deny' });
    expect(await t.repositories.consents.find(ADA.userKey, client.clientId)).toBeUndefined();
  });

  it('Deny sends access_denied to the client (RFC 6749 §4.1.2.1)', async () => {
    const { t, consentRequest } = await consentSetup();
    const { redirectTo } = await t.gatehouse.completeConsent({ consentRequest, decision: 'deny' });
    expect(new URL(redirectTo).searchParams.get('error')).toBe('access_denied');
    expect(t.audit.ofType('consent.denied')).toHaveLength(1);
  });

  it('refuses an expired consent request', async () => {
    const { t, consentRequest } = await consentSetup();
    t.clock.advance(601);
    expect(await t.gatehouse.describeConsentRequest(consentRequest)).toBeUndefined();
    await expectDomainError(t.gatehouse.completeConsent({ consentRequest, decision: 'allow' }), 'not_found');
  });
});

describe('the host\'s password check for Gatehouse\'s login page', () => {
  const check: PasswordCheck = { verify: async (login, password) => (login === ADA.email && password === 'orders-secret' ? ADA.userKey : undefined) };

  it('signs in with the host\'s check and the directory\'s profile', async () => {
    const { t } = await setup({ passwordCheck: check });
    const signedIn = await t.gatehouse.signIn({ email: ` ${ADA.email} `, password: 'orders-secret' });
    expect(signedIn.user).toEqual(ADA);
    await expectDomainError(t.gatehouse.signIn({ email: ADA.email, password: 'wrong' }), 'unauthenticated');
    await expectDomainError(t.gatehouse.signIn({ email: 'eve@orders.example', password: 'orders-secret' }), 'unauthenticated');
    expect(t.audit.ofType('sign_in.failed')).toEqual([
      { type: 'sign_in.failed', at: t.clock.now(), userKey: ADA.userKey, reason: 'wrong password' },
      { type: 'sign_in.failed', at: t.clock.now(), reason: 'unknown login' },
    ]);
  });

  it('accepts no password at all with a directory of the host\'s and no check, not even a Gatehouse-owned user\'s', async () => {
    const { t } = await setup();
    const own = await t.seedUser({ email: 'own@example.com', password: 'password123' });
    expect(own.userKey).toMatch(/./);
    await expectDomainError(t.gatehouse.signIn({ email: 'own@example.com', password: 'password123' }), 'unauthenticated');
    await expectDomainError(t.gatehouse.signIn({ email: ADA.email, password: 'anything' }), 'unauthenticated');
  });
});

describe('logoutUser (the host\'s sign-out)', () => {
  it('ends every session of the user and revokes the grants made under them', async () => {
    const { t, client, clientSecret } = await setup();
    const first = await t.obtainTokensViaHostLogin({ client, userKey: ADA.userKey });
    const second = await t.obtainTokensViaHostLogin({ client, userKey: ADA.userKey });
    const { endedSessionIds, revokedGrantIds } = await t.gatehouse.logoutUser(ADA.userKey);
    expect(endedSessionIds.sort()).toEqual([sha256(first.sessionToken), sha256(second.sessionToken)].sort());
    expect(revokedGrantIds).toHaveLength(2);
    expect(await t.gatehouse.resolveSession(first.sessionToken)).toBeUndefined();
    expect(await t.gatehouse.resolveSession(second.sessionToken)).toBeUndefined();
    const authenticated = await t.gatehouse.authenticateClient({ clientId: client.clientId, clientSecret });
    await expectOAuthError(t.gatehouse.refresh({ client: authenticated, refreshToken: first.tokens.refresh_token as string, scope: undefined }), 'invalid_grant');
    expect(await t.gatehouse.logoutUser(ADA.userKey)).toEqual({ endedSessionIds: [], revokedGrantIds: [] });
  });
});

describe('a fresh sign-in through the host: prompt=login and max_age (docs/decisions/0107)', () => {
  /** authorize as a signed-in user whose session began at `authenticatedAt`, up to the host's login request. */
  async function hostLoginFor(query: Record<string, string>, authenticatedAt: Date | undefined) {
    const s = await setup();
    const { t, client } = s;
    const params = { client_id: client.clientId, response_type: 'code', redirect_uri: client.redirectUris[0] as string, state: 'st', ...query };
    const returnTo = `/auth/oauth/authorize?${new URLSearchParams(params).toString()}`;
    const check = await t.gatehouse.checkAuthorizationRequest(params);
    if (check.kind !== 'valid') throw check.error;
    const user = authenticatedAt === undefined ? undefined : { userKey: ADA.userKey, sessionId: 'old-session', authenticatedAt };
    const step = await t.gatehouse.nextAuthorizationStep({ request: check.request, user, returnTo });
    if (step.kind !== 'sign-in') throw new Error(`expected sign-in, got ${step.kind}`);
    const { loginRequest } = await t.gatehouse.startLogin({ returnTo: step.returnTo });
    return { ...s, check, loginRequest, step };
  }

  it('describes what the request asks: the client, its scopes, prompt=login, the sign-in time it needs, the login hint', async () => {
    const { t, client, loginRequest } = await hostLoginFor({ prompt: 'login', login_hint: 'ada@orders.example', scope: 'messaging.v1.read' }, new Date(0));
    const asked = t.clock.now();
    expect(await t.gatehouse.describeLoginRequest(loginRequest)).toEqual({
      clientId: client.clientId,
      clientName: client.name,
      scopes: ['messaging.v1.read'],
      promptLogin: true,
      maxAgeSeconds: undefined,
      authenticatedAfter: asked,
      loginHint: 'ada@orders.example',
      openid: false,
      uiLocales: undefined,
      expectedUserKey: undefined,
    });
    expect(await t.gatehouse.describeLoginRequest('A'.repeat(43))).toBeUndefined();
  });

  it('needs nothing fresh for a plain request', async () => {
    const { t, loginRequest } = await hostLoginFor({}, undefined);
    expect(await t.gatehouse.describeLoginRequest(loginRequest)).toMatchObject({ promptLogin: false, maxAgeSeconds: undefined, authenticatedAfter: undefined, loginHint: undefined });
  });

  it('prompt=login: refuses the host\'s older sign-in without using the login request, then takes a fresh one', async () => {
    const { t, loginRequest } = await hostLoginFor({ prompt: 'login' }, t0());
    const hostSignedInAt = new Date(t.clock.now().getTime() - 3_600_000);
    t.clock.advance(20);
    await expectDomainError(t.gatehouse.completeLogin({ loginRequest, userKey: ADA.userKey, authenticatedAt: hostSignedInAt }), 'unauthenticated', 'authenticatedAt');
    expect(t.audit.ofType('sign_in.failed')).toEqual([expect.objectContaining({ userKey: ADA.userKey, reason: expect.stringContaining('prompt=login') })]);
    // The host asked for the password: the same login request now completes, and the session says when.
    const { session, redirectTo } = await t.gatehouse.completeLogin({ loginRequest, userKey: ADA.userKey, authenticatedAt: t.clock.now() });
    expect(session.authenticatedAt).toEqual(t.clock.now());
    const back = await t.gatehouse.checkAuthorizationRequest(Object.fromEntries(new URL(redirectTo, 'https://x').searchParams));
    if (back.kind !== 'valid') throw back.error;
    expect(await t.gatehouse.reauthenticated({ request: back.request, user: { userKey: ADA.userKey, sessionId: session.sessionId, authenticatedAt: session.authenticatedAt }, returnTo: redirectTo })).toBe(true);
  });

  it('max_age: refuses a host sign-in older than max_age, accepts one within it, and keeps the host\'s time on the session', async () => {
    const { t, loginRequest } = await hostLoginFor({ max_age: '600' }, t0());
    expect(await t.gatehouse.describeLoginRequest(loginRequest)).toMatchObject({ maxAgeSeconds: 600, authenticatedAfter: new Date(t.clock.now().getTime() - 600_000) });
    await expectDomainError(t.gatehouse.completeLogin({ loginRequest, userKey: ADA.userKey, authenticatedAt: new Date(t.clock.now().getTime() - 601_000) }), 'unauthenticated', 'authenticatedAt');
    const withinAge = new Date(t.clock.now().getTime() - 599_000);
    const { session } = await t.gatehouse.completeLogin({ loginRequest, userKey: ADA.userKey, authenticatedAt: withinAge });
    expect(session.authenticatedAt).toEqual(withinAge);
    expect(session.createdAt).toEqual(t.clock.now());
  });

  it('refuses an authenticatedAt in the future or that is no date', async () => {
    const { t, returnTo } = await setup();
    const { loginRequest } = await t.gatehouse.startLogin({ returnTo });
    await expectDomainError(t.gatehouse.completeLogin({ loginRequest, userKey: ADA.userKey, authenticatedAt: new Date(t.clock.now().getTime() + 3_600_000) }), 'invalid', 'authenticatedAt');
    await expectDomainError(t.gatehouse.completeLogin({ loginRequest, userKey: ADA.userKey, authenticatedAt: new Date(Number.NaN) }), 'invalid', 'authenticatedAt');
    await expectDomainError(t.gatehouse.completeLogin({ loginRequest, userKey: ADA.userKey, authenticatedAt: 'yesterday' as unknown as Date }), 'invalid', 'authenticatedAt');
    // Still usable.
    expect((await t.gatehouse.completeLogin({ loginRequest, userKey: ADA.userKey, authenticatedAt: t.clock.now() })).redirectTo).toBe(returnTo);
  });
});

/** A time long before any test clock's now: a sign-in that satisfies nothing fresh. */
function t0(): Date {
  return new Date(0);
}
