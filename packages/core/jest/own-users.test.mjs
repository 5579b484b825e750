/* global describe, it, expect */
// How an embedder whose service owns its users tests the delegated login with Jest: a user
// directory of its own, the host's login completed through `completeLogin`, tokens for its user.
import { DomainError } from '@gatehouse/core';
import { createMemoryUserDirectory, createTestGatehouse } from '@gatehouse/core/testing';

const ADA = { userKey: 'orders-7', email: 'ada@orders.example', givenName: 'Ada', familyName: 'Lovelace' };

async function embedded(options = {}) {
  const t = await createTestGatehouse({ userDirectory: createMemoryUserDirectory([ADA]), ...options });
  const { client } = await t.seedClient({ scopes: ['messaging.v1.read'] });
  return { t, client };
}

describe('bring your own users, under Jest', () => {
  it('issues tokens for the host\'s user after the host completed the login request', async () => {
    const { t, client } = await embedded();
    const { tokens, sessionToken } = await t.obtainTokensViaHostLogin({ client, userKey: ADA.userKey });
    expect(tokens.principal).toBe('ada@orders.example');
    expect((await t.gatehouse.verifyAccessToken(tokens.access_token)).userKey).toBe('orders-7');
    expect((await t.gatehouse.resolveSession(sessionToken)).user).toEqual(ADA);
  });

  it('refuses a login request the second time and after it expired', async () => {
    const { t } = await embedded();
    const { loginRequest } = await t.gatehouse.startLogin({ returnTo: '/oauth/authorize?client_id=x' });
    const done = await t.gatehouse.completeLogin({ loginRequest, userKey: ADA.userKey, authenticatedAt: t.gatehouse.clock.now() });
    expect(done.redirectTo).toBe('/oauth/authorize?client_id=x');
    const reused = await t.gatehouse.completeLogin({ loginRequest, userKey: ADA.userKey, authenticatedAt: t.gatehouse.clock.now() }).catch((caught) => caught);
    expect(reused).toBeInstanceOf(DomainError);
    expect(reused.kind).toBe('not_found');
    const late = await t.gatehouse.startLogin({ returnTo: '/oauth/authorize?client_id=x' });
    t.clock.advance(600);
    const expired = await t.gatehouse.completeLogin({ loginRequest: late.loginRequest, userKey: ADA.userKey, authenticatedAt: t.gatehouse.clock.now() }).catch((caught) => caught);
    expect(expired.kind).toBe('not_found');
  });

  it('signs in on Gatehouse\'s login page through the host\'s password check', async () => {
    const { t } = await embedded({ passwordCheck: { verify: async (login, password) => (login === ADA.email && password === 's3cret' ? ADA.userKey : undefined) } });
    const { user } = await t.gatehouse.signIn({ email: ADA.email, password: 's3cret' });
    expect(user).toEqual(ADA);
    const refused = await t.gatehouse.signIn({ email: ADA.email, password: 'wrong' }).catch((caught) => caught);
    expect(refused.kind).toBe('unauthenticated');
  });

  it('ends the user\'s sessions and grants when the host signs them out', async () => {
    const { t, client } = await embedded();
    const { sessionToken } = await t.obtainTokensViaHostLogin({ client, userKey: ADA.userKey });
    const { revokedGrantIds } = await t.gatehouse.logoutUser(ADA.userKey);
    expect(revokedGrantIds).toHaveLength(1);
    expect(await t.gatehouse.resolveSession(sessionToken)).toBeUndefined();
  });
});
