import { describe, expect, it } from 'vitest';
import { createTestGatehouse } from '@gatehouse/core/testing';
import { expectOAuthError } from '../test-support/rejections.js';

async function setup() {
  const t = await createTestGatehouse();
  const user = await t.seedUser();
  const { client } = await t.seedClient();
  const { client: other } = await t.seedClient({ name: 'Other client' });
  const tokens = await t.obtainTokens({ client, user });
  return { t, user, client, other, tokens };
}

describe('revokeToken (RFC 7009)', () => {
  it('revoking the refresh token revokes the grant: refresh and access token both stop working', async () => {
    const { t, user, client, tokens } = await setup();
    await t.gatehouse.revokeToken({ client, token: tokens.refresh_token as string, tokenTypeHint: 'refresh_token' });
    expect((await expectOAuthError(t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: undefined }))).code).toBe('invalid_grant');
    expect((await expectOAuthError(t.gatehouse.verifyAccessToken(tokens.access_token))).code).toBe('invalid_token');
    expect(t.audit.ofType('grant.revoked')).toEqual([
      expect.objectContaining({ clientId: client.clientId, userKey: user.userKey, reason: 'revocation of refresh_token' }),
    ]);
  });

  it('revoking the access token revokes its grant too (RFC 7009 §2.1 MAY), whatever the hint says', async () => {
    const { t, client, tokens } = await setup();
    await t.gatehouse.revokeToken({ client, token: tokens.access_token, tokenTypeHint: 'refresh_token' });
    expect((await expectOAuthError(t.gatehouse.verifyAccessToken(tokens.access_token))).code).toBe('invalid_token');
    expect((await expectOAuthError(t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: undefined }))).code).toBe('invalid_grant');
    expect(t.audit.ofType('grant.revoked')[0]?.reason).toBe('revocation of access_token');
  });

  it('ignores an unknown hint', async () => {
    const { t, client, tokens } = await setup();
    await t.gatehouse.revokeToken({ client, token: tokens.refresh_token as string, tokenTypeHint: 'something_else' });
    expect((await expectOAuthError(t.gatehouse.verifyAccessToken(tokens.access_token))).code).toBe('invalid_token');
  });

  it('does nothing for an unknown token, and a second revocation is a quiet no-op', async () => {
    const { t, client, tokens } = await setup();
    await expect(t.gatehouse.revokeToken({ client, token: 'no-such-token', tokenTypeHint: undefined })).resolves.toBeUndefined();
    await expect(t.gatehouse.revokeToken({ client, token: 'a.b.c', tokenTypeHint: 'access_token' })).resolves.toBeUndefined();
    expect((await t.gatehouse.verifyAccessToken(tokens.access_token)).clientId).toBe(client.clientId);
    await t.gatehouse.revokeToken({ client, token: tokens.refresh_token as string, tokenTypeHint: undefined });
    await t.gatehouse.revokeToken({ client, token: tokens.refresh_token as string, tokenTypeHint: undefined });
    expect(t.audit.ofType('grant.revoked')).toHaveLength(1);
  });

  it('does nothing when another client presents the tokens (same answer as for an unknown token)', async () => {
    const { t, client, other, tokens } = await setup();
    await expect(t.gatehouse.revokeToken({ client: other, token: tokens.refresh_token as string, tokenTypeHint: undefined })).resolves.toBeUndefined();
    await expect(t.gatehouse.revokeToken({ client: other, token: tokens.access_token, tokenTypeHint: 'access_token' })).resolves.toBeUndefined();
    expect((await t.gatehouse.verifyAccessToken(tokens.access_token)).clientId).toBe(client.clientId);
    expect((await t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: undefined })).token_type).toBe('Bearer');
    expect(t.audit.ofType('grant.revoked')).toEqual([]);
  });

  it('requires a token', async () => {
    const { t, client } = await setup();
    expect((await expectOAuthError(t.gatehouse.revokeToken({ client, token: '', tokenTypeHint: undefined }))).code).toBe('invalid_request');
  });

  it('leaves the user\'s other grants alone', async () => {
    const { t, user, client, tokens } = await setup();
    const second = await t.obtainTokens({ client, user });
    await t.gatehouse.revokeToken({ client, token: tokens.refresh_token as string, tokenTypeHint: undefined });
    expect((await t.gatehouse.verifyAccessToken(second.access_token)).userKey).toBe(user.userKey);
  });
});
