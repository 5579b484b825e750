import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { createTestGatehouse } from '@gatehouse/core/testing';
import { depsOf } from '../gatehouse.js';
import { verifyIdTokenHint } from '../tokens/id-token.js';
import type { RawParameters } from './authorize.js';

// The OpenID Connect parameters of an authorization request (OIDC Core §3.1.2.1, §6;
// docs/decisions/0134-openid-request-parameters.md), and what an OAuth request keeps.

const SLOW = { timeout: 30_000 };

async function setup() {
  const t = await createTestGatehouse({ settings: { openid: true } });
  const user = await t.seedUser({ email: 'ada@example.com' });
  const other = await t.seedUser({ email: 'bob@example.com' });
  const { client } = await t.seedClient({ scopes: ['messaging.v1.read', 'openid', 'profile'] });
  const check = (params: RawParameters) => t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', redirect_uri: client.redirectUris[0], state: 's-1', ...params });
  return { t, user, other, client, check };
}

describe('OpenID Connect request parameters', SLOW, () => {
  it('refuses request, request_uri and registration with their own errors', async () => {
    const { check } = await setup();
    const refused = async (params: RawParameters) => {
      const result = await check({ scope: 'openid', ...params });
      if (result.kind !== 'redirect-error') throw new Error(`expected an error redirect, got ${result.kind}`);
      return { code: result.error.code, redirect: new URL(result.redirectTo) };
    };
    const request = await refused({ request: 'eyJhbGciOiJub25lIn0.e30.' });
    expect(request.code).toBe('request_not_supported');
    expect(request.redirect.searchParams.get('state')).toBe('s-1');
    expect((await refused({ request_uri: 'https://client.example/request.jwt' })).code).toBe('request_uri_not_supported');
    expect((await refused({ registration: '{}' })).code).toBe('registration_not_supported');
    // A claims parameter beside them changes nothing: still their errors.
    expect((await refused({ request: 'eyJhbGciOiJub25lIn0.e30.', claims: '{}' })).code).toBe('request_not_supported');
    expect((await refused({ request_uri: 'https://client.example/request.jwt', claims: '{}' })).code).toBe('request_uri_not_supported');
    expect((await refused({ response_mode: 'form_post' })).code).toBe('invalid_request');
    expect((await refused({ display: 'fullscreen' })).code).toBe('invalid_request');
    expect((await refused({ nonce: 'n'.repeat(513) })).code).toBe('invalid_request');
    expect((await refused({ nonce: ['a', 'b'] })).code).toBe('invalid_request');
    expect((await refused({ ui_locales: 'en-US <script>' })).code).toBe('invalid_request');
  });

  it('ignores claims (OIDC Core §5.5, unsupported), well-formed, malformed or repeated: the request goes on and the ID token carries the claims of its scopes', async () => {
    const { t, user, client, check } = await setup();
    const plain = await check({ scope: 'openid profile', nonce: 'n-1' });
    expect(plain.kind).toBe('valid');
    for (const claims of ['{"id_token":{"email":{"essential":true}},"userinfo":{"phone_number":null}}', 'not JSON', ['{}', '{"userinfo":{}}']]) {
      expect(await check({ scope: 'openid profile', nonce: 'n-1', claims })).toEqual(plain);
    }
    const asked = await check({ scope: 'openid profile', nonce: 'n-1', claims: '{"id_token":{"email":{"essential":true}}}' });
    if (asked.kind !== 'valid') throw new Error(`expected a valid request, got ${asked.kind}`);
    const { redirectTo } = await t.gatehouse.approveAuthorization({ request: asked.request, userKey: user.userKey, sessionId: null });
    const code = new URL(redirectTo).searchParams.get('code') as string;
    const tokens = await t.gatehouse.exchangeCode({ client, code, redirectUri: asked.request.redirectUri, codeVerifier: undefined });
    const without = await t.obtainTokens({ client, user, scope: 'openid profile', nonce: 'n-1' });
    expect(tokens.scope).toBe(without.scope);
    const idToken = await t.checkIdToken(tokens.id_token, { client, nonce: 'n-1', accessToken: tokens.access_token });
    const plainIdToken = await t.checkIdToken(without.id_token, { client, nonce: 'n-1', accessToken: without.access_token });
    expect(Object.keys(idToken).sort()).toEqual(Object.keys(plainIdToken).sort());
    expect(idToken).not.toHaveProperty('email');
  });

  it('ignores scope values it does not know in an OpenID request (OIDC Core §3.1.2.1), still refuses a known one the client lacks, and refuses unknown ones in an OAuth request (docs/decisions/0206)', async () => {
    const { check } = await setup();
    const ignoring = await check({ scope: 'openid another-providers-scope profile https://other.example/scope' });
    if (ignoring.kind !== 'valid') throw new Error(`expected a valid request, got ${ignoring.kind}`);
    expect(ignoring.request.scopes).toEqual(['openid', 'profile']);
    expect(await check({ scope: 'openid messaging.v1.send' })).toMatchObject({ kind: 'redirect-error', error: { code: 'invalid_scope' } });
    expect(await check({ scope: 'messaging.v1.read bogus' })).toMatchObject({ kind: 'redirect-error', error: { code: 'invalid_scope' } });
  });

  it('prompt=select_account is account_selection_required for an OpenID request, invalid_request (as before) for an OAuth one', async () => {
    const { check } = await setup();
    expect(await check({ scope: 'openid', prompt: 'select_account' })).toMatchObject({ kind: 'redirect-error', error: { code: 'account_selection_required' } });
    expect(await check({ scope: 'openid', prompt: 'consent select_account' })).toMatchObject({ kind: 'redirect-error', error: { code: 'account_selection_required' } });
    expect(await check({ scope: 'messaging.v1.read', prompt: 'select_account' })).toMatchObject({ kind: 'redirect-error', error: { code: 'invalid_request' } });
  });

  it('keeps nonce and ui_locales, accepts response_mode=query and the display values', async () => {
    const { check } = await setup();
    const result = await check({ scope: 'openid profile', nonce: 'n-1', ui_locales: 'fr-CA fr en', response_mode: 'query', display: 'popup', acr_values: 'urn:x', claims_locales: 'fr' });
    expect(result).toMatchObject({ kind: 'valid', request: { openid: { nonce: 'n-1', uiLocales: ['fr-CA', 'fr', 'en'] } } });
  });

  it('an OAuth request ignores every OpenID Connect parameter, as before', async () => {
    const { check } = await setup();
    const result = await check({ scope: 'messaging.v1.read profile', nonce: 'x'.repeat(600), request: 'x', claims: '{}', response_mode: 'fragment', id_token_hint: 'garbage' });
    expect(result.kind).toBe('valid');
    expect(result.kind === 'valid' && result.request.openid).toBeUndefined();
  });

  it("max_age defaults to the client's default_max_age for an OpenID request only", async () => {
    const { t } = await setup();
    const { client } = await t.seedClient({ scopes: ['openid', 'messaging.v1.read'], defaultMaxAge: 600 });
    const check = (params: RawParameters) => t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', redirect_uri: client.redirectUris[0], ...params });
    expect(await check({ scope: 'openid' })).toMatchObject({ kind: 'valid', request: { maxAge: 600 } });
    expect(await check({ scope: 'openid', max_age: '60' })).toMatchObject({ kind: 'valid', request: { maxAge: 60 } });
    const oauth = await check({ scope: 'messaging.v1.read' });
    expect(oauth.kind === 'valid' && oauth.request.maxAge).toBeUndefined();
  });
});

