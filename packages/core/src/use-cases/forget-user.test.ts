import { describe, expect, it } from 'vitest';
import { DomainError } from '../errors.js';
import { createMemoryUserDirectory, createTestGatehouse } from '@gatehouse/core/testing';
import { expectOAuthError } from '../test-support/rejections.js';

// docs/decisions/0140-forgetting-a-user.md: the host deleted a user; one call forgets them.

const ada = { userKey: 'host-ada', email: 'ada@host.example', givenName: 'Ada', familyName: 'Lovelace' };
const grace = { userKey: 'host-grace', email: 'grace@host.example', givenName: 'Grace', familyName: 'Hopper' };

async function aHostWithTwoSignedInUsers() {
  const directory = createMemoryUserDirectory([ada, grace]);
  const t = await createTestGatehouse({ userDirectory: directory });
  const { client } = await t.seedClient({ name: 'Orders' });
  const adas = await t.obtainTokensViaHostLogin({ client, userKey: ada.userKey });
  const graces = await t.obtainTokensViaHostLogin({ client, userKey: grace.userKey });
  const codeFor = async (userKey: string) => {
    const check = await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', redirect_uri: client.redirectUris[0] });
    if (check.kind !== 'valid') throw check.error;
    const { redirectTo } = await t.gatehouse.approveAuthorization({ request: check.request, userKey, sessionId: null });
    return { code: new URL(redirectTo).searchParams.get('code') as string, redirectUri: check.request.redirectUri };
  };
  return { t, directory, client, adas, graces, codeFor };
}

describe('forgetUser', () => {
  it("stops the user's access tokens, refresh tokens, sessions and codes in flight at once, and forgets their consents", async () => {
    const { t, client, adas, codeFor } = await aHostWithTwoSignedInUsers();
    const inFlight = await codeFor(ada.userKey);
    await t.gatehouse.startConsent({ returnTo: '/auth/oauth/authorize?client_id=x', userKey: ada.userKey, sessionId: null });
    expect((await t.gatehouse.verifyAccessToken(adas.tokens.access_token)).userKey).toBe(ada.userKey);

    const forgotten = await t.gatehouse.forgetUser(ada.userKey);

    expect(forgotten).toEqual({ sessions: 1, grants: 1, codes: 1, consents: 1, interactions: 1 });
    // The access token is refused before it expires: its grant is gone.
    expect((await expectOAuthError(t.gatehouse.verifyAccessToken(adas.tokens.access_token))).code).toBe('invalid_token');
    const refresh = t.gatehouse.refresh({ client, refreshToken: adas.tokens.refresh_token as string, scope: undefined });
    expect((await expectOAuthError(refresh)).code).toBe('invalid_grant');
    const exchange = t.gatehouse.exchangeCode({ client, code: inFlight.code, redirectUri: inFlight.redirectUri, codeVerifier: undefined });
    expect((await expectOAuthError(exchange)).code).toBe('invalid_grant');
    expect(await t.gatehouse.resolveSession(adas.sessionToken)).toBeUndefined();
    expect(await t.gatehouse.listAuthorizedApps(ada.userKey)).toEqual([]);
    expect(await t.repositories.consents.find(ada.userKey, client.clientId)).toBeUndefined();
    expect(t.audit.ofType('user.forgotten')).toEqual([expect.objectContaining({ userKey: ada.userKey, grantIds: [expect.any(String)] })]);
  });

  it("leaves every other user's tokens, sessions and consents as they were", async () => {
    const { t, client, graces } = await aHostWithTwoSignedInUsers();
    await t.gatehouse.forgetUser(ada.userKey);
    expect((await t.gatehouse.verifyAccessToken(graces.tokens.access_token)).userKey).toBe(grace.userKey);
    expect((await t.gatehouse.resolveSession(graces.sessionToken))?.user.userKey).toBe(grace.userKey);
    expect((await t.gatehouse.refresh({ client, refreshToken: graces.tokens.refresh_token as string, scope: undefined })).token_type).toBe('Bearer');
    expect((await t.repositories.consents.find(grace.userKey, client.clientId))?.clientId).toBe(client.clientId);
  });

  it('leaves client-credentials tokens alone and is idempotent', async () => {
    const { t } = await aHostWithTwoSignedInUsers();
    const { client: machine } = await t.seedClient({ grantTypes: ['client_credentials'] });
    const machineToken = await t.gatehouse.clientCredentials({ client: machine, scope: undefined });
    await t.gatehouse.forgetUser(ada.userKey);
    expect(await t.gatehouse.forgetUser(ada.userKey)).toEqual({ sessions: 0, grants: 0, codes: 0, consents: 0, interactions: 0 });
    expect((await t.gatehouse.verifyAccessToken(machineToken.access_token)).subjectType).toBe('client');
  });

  it('refuses an empty user key and deletes nothing', async () => {
    const { t, graces } = await aHostWithTwoSignedInUsers();
    await expect(t.gatehouse.forgetUser('')).rejects.toBeInstanceOf(DomainError);
    expect((await t.gatehouse.verifyAccessToken(graces.tokens.access_token)).userKey).toBe(grace.userKey);
    expect(t.audit.ofType('user.forgotten')).toEqual([]);
  });
});
