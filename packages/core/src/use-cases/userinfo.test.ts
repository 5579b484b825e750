import { describe, expect, it } from 'vitest';
import { createMemoryUserDirectory, createTestGatehouse } from '@gatehouse/core/testing';
import type { StandardClaims, UserDirectory } from '../ports/users.js';
import { expectOAuthError } from '../test-support/rejections.js';

// OIDC Core §5.3 UserInfo as a use case (docs/decisions/0130, 0132): the claims of the granted
// scopes, from the user directory.

const SLOW = { timeout: 30_000 };

describe("userInfo with Gatehouse's own users", SLOW, () => {
  it('answers sub and the claims of each granted scope: profile (names, locale), email (never said verified), phone', async () => {
    const t = await createTestGatehouse({ settings: { openid: true } });
    const user = await t.seedUser({ email: 'ada@example.com', givenName: 'Ada', familyName: 'Lovelace', phone: '+15551234567' });
    const { client } = await t.seedClient();
    const verify = async (scope: string) => t.gatehouse.userInfo(await t.gatehouse.verifyAccessToken((await t.obtainTokens({ client, user, scope })).access_token));

    expect(await verify('openid')).toEqual({ sub: user.userKey });
    expect(await verify('openid profile')).toEqual({ sub: user.userKey, name: 'Ada Lovelace', given_name: 'Ada', family_name: 'Lovelace', locale: 'en-US' });
    expect(await verify('openid email')).toEqual({ sub: user.userKey, email: 'ada@example.com' });
    expect(await verify('openid phone')).toEqual({ sub: user.userKey, phone_number: '+15551234567' });
    expect(await verify('openid profile email phone address messaging.v1.read')).toEqual({
      sub: user.userKey,
      name: 'Ada Lovelace',
      given_name: 'Ada',
      family_name: 'Lovelace',
      locale: 'en-US',
      email: 'ada@example.com',
      phone_number: '+15551234567',
    });
  });

  it('refuses a token without openid (insufficient_scope, naming the scope) and one of a client (no user)', async () => {
    const t = await createTestGatehouse({ settings: { openid: true } });
    const user = await t.seedUser();
    const { client } = await t.seedClient();
    const oauth = await t.gatehouse.verifyAccessToken((await t.obtainTokens({ client, user, scope: 'messaging.v1.read profile' })).access_token);
    const error = await expectOAuthError(t.gatehouse.userInfo(oauth), 'insufficient_scope');
    expect(error.scope).toBe('openid');
    await expectOAuthError(t.gatehouse.userInfo({ subjectType: 'client', userKey: null, scopes: ['openid'] }), 'invalid_token');
  });
});

describe("userInfo with the host's users (claimsFor)", SLOW, () => {
  const profile = { userKey: 'u-42', email: 'grace', givenName: 'Grace', familyName: 'Hopper' };

  it("answers the host's claims, only those of the granted scopes, sub always the user key; email_verified only when the host says so", async () => {
    const asked: Array<readonly string[]> = [];
    const hostClaims: StandardClaims = {
      name: 'Grace Hopper',
      nickname: 'Amazing Grace',
      picture: 'https://orders.example/grace.png',
      email: 'grace@orders.example',
      email_verified: true,
      phone_number: '+15550000000',
      address: { locality: 'Arlington', country: 'US' },
    };
    const directory: UserDirectory = { ...createMemoryUserDirectory([profile]), claimsFor: async (userKey, scopes) => (asked.push(scopes), userKey === 'u-42' ? { ...hostClaims, sub: 'forged' } as StandardClaims : undefined) };
    const t = await createTestGatehouse({ userDirectory: directory, settings: { openid: true } });
    const { client } = await t.seedClient();
    const { tokens } = await t.obtainTokensViaHostLogin({ client, userKey: 'u-42', scope: 'openid profile email address' });
    expect(await t.gatehouse.userInfo(await t.gatehouse.verifyAccessToken(tokens.access_token))).toEqual({
      sub: 'u-42',
      name: 'Grace Hopper',
      nickname: 'Amazing Grace',
      picture: 'https://orders.example/grace.png',
      email: 'grace@orders.example',
      email_verified: true,
      address: { locality: 'Arlington', country: 'US' },
    });
    expect(asked).toEqual([['openid', 'profile', 'email', 'address']]);
  });

  it('without claimsFor: the names for profile, the login name for email only when it is an address; a user gone is invalid_token', async () => {
    const users = createMemoryUserDirectory([profile, { userKey: 'u-7', email: 'linus@orders.example', givenName: 'Linus', familyName: '' }]);
    const t = await createTestGatehouse({ userDirectory: users, settings: { openid: true } });
    const { client } = await t.seedClient();
    const info = async (userKey: string) => {
      const { tokens } = await t.obtainTokensViaHostLogin({ client, userKey, scope: 'openid profile email' });
      return t.gatehouse.userInfo(await t.gatehouse.verifyAccessToken(tokens.access_token));
    };
    expect(await info('u-42')).toEqual({ sub: 'u-42', name: 'Grace Hopper', given_name: 'Grace', family_name: 'Hopper' });
    expect(await info('u-7')).toEqual({ sub: 'u-7', name: 'Linus', given_name: 'Linus', email: 'linus@orders.example' });
    const { tokens } = await t.obtainTokensViaHostLogin({ client, userKey: 'u-7', scope: 'openid' });
    const verified = await t.gatehouse.verifyAccessToken(tokens.access_token);
    users.remove('u-7');
    await expectOAuthError(t.gatehouse.userInfo(verified), 'invalid_token');
  });
});
