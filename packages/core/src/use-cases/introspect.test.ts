import { describe, expect, it } from 'vitest';
import { createTestGatehouse } from '@gatehouse/core/testing';
import { OAuthError } from '../errors.js';
import type { GatehouseSettings } from '../settings.js';

const ISSUER = 'http://localhost:3000';

async function setup(refreshToken: Partial<GatehouseSettings['refreshToken']> = {}) {
  const t = await createTestGatehouse({ settings: { refreshToken } });
  const user = await t.seedUser({ email: 'ada@example.com' });
  const { client } = await t.seedClient({ scopes: ['messaging.v1.send', 'messaging.v1.read'] });
  const { client: other } = await t.seedClient({ name: 'Other client' });
  const tokens = await t.obtainTokens({ client, user, scope: 'messaging.v1.read' });
  return { t, user, client, other, tokens };
}

describe('introspectToken (RFC 7662)', () => {
  it('describes the client\'s own access token', async () => {
    const { t, user, client, tokens } = await setup();
    const now = Math.floor(t.clock.now().getTime() / 1000);
    const answer = await t.gatehouse.introspectToken({ client, token: tokens.access_token, tokenTypeHint: 'access_token' });
    expect(answer).toEqual({
      active: true,
      scope: 'messaging.v1.read',
      client_id: client.clientId,
      username: 'ada@example.com',
      token_type: 'Bearer',
      sub: user.userKey,
      iss: ISSUER,
      aud: ISSUER,
      iat: now,
      exp: now + 3600,
      jti: expect.any(String),
    });
  });

  it('describes the client\'s own refresh token without a hint', async () => {
    const { t, user, client, tokens } = await setup();
    const answer = await t.gatehouse.introspectToken({ client, token: tokens.refresh_token, tokenTypeHint: undefined });
    expect(answer).toEqual({
      active: true,
      scope: 'messaging.v1.read',
      client_id: client.clientId,
      username: 'ada@example.com',
      token_type: 'refresh_token',
      sub: user.userKey,
      iss: ISSUER,
      iat: Math.floor(t.clock.now().getTime() / 1000),
    });
  });

  it('reports the absolute limit of a refresh token as exp, and inactive after it', async () => {
    const { t, client, tokens } = await setup({ absoluteTtlSeconds: 500 });
    const iat = Math.floor(t.clock.now().getTime() / 1000);
    expect(await t.gatehouse.introspectToken({ client, token: tokens.refresh_token, tokenTypeHint: 'refresh_token' })).toMatchObject({ active: true, exp: iat + 500 });
    t.clock.advance(500);
    expect(await t.gatehouse.introspectToken({ client, token: tokens.refresh_token, tokenTypeHint: 'refresh_token' })).toEqual({ active: false });
  });

  it('reports an idle-expired refresh token as inactive', async () => {
    const { t, client, tokens } = await setup({ idleTtlSeconds: 60 });
    t.clock.advance(60);
    expect(await t.gatehouse.introspectToken({ client, token: tokens.refresh_token, tokenTypeHint: undefined })).toEqual({ active: false });
  });

  it('reports a rotated refresh token as inactive once its grace period is over', async () => {
    const { t, client, tokens } = await setup({ rotate: true, reuseGraceSeconds: 10 });
    await t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token, scope: undefined });
    expect((await t.gatehouse.introspectToken({ client, token: tokens.refresh_token, tokenTypeHint: undefined })).active).toBe(true);
    t.clock.advance(11);
    expect(await t.gatehouse.introspectToken({ client, token: tokens.refresh_token, tokenTypeHint: undefined })).toEqual({ active: false });
  });

  it('answers inactive for another client\'s tokens, exactly as for an unknown token', async () => {
    const { t, other, tokens } = await setup();
    const unknown = await t.gatehouse.introspectToken({ client: other, token: 'unknown', tokenTypeHint: undefined });
    expect(unknown).toEqual({ active: false });
    expect(await t.gatehouse.introspectToken({ client: other, token: tokens.access_token, tokenTypeHint: 'access_token' })).toEqual(unknown);
    expect(await t.gatehouse.introspectToken({ client: other, token: tokens.refresh_token, tokenTypeHint: 'refresh_token' })).toEqual(unknown);
  });

  it('answers inactive for an expired access token', async () => {
    const { t, client, tokens } = await setup();
    t.clock.advance(3600);
    expect(await t.gatehouse.introspectToken({ client, token: tokens.access_token, tokenTypeHint: 'access_token' })).toEqual({ active: false });
  });

  it('answers inactive for the tokens of a revoked grant', async () => {
    const { t, client, tokens } = await setup();
    await t.gatehouse.revokeToken({ client, token: tokens.refresh_token, tokenTypeHint: undefined });
    expect(await t.gatehouse.introspectToken({ client, token: tokens.access_token, tokenTypeHint: undefined })).toEqual({ active: false });
    expect(await t.gatehouse.introspectToken({ client, token: tokens.refresh_token, tokenTypeHint: undefined })).toEqual({ active: false });
  });

  it('requires a token', async () => {
    const { t, client } = await setup();
    const error = await t.gatehouse.introspectToken({ client, token: '', tokenTypeHint: undefined }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OAuthError);
    expect((error as OAuthError).code).toBe('invalid_request');
  });
});
