import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { createControllableClock, createFastPasswordHasher, createMemoryRepositories, createTestGatehouse } from '@gatehouse/core/testing';
import { createGatehouse, depsOf } from '../gatehouse.js';
import { createProductApi } from '../product/create-product-api.js';
import { defineSettings } from '../settings.js';
import type { AccessTokenClaims } from './access-token-claims.js';
import type { KeyRing } from './key-ring.js';
import { createVerifiedTokenCache } from './verified-token-cache.js';
import { expectOAuthError } from '../test-support/rejections.js';

function claims(exp: number): AccessTokenClaims {
  return { iss: 'i', sub: 's', aud: 'a', client_id: 'c', scope: 'x', iat: exp - 3600, exp, jti: 'j', principal: 'p', gid: 'g' };
}

const expectInvalidToken = (promise: Promise<unknown>) => expectOAuthError(promise, 'invalid_token');

describe('createVerifiedTokenCache', () => {
  it('returns what was stored until the token expires, then forgets it', () => {
    const cache = createVerifiedTokenCache({ maxEntries: 10 });
    cache.set('t1', { claims: claims(1000), kid: 'k' });
    expect(cache.get('t1', 999)).toEqual({ claims: claims(1000), kid: 'k' });
    expect(cache.get('t1', 1000)).toBeUndefined();
    expect(cache.size).toBe(0);
    expect(cache.get('unknown', 0)).toBeUndefined();
  });

  it('holds at most maxEntries, dropping the least recently used first', () => {
    const cache = createVerifiedTokenCache({ maxEntries: 2 });
    cache.set('a', { claims: claims(1000), kid: 'k' });
    cache.set('b', { claims: claims(1000), kid: 'k' });
    expect(cache.get('a', 0)).toBeDefined(); // a is now the most recently used
    cache.set('c', { claims: claims(1000), kid: 'k' });
    expect(cache.size).toBe(2);
    expect(cache.get('b', 0)).toBeUndefined();
    expect(cache.get('a', 0)).toBeDefined();
    expect(cache.get('c', 0)).toBeDefined();
  });

  it('stores nothing with maxEntries 0', () => {
    const cache = createVerifiedTokenCache({ maxEntries: 0 });
    cache.set('a', { claims: claims(1000), kid: 'k' });
    expect(cache.size).toBe(0);
    expect(cache.get('a', 0)).toBeUndefined();
  });
});

