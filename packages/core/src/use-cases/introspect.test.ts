import { describe, expect, it } from 'vitest';
import { createTestGatehouse, type TestGatehouse } from '@gatehouse/core/testing';
import { OAuthError } from '../errors.js';
import type { GatehouseSettings } from '../settings.js';
import { expectOAuthError } from '../test-support/rejections.js';

const ISSUER = 'http://localhost:3000';

async function setup(refreshToken: Partial<GatehouseSettings['refreshToken']> = {}) {
  const t = await createTestGatehouse({ settings: { refreshToken } });
  const user = await t.seedUser({ email: 'ada@example.com' });
  const { client } = await t.seedClient({ scopes: ['messaging.v1.send', 'messaging.v1.read'] });
  const { client: other } = await t.seedClient({ name: 'Other client' });
  const tokens = await t.obtainTokens({ client, user, scope: 'messaging.v1.read' });
  return { t, user, client, other, tokens };
}

/** Rotation on: A → B, then A again within the grace → C, which supersedes B (docs/decisions/0106). */
async function rotatedChain() {
  const { t, client, tokens } = await setup({ rotate: true, reuseGraceSeconds: 10 });
  const b = await t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: undefined });
  const c = await t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: undefined });
  return { t, client, a: tokens.refresh_token as string, b: b.refresh_token as string, c: c.refresh_token as string };
}