describe('id_token_hint (OIDC Core §3.1.2.1)', SLOW, () => {
  it('names the user the request expects: the same user gets a code, another user login_required, with or without prompt=none', async () => {
    const { t, user, other, client, check } = await setup();
    const tokens = await t.obtainTokens({ client, user, scope: 'openid' });
    const hinted = await check({ scope: 'openid', id_token_hint: tokens.id_token as string, prompt: 'none' });
    if (hinted.kind !== 'valid') throw new Error('the hint should be accepted');
    expect(hinted.request.openid?.expectedUserKey).toBe(user.userKey);

    const session = async (who: typeof user) => (await t.gatehouse.signIn({ email: who.email, password: 'password123' })).session;
    const as = async (who: typeof user, prompts: RawParameters) => {
      const s = await session(who);
      const request = await check({ scope: 'openid', id_token_hint: tokens.id_token as string, ...prompts });
      if (request.kind !== 'valid') throw new Error('valid');
      return t.gatehouse.nextAuthorizationStep({ request: request.request, user: { userKey: who.userKey, sessionId: s.sessionId, authenticatedAt: s.authenticatedAt }, returnTo: '/oauth/authorize' });
    };
    await t.gatehouse.approveAuthorization({ request: hinted.request, userKey: user.userKey, sessionId: null });
    const same = await as(user, { prompt: 'none' });
    expect(same.kind === 'redirect' && new URL(same.redirectTo).searchParams.has('code')).toBe(true);
    for (const prompts of [{ prompt: 'none' }, {}, { prompt: 'consent' }]) {
      const step = await as(other, prompts);
      expect(step.kind).toBe('redirect');
      expect(step.kind === 'redirect' && new URL(step.redirectTo).searchParams.get('error')).toBe('login_required');
    }
    // Nor does an Allow posted by the other user issue a code.
    const { redirectTo } = await t.gatehouse.approveAuthorization({ request: hinted.request, userKey: other.userKey, sessionId: null });
    expect(new URL(redirectTo).searchParams.get('error')).toBe('login_required');
  });

  it('is accepted when expired (it still names the user), refused when it is another client\'s, forged, an access token or garbage', async () => {
    const { t, user, client, check } = await setup();
    const { client: otherClient } = await t.seedClient({ scopes: ['openid'] });
    const tokens = await t.obtainTokens({ client, user, scope: 'openid' });
    const theirs = await t.obtainTokens({ client: otherClient, user, scope: 'openid' });
    t.clock.advance(7200);
    expect(await check({ scope: 'openid', id_token_hint: tokens.id_token as string })).toMatchObject({ kind: 'valid', request: { openid: { expectedUserKey: user.userKey } } });
    const { kid, key } = await depsOf(t.gatehouse).keys.signingKey('ES256');
    const claims = { iss: t.settings.issuer, sub: user.userKey, aud: client.clientId, exp: 4102444800 };
    const unknownKey = await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: 'unknown' }).sign(key);
    const otherIssuer = await new SignJWT({ ...claims, iss: 'https://evil.example' }).setProtectedHeader({ alg: 'ES256', kid }).sign(key);
    const noSubject = await new SignJWT({ ...claims, sub: undefined }).setProtectedHeader({ alg: 'ES256', kid }).sign(key);
    // The same claims with a key of the ring are a valid hint: the refusals above are for what they change.
    expect(await check({ scope: 'openid', id_token_hint: await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid }).sign(key) })).toMatchObject({ kind: 'valid' });
    for (const hint of [theirs.id_token as string, tokens.access_token, unknownKey, otherIssuer, noSubject, 'garbage', 'a.b.c']) {
      expect(await check({ scope: 'openid', id_token_hint: hint })).toMatchObject({ kind: 'redirect-error', error: { code: 'invalid_request' } });
    }
    expect(await verifyIdTokenHint(depsOf(t.gatehouse), tokens.id_token as string)).toMatchObject({ sub: user.userKey, audiences: [client.clientId], expired: true });
  });
});

