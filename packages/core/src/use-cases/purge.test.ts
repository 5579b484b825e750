import { describe, expect, it } from 'vitest';
import { createTestGatehouse, s256Challenge } from '@gatehouse/core/testing';
import { sha256 } from '../crypto.js';
import { storedSecretHash } from '../domain/time-ordered-secret.js';
import { REVOKED_RETENTION_SECONDS } from './purge.js';
import { depsOf } from '../gatehouse.js';

async function approve(t: Awaited<ReturnType<typeof createTestGatehouse>>, clientId: string, userKey: string): Promise<string> {
  const check = await t.gatehouse.checkAuthorizationRequest({ client_id: clientId, response_type: 'code' });
  if (check.kind !== 'valid') throw check.error;
  const { redirectTo } = await t.gatehouse.approveAuthorization({ request: check.request, userKey, sessionId: null });
  return new URL(redirectTo).searchParams.get('code') as string;
}

describe('purgeExpired', () => {
  it('removes expired unused codes and keeps live ones', async () => {
    const t = await createTestGatehouse();
    const user = await t.seedUser();
    const { client } = await t.seedClient();
    const old = await approve(t, client.clientId, user.userKey);
    t.clock.advance(61);
    const fresh = await approve(t, client.clientId, user.userKey);
    expect(await t.gatehouse.purgeExpired()).toMatchObject({ codes: 1 });
    expect(await t.repositories.codes.findByHash(storedSecretHash(old))).toBeUndefined();
    expect(await t.repositories.codes.findByHash(storedSecretHash(fresh))).toBeDefined();
  });

  it('keeps a consumed code while its grant lives, so a late replay is still caught', async () => {
    const t = await createTestGatehouse();
    const user = await t.seedUser();
    const { client } = await t.seedClient();
    const code = await approve(t, client.clientId, user.userKey);
    const tokens = await t.gatehouse.exchangeCode({ client, code, redirectUri: client.redirectUris[0], codeVerifier: undefined });
    t.clock.advance(7 * 24 * 3600);
    expect(await t.gatehouse.purgeExpired()).toMatchObject({ codes: 0, grants: 0 });
    await expect(t.gatehouse.exchangeCode({ client, code, redirectUri: client.redirectUris[0], codeVerifier: undefined })).rejects.toMatchObject({ code: 'invalid_grant' });
    await expect(t.gatehouse.verifyAccessToken(tokens.access_token)).rejects.toMatchObject({ code: 'invalid_token' });
  });

  it('removes the grant of a client that may not refresh with its code once its access token expired and a day passed (docs/decisions/0193)', async () => {
    const t = await createTestGatehouse();
    const user = await t.seedUser();
    const { client } = await t.seedClient({ grantTypes: ['authorization_code'] });
    const code = await approve(t, client.clientId, user.userKey);
    const tokens = await t.gatehouse.exchangeCode({ client, code, redirectUri: client.redirectUris[0], codeVerifier: undefined });
    expect(tokens.refresh_token).toBeUndefined();
    const { grantId } = await t.gatehouse.verifyAccessToken(tokens.access_token);
    const { client: refreshClient } = await t.seedClient();
    const refreshable = await t.obtainTokens({ client: refreshClient, user });

    t.clock.advance(3600 + REVOKED_RETENTION_SECONDS);
    expect(await t.gatehouse.purgeExpired()).toMatchObject({ grants: 0 });
    // A day after its token expired, its code's replay is still recognized.
    expect(await t.repositories.codes.findByHash(storedSecretHash(code))).toBeDefined();

    t.clock.advance(1);
    expect(await t.gatehouse.purgeExpired()).toMatchObject({ grants: 1 });
    expect(await t.repositories.grants.findById(grantId)).toBeUndefined();
    expect(await t.repositories.codes.findByHash(storedSecretHash(code))).toBeUndefined();
    // A grant with a refresh token, as old, stays and refreshes.
    expect((await t.gatehouse.refresh({ client: refreshClient, refreshToken: refreshable.refresh_token as string, scope: undefined })).token_type).toBe('Bearer');
  });

  it('removes a revoked grant with its refresh token and code once its access tokens expired and a day passed', async () => {
    const t = await createTestGatehouse();
    const user = await t.seedUser();
    const { client } = await t.seedClient();
    const code = await approve(t, client.clientId, user.userKey);
    const tokens = await t.gatehouse.exchangeCode({ client, code, redirectUri: client.redirectUris[0], codeVerifier: undefined });
    const { grantId } = await t.gatehouse.verifyAccessToken(tokens.access_token);
    const live = await t.obtainTokens({ client, user });
    await t.gatehouse.revokeToken({ client, token: tokens.refresh_token as string, tokenTypeHint: undefined });

    t.clock.advance(3600 + REVOKED_RETENTION_SECONDS);
    expect(await t.gatehouse.purgeExpired()).toMatchObject({ grants: 0 });
    expect(await t.repositories.grants.findById(grantId)).toBeDefined();

    t.clock.advance(1);
    expect(await t.gatehouse.purgeExpired()).toMatchObject({ grants: 1 });
    expect(await t.repositories.grants.findById(grantId)).toBeUndefined();
    expect(await t.repositories.refreshTokens.findByHash(storedSecretHash(tokens.refresh_token as string))).toBeUndefined();
    expect(await t.repositories.codes.findByHash(storedSecretHash(code))).toBeUndefined();
    // The unrevoked grant stays, its refresh token still works.
    expect((await t.gatehouse.refresh({ client, refreshToken: live.refresh_token as string, scope: undefined })).token_type).toBe('Bearer');
  });

  it('removes ended and expired sessions and retired keys whose tokens expired', async () => {
    const t = await createTestGatehouse();
    const user = await t.seedUser({ password: 'password123' });
    const ended = await t.gatehouse.signIn({ email: user.email, password: 'password123' });
    await t.gatehouse.logout(ended.sessionToken);
    const expiring = await t.gatehouse.signIn({ email: user.email, password: 'password123' });
    await depsOf(t.gatehouse).keys.signingKey();
    await t.gatehouse.rotateSigningKey();
    expect((await t.gatehouse.jwks()).keys).toHaveLength(2);
    t.clock.advance(1);
    const live = await t.gatehouse.signIn({ email: user.email, password: 'password123' });
    expect(await t.gatehouse.purgeExpired()).toEqual({ grants: 0, codes: 0, sessions: 1, interactions: 0, keys: 0, unusedClients: 0 });
    expect(await t.repositories.sessions.findById(ended.session.sessionId)).toBeUndefined();

    t.clock.advance(12 * 3600);
    expect(await t.gatehouse.purgeExpired()).toEqual({ grants: 0, codes: 0, sessions: 1, interactions: 0, keys: 1, unusedClients: 0 });
    expect(await t.repositories.sessions.findById(expiring.session.sessionId)).toBeUndefined();
    expect(await t.repositories.sessions.findById(live.session.sessionId)).toBeDefined();
    expect((await t.gatehouse.jwks()).keys).toHaveLength(1);
  });

  describe('self-registered clients never used (docs/decisions/0119-unused-self-registered-clients.md)', () => {
    const AGENT = { client_name: 'Agent', redirect_uris: ['http://127.0.0.1/cb'], token_endpoint_auth_method: 'none' };

    async function registerTwo(unusedClientTtlSeconds: number | null = 3600) {
      const t = await createTestGatehouse({ settings: { registration: { policy: 'token', initialAccessTokenHashes: [sha256('initial')], unusedClientTtlSeconds } } });
      const user = await t.seedUser();
      const { client: unused } = await t.gatehouse.registerDynamicClient({ metadata: AGENT, initialAccessToken: 'initial' });
      const { client: used } = await t.gatehouse.registerDynamicClient({ metadata: AGENT, initialAccessToken: 'initial' });
      const { client: staticClient } = await t.seedClient();
      return { t, user, unused, used, staticClient };
    }

    it('deletes a dynamic client that no code or token was issued to, once the time has passed; a used one and a static one stay', async () => {
      const { t, user, unused, used, staticClient } = await registerTwo();
      const check = await t.gatehouse.checkAuthorizationRequest({ client_id: used.clientId, response_type: 'code', code_challenge: s256Challenge('v'.repeat(50)), code_challenge_method: 'S256' });
      if (check.kind !== 'valid') throw check.error;
      await t.gatehouse.approveAuthorization({ request: check.request, userKey: user.userKey, sessionId: null });
      expect((await t.repositories.clients.findById(used.clientId))?.registration?.firstUsedAt).toEqual(t.clock.now());
      t.clock.advance(3599);
      expect(await t.gatehouse.purgeExpired()).toMatchObject({ unusedClients: 0 });
      t.clock.advance(2);
      expect(await t.gatehouse.purgeExpired()).toMatchObject({ unusedClients: 1 });
      expect(await t.repositories.clients.findById(unused.clientId)).toBeUndefined();
      expect(await t.repositories.clients.findById(used.clientId)).toBeDefined();
      expect(await t.repositories.clients.findById(staticClient.clientId)).toBeDefined();
    });

    it('counts a client-credentials token as a use', async () => {
      const t = await createTestGatehouse({ settings: { registration: { policy: 'token', initialAccessTokenHashes: [sha256('initial')], unusedClientTtlSeconds: 60 } } });
      const { client } = await t.gatehouse.registerDynamicClient({ metadata: { redirect_uris: [], grant_types: ['client_credentials'], response_types: [] }, initialAccessToken: 'initial' });
      await t.gatehouse.clientCredentials({ client, scope: undefined });
      t.clock.advance(3600);
      expect(await t.gatehouse.purgeExpired()).toMatchObject({ unusedClients: 0 });
      expect(await t.repositories.clients.findById(client.clientId)).toBeDefined();
    });

    it('keeps every client when the setting is null', async () => {
      const { t, unused } = await registerTwo(null);
      t.clock.advance(365 * 86400);
      expect(await t.gatehouse.purgeExpired()).toMatchObject({ unusedClients: 0 });
      expect(await t.repositories.clients.findById(unused.clientId)).toBeDefined();
    });
  });
});