describe('verifyAccessToken with the verified-token cache', () => {
  async function setup() {
    const t = await createTestGatehouse();
    const user = await t.seedUser({ email: 'ada@example.com' });
    const { client } = await t.seedClient({ scopes: ['messaging.v1.read'] });
    const tokens = await t.obtainTokens({ client, user });
    return { t, user, client, tokens };
  }

  it('remembers a verified token and answers the same from the cache', async () => {
    const { t, user, tokens } = await setup();
    const cache = depsOf(t.gatehouse).verifiedTokens;
    expect(cache?.size).toBe(0);
    const first = await t.gatehouse.verifyAccessToken(tokens.access_token);
    expect(cache?.size).toBe(1);
    const second = await t.gatehouse.verifyAccessToken(tokens.access_token);
    expect(second).toEqual(first);
    expect(second).toMatchObject({ userKey: user.userKey, scopes: ['messaging.v1.read'] });
  });

  it("refuses a revoked grant's token at once, although its claims are cached", async () => {
    const { t, client, tokens } = await setup();
    await t.gatehouse.verifyAccessToken(tokens.access_token);
    await t.gatehouse.verifyAccessToken(tokens.access_token);
    await t.gatehouse.revokeToken({ client, token: tokens.refresh_token as string, tokenTypeHint: undefined });
    const error = await expectInvalidToken(t.gatehouse.verifyAccessToken(tokens.access_token));
    expect(error.detail).toContain('revoked');
  });

  it('refuses a cached token once it has expired', async () => {
    const { t, tokens } = await setup();
    await t.gatehouse.verifyAccessToken(tokens.access_token);
    t.clock.advance(3600);
    await expectInvalidToken(t.gatehouse.verifyAccessToken(tokens.access_token));
    expect(depsOf(t.gatehouse).verifiedTokens?.size).toBe(0);
  });

  it('does not cache refused tokens, and a tampered copy of a cached token is still refused', async () => {
    const { t, tokens } = await setup();
    await t.gatehouse.verifyAccessToken(tokens.access_token);
    const [header, payload, signature] = tokens.access_token.split('.') as [string, string, string];
    const widened = Buffer.from(JSON.stringify({ ...decodeJwt(tokens.access_token), scope: 'admin.v1.attributes.write' })).toString('base64url');
    await expectInvalidToken(t.gatehouse.verifyAccessToken(`${header}.${widened}.${signature}`));
    // Another ending, whatever the signature ended with (1 signature in 256 ends with 'AA' already).
    const otherEnding = signature.endsWith('AA') ? 'BA' : 'AA';
    await expectInvalidToken(t.gatehouse.verifyAccessToken(`${header}.${payload}.${signature.slice(0, -2)}${otherEnding}`));
    expect(depsOf(t.gatehouse).verifiedTokens?.size).toBe(1);
  });

  it('refuses a cached token whose signing key the key ring no longer knows', async () => {
    const repositories = createMemoryRepositories();
    const clock = createControllableClock();
    const settings = defineSettings({ issuer: 'http://localhost:3000' });
    const plain = createGatehouse({ repositories, settings, clock });
    let forgetKeys = false;
    const keys: KeyRing = {
      ...depsOf(plain).keys,
      verificationKey: async (kid) => (forgetKeys ? undefined : depsOf(plain).keys.verificationKey(kid)),
    };
    const gatehouse = createGatehouse({ repositories, settings, clock, keys, passwords: createFastPasswordHasher() });
    const user = await createProductApi({ gatehouse, repositories, passwords: createFastPasswordHasher() }).createUser({ email: 'ada@example.com', password: 'password123' });
    const { client } = await gatehouse.registerClient({ name: 'App', redirectUris: ['https://app.example/cb'], scopes: ['messaging.v1.read'] });
    const check = await gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code' });
    if (check.kind !== 'valid') throw check.error;
    const { redirectTo } = await gatehouse.approveAuthorization({ request: check.request, userKey: user.userKey, sessionId: null });
    const code = new URL(redirectTo).searchParams.get('code') as string;
    const tokens = await gatehouse.exchangeCode({ client, code, redirectUri: 'https://app.example/cb', codeVerifier: undefined });

    await gatehouse.verifyAccessToken(tokens.access_token);
    expect(depsOf(gatehouse).verifiedTokens?.size).toBe(1);
    forgetKeys = true;
    await expectInvalidToken(gatehouse.verifyAccessToken(tokens.access_token));
    expect(depsOf(gatehouse).verifiedTokens?.size).toBe(0);
  });

  it('can be turned off (verifiedTokenCacheSize 0): tokens still verify', async () => {
    const repositories = createMemoryRepositories();
    const clock = createControllableClock();
    const gatehouse = createGatehouse({ repositories, settings: defineSettings({ issuer: 'http://localhost:3000' }), clock, verifiedTokenCacheSize: 0, passwords: createFastPasswordHasher() });
    const user = await createProductApi({ gatehouse, repositories, passwords: createFastPasswordHasher() }).createUser({ email: 'ada@example.com', password: 'password123' });
    const { client } = await gatehouse.registerClient({ name: 'App', redirectUris: ['https://app.example/cb'], scopes: ['messaging.v1.read'] });
    const check = await gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code' });
    if (check.kind !== 'valid') throw check.error;
    const { redirectTo } = await gatehouse.approveAuthorization({ request: check.request, userKey: user.userKey, sessionId: null });
    const code = new URL(redirectTo).searchParams.get('code') as string;
    const tokens = await gatehouse.exchangeCode({ client, code, redirectUri: 'https://app.example/cb', codeVerifier: undefined });
    expect((await gatehouse.verifyAccessToken(tokens.access_token)).userKey).toBe(user.userKey);
    expect(depsOf(gatehouse).verifiedTokens?.size).toBe(0);
  });
});