/** Another gatehouse over the same repositories, `seconds` later: an operator changed the refresh settings. */
async function reconfigured(t: TestGatehouse, refreshToken: Partial<GatehouseSettings['refreshToken']>, seconds: number) {
  const later = await createTestGatehouse({ repositories: t.repositories, settings: { refreshToken } });
  later.clock.set(new Date(t.clock.now().getTime() + seconds * 1000));
  return later;
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
    const answer = await t.gatehouse.introspectToken({ client, token: tokens.refresh_token as string, tokenTypeHint: undefined });
    expect(answer).toEqual({
      active: true,
      scope: 'messaging.v1.read',
      client_id: client.clientId,
      username: 'ada@example.com',
      // RFC 7662 §2.2: token_type is an RFC 6749 §7.1 access token type; a refresh token has none.
      sub: user.userKey,
      iss: ISSUER,
      iat: Math.floor(t.clock.now().getTime() / 1000),
    });
  });

  it('reports the refresh token of a client no longer registered for the refresh_token grant as inactive, as the grant refuses it (RFC 7662 §2.2)', async () => {
    const { t, client, tokens } = await setup();
    const token = tokens.refresh_token as string;
    expect((await t.gatehouse.introspectToken({ client, token, tokenTypeHint: 'refresh_token' })).active).toBe(true);
    const narrowed = { ...client, grantTypes: client.grantTypes.filter((grantType) => grantType !== 'refresh_token') };
    expect(await t.gatehouse.introspectToken({ client: narrowed, token, tokenTypeHint: 'refresh_token' })).toEqual({ active: false });
    await expectOAuthError(t.gatehouse.refresh({ client: narrowed, refreshToken: token, scope: undefined }), 'unauthorized_client');
    // Its access tokens are not refresh tokens: still described.
    expect((await t.gatehouse.introspectToken({ client: narrowed, token: tokens.access_token, tokenTypeHint: undefined })).active).toBe(true);
  });

  it('reports the absolute limit of a refresh token as exp, and inactive after it', async () => {
    const { t, client, tokens } = await setup({ absoluteTtlSeconds: 500 });
    const iat = Math.floor(t.clock.now().getTime() / 1000);
    expect(await t.gatehouse.introspectToken({ client, token: tokens.refresh_token as string, tokenTypeHint: 'refresh_token' })).toMatchObject({ active: true, exp: iat + 500 });
    t.clock.advance(500);
    expect(await t.gatehouse.introspectToken({ client, token: tokens.refresh_token as string, tokenTypeHint: 'refresh_token' })).toEqual({ active: false });
  });

  it('reports an idle-expired refresh token as inactive', async () => {
    const { t, client, tokens } = await setup({ idleTtlSeconds: 60 });
    t.clock.advance(60);
    expect(await t.gatehouse.introspectToken({ client, token: tokens.refresh_token as string, tokenTypeHint: undefined })).toEqual({ active: false });
  });

  it('reports a rotated refresh token as inactive once its grace period is over', async () => {
    const { t, client, tokens } = await setup({ rotate: true, reuseGraceSeconds: 10 });
    await t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: undefined });
    expect((await t.gatehouse.introspectToken({ client, token: tokens.refresh_token as string, tokenTypeHint: undefined })).active).toBe(true);
    t.clock.advance(11);
    expect(await t.gatehouse.introspectToken({ client, token: tokens.refresh_token as string, tokenTypeHint: undefined })).toEqual({ active: false });
  });

  it('reports a superseded refresh token as inactive at once, within the grace, as the refresh grant refuses it (RFC 7662 §2.2)', async () => {
    const { t, client, a, b, c } = await rotatedChain();
    const introspect = (token: string) => t.gatehouse.introspectToken({ client, token, tokenTypeHint: 'refresh_token' });
    expect(await introspect(b)).toEqual({ active: false });
    // A, rotated within the grace, would still be answered (a retry); C is the grant's live token.
    expect((await introspect(a)).active).toBe(true);
    expect((await introspect(c)).active).toBe(true);
    await expectOAuthError(t.gatehouse.refresh({ client, refreshToken: b, scope: undefined }), 'invalid_grant');
  });

  it('answers as the refresh grant then does with the token, whether rotation is still on or was turned off', async () => {
    const cases = [
      { state: 'rotated, within the grace', token: 'a', seconds: 1, active: true },
      { state: 'rotated, past the grace', token: 'a', seconds: 11, active: false },
      { state: 'superseded', token: 'b', seconds: 1, active: false },
      { state: 'live', token: 'c', seconds: 11, active: true },
    ] as const;
    const answers = [];
    for (const rotate of [true, false]) {
      for (const { state, token, seconds } of cases) {
        const chain = await rotatedChain();
        const later = await reconfigured(chain.t, { rotate, reuseGraceSeconds: 10 }, seconds);
        const refreshToken = chain[token];
        const { active } = await later.gatehouse.introspectToken({ client: chain.client, token: refreshToken, tokenTypeHint: 'refresh_token' });
        const refreshed = await later.gatehouse.refresh({ client: chain.client, refreshToken, scope: undefined }).then(() => true, () => false);
        answers.push({ rotate, state, active, refreshed });
      }
    }
    expect(answers).toEqual([true, false].flatMap((rotate) => cases.map(({ state, active }) => ({ rotate, state, active, refreshed: active }))));
  });

  it('answers inactive for another client\'s tokens, exactly as for an unknown token', async () => {
    const { t, other, tokens } = await setup();
    const unknown = await t.gatehouse.introspectToken({ client: other, token: 'unknown', tokenTypeHint: undefined });
    expect(unknown).toEqual({ active: false });
    expect(await t.gatehouse.introspectToken({ client: other, token: tokens.access_token, tokenTypeHint: 'access_token' })).toEqual(unknown);
    expect(await t.gatehouse.introspectToken({ client: other, token: tokens.refresh_token as string, tokenTypeHint: 'refresh_token' })).toEqual(unknown);
  });

  it('answers inactive for an expired access token', async () => {
    const { t, client, tokens } = await setup();
    t.clock.advance(3600);
    expect(await t.gatehouse.introspectToken({ client, token: tokens.access_token, tokenTypeHint: 'access_token' })).toEqual({ active: false });
  });

  it('answers inactive for the tokens of a revoked grant', async () => {
    const { t, client, tokens } = await setup();
    await t.gatehouse.revokeToken({ client, token: tokens.refresh_token as string, tokenTypeHint: undefined });
    expect(await t.gatehouse.introspectToken({ client, token: tokens.access_token, tokenTypeHint: undefined })).toEqual({ active: false });
    expect(await t.gatehouse.introspectToken({ client, token: tokens.refresh_token as string, tokenTypeHint: undefined })).toEqual({ active: false });
  });

  it('requires a token', async () => {
    const { t, client } = await setup();
    const error = await t.gatehouse.introspectToken({ client, token: '', tokenTypeHint: undefined }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OAuthError);
    expect((error as OAuthError).code).toBe('invalid_request');
  });
});