describe("the host's login page and OpenID Connect (describeLoginRequest, completeLogin)", SLOW, () => {
  it('describes ui_locales, the user an id_token_hint expects, and that the app signs the user in with OpenID Connect', async () => {
    const { t, user, client } = await setup();
    const tokens = await t.obtainTokens({ client, user, scope: 'openid' });
    const query = new URLSearchParams({ client_id: client.clientId, response_type: 'code', redirect_uri: client.redirectUris[0] as string, scope: 'openid profile', ui_locales: 'de-CH de', login_hint: 'ada', id_token_hint: tokens.id_token as string });
    const { loginRequest } = await t.gatehouse.startLogin({ returnTo: `/oauth/authorize?${query.toString()}` });
    expect(await t.gatehouse.describeLoginRequest(loginRequest)).toMatchObject({ openid: true, uiLocales: ['de-CH', 'de'], expectedUserKey: user.userKey, loginHint: 'ada', scopes: ['openid', 'profile'] });
    const plain = await t.gatehouse.startLogin({ returnTo: `/oauth/authorize?${new URLSearchParams({ client_id: client.clientId, response_type: 'code', scope: 'messaging.v1.read', ui_locales: 'de' }).toString()}` });
    expect(await t.gatehouse.describeLoginRequest(plain.loginRequest)).toMatchObject({ openid: false, uiLocales: undefined, expectedUserKey: undefined });
  });

  it("keeps the host's amr and acr on the session, and refuses ones that are not method names, the login request left usable", async () => {
    const { t, user, client } = await setup();
    const returnTo = `/oauth/authorize?${new URLSearchParams({ client_id: client.clientId, response_type: 'code', redirect_uri: client.redirectUris[0] as string, scope: 'openid' }).toString()}`;
    const { loginRequest } = await t.gatehouse.startLogin({ returnTo });
    for (const bad of [{ amr: ['pwd otp'] }, { amr: Array.from({ length: 11 }, (_, i) => `m${i}`) }, { acr: 'a b' }, { amr: 'pwd' as unknown as string[] }]) {
      await expect(t.gatehouse.completeLogin({ loginRequest, userKey: user.userKey, authenticatedAt: t.clock.now(), ...bad })).rejects.toMatchObject({ kind: 'invalid' });
    }
    const { session } = await t.gatehouse.completeLogin({ loginRequest, userKey: user.userKey, authenticatedAt: t.clock.now(), amr: ['pwd', 'otp', 'pwd'], acr: 'urn:example:loa:2' });
    expect(await t.repositories.sessions.findById(session.sessionId)).toMatchObject({ amr: ['pwd', 'otp'], acr: 'urn:example:loa:2' });
  });
});
