import { describe, expect, it } from 'vitest';
import { OAuthError } from '@gatehouse/core';
import { createMemoryUserDirectory, createTestGatehouse } from '@gatehouse/core/testing';
import type { UserDirectory, UserProfile } from '../ports/users.js';
import { expectOAuthError } from '../test-support/rejections.js';

const ADA: UserProfile = { userKey: 'orders-7', email: 'ada@orders.example', givenName: 'Ada', familyName: 'Lovelace' };

async function aPublicClient(t: Awaited<ReturnType<typeof createTestGatehouse>>) {
  const { client } = await t.gatehouse.registerClient({ name: 'Single-page app', public: true, redirectUris: ['https://spa.example/cb'], scopes: ['messaging.v1.read'] });
  return client;
}

describe('obtainTokens and authorize with PKCE', () => {
  it('obtains tokens for a client that requires PKCE', async () => {
    const t = await createTestGatehouse();
    const user = await t.seedUser();
    const { client } = await t.seedClient({ pkceRequired: true, scopes: ['messaging.v1.read'] });
    const tokens = await t.obtainTokens({ client, user });
    expect((await t.gatehouse.verifyAccessToken(tokens.access_token)).userKey).toBe(user.userKey);
  });

  it('obtains tokens for a public client', async () => {
    const t = await createTestGatehouse();
    const user = await t.seedUser();
    const client = await aPublicClient(t);
    const tokens = await t.obtainTokens({ client, user });
    expect((await t.gatehouse.verifyAccessToken(tokens.access_token)).clientId).toBe(client.clientId);
  });

  it('obtains tokens through the host login for a client that requires PKCE', async () => {
    const t = await createTestGatehouse({ userDirectory: createMemoryUserDirectory([ADA]) });
    const { client } = await t.seedClient({ pkceRequired: true, scopes: ['messaging.v1.read'] });
    const { tokens } = await t.obtainTokensViaHostLogin({ client, userKey: ADA.userKey });
    expect((await t.gatehouse.verifyAccessToken(tokens.access_token)).userKey).toBe(ADA.userKey);
  });

  it('authorize stops before the exchange: its code exchanges with the verifier it returns, until it expires', async () => {
    const t = await createTestGatehouse();
    const user = await t.seedUser();
    const { client } = await t.seedClient({ pkceRequired: true, scopes: ['messaging.v1.read'] });
    const first = await t.authorize({ client, user });
    expect(first.redirectUri).toBe(client.redirectUris[0]);
    expect(first.codeVerifier).toMatch(/^[A-Za-z0-9\-._~]{43,128}$/);
    const tokens = await t.gatehouse.exchangeCode({ client, code: first.code, redirectUri: first.redirectUri, codeVerifier: first.codeVerifier });
    expect(tokens.access_token).toEqual(expect.any(String));

    const second = await t.authorize({ client, user });
    expect(second.codeVerifier).not.toBe(first.codeVerifier);
    t.clock.advance(t.settings.codeTtlSeconds);
    const expired = await expectOAuthError(t.gatehouse.exchangeCode({ client, code: second.code, redirectUri: second.redirectUri, codeVerifier: second.codeVerifier }), 'invalid_grant');
    expect(expired).toBeInstanceOf(OAuthError);
  });

  it('sends no challenge for a confidential client that does not require PKCE, unless given a verifier', async () => {
    const t = await createTestGatehouse();
    const user = await t.seedUser();
    const { client } = await t.seedClient({ scopes: ['messaging.v1.read'] });
    const plain = await t.authorize({ client, user });
    expect(plain).toEqual({ code: expect.any(String), redirectUri: client.redirectUris[0] });
    await expect(t.gatehouse.exchangeCode({ client, code: plain.code, redirectUri: plain.redirectUri, codeVerifier: undefined })).resolves.toBeDefined();

    const codeVerifier = 'my-own-verifier-of-forty-three-characters-or-more';
    const withPkce = await t.authorize({ client, user, codeVerifier });
    expect(withPkce.codeVerifier).toBe(codeVerifier);
    const missing = await expectOAuthError(t.gatehouse.exchangeCode({ client, code: withPkce.code, redirectUri: withPkce.redirectUri, codeVerifier: undefined }), 'invalid_grant');
    expect(missing.message).toMatch(/code_verifier is required/);
    await expect(t.gatehouse.exchangeCode({ client, code: withPkce.code, redirectUri: withPkce.redirectUri, codeVerifier })).resolves.toBeDefined();
  });

  it('takes a user directory\'s profile as the user, only its key counting', async () => {
    const t = await createTestGatehouse({ userDirectory: createMemoryUserDirectory([ADA]) });
    const { client } = await t.seedClient({ scopes: ['messaging.v1.read'] });
    // A UserProfile has no password hash or locale: `user` is typed as Pick<User, 'userKey'>.
    const tokens = await t.obtainTokens({ client, user: ADA });
    expect(tokens.principal).toBe(ADA.email);
  });
});

describe('seedUser with a user directory', () => {
  it('adds the user to a directory of createMemoryUserDirectory, so tokens are issued for it', async () => {
    const directory = createMemoryUserDirectory([ADA]);
    const t = await createTestGatehouse({ userDirectory: directory });
    const user = await t.seedUser({ email: 'grace@example.com', givenName: 'Grace', familyName: 'Hopper' });
    expect(await directory.findByKey(user.userKey)).toEqual({ userKey: user.userKey, email: 'grace@example.com', givenName: 'Grace', familyName: 'Hopper' });
    const { client } = await t.seedClient({ scopes: ['messaging.v1.read'] });
    const tokens = await t.obtainTokens({ client, user });
    expect(tokens.principal).toBe('grace@example.com');
  });

  it('throws, saying what to do, with a directory of the host\'s own', async () => {
    const own: UserDirectory = { findByKey: async (userKey) => (userKey === ADA.userKey ? ADA : undefined), findByLogin: async () => undefined };
    const t = await createTestGatehouse({ userDirectory: own });
    await expect(t.seedUser()).rejects.toThrow(/seedUser cannot add a user to the userDirectory.*Add the user to your directory/);
    expect(await t.repositories.users.findByEmail('user1@example.com')).toBeUndefined();
  });
});
