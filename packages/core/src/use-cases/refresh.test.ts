import { describe, expect, it } from 'vitest';
import { createTestGatehouse, type TestGatehouse } from '@gatehouse/core/testing';
import { DEFAULT_SCOPES } from '../domain/scopes.js';
import type { GatehouseSettings } from '../settings.js';
import { expectOAuthError } from '../test-support/rejections.js';
import { randomIdGenerator, sha256 } from '../crypto.js';
import { storedSecretHash } from '../domain/time-ordered-secret.js';

type RefreshSettings = Partial<GatehouseSettings['refreshToken']>;

async function setup(refreshToken: RefreshSettings = {}) {
  const t = await createTestGatehouse({ settings: { refreshToken } });
  const user = await t.seedUser({ email: 'ada@example.com', password: 'password123' });
  const { client } = await t.seedClient({ scopes: ['messaging.v1.send', 'messaging.v1.read'] });
  const tokens = await t.obtainTokens({ client, user });
  return { t, user, client, tokens };
}

/** Another gatehouse over the same repositories, `seconds` later: an operator changed the refresh settings. */
async function reconfigured(t: TestGatehouse, refreshToken: RefreshSettings, seconds: number) {
  const later = await createTestGatehouse({ repositories: t.repositories, settings: { refreshToken } });
  later.clock.set(new Date(t.clock.now().getTime() + seconds * 1000));
  return later;
}

describe('refresh without rotation (the default)', () => {
  it('returns a new access token and the same refresh token, which keeps working', async () => {
    const { t, client, tokens } = await setup();
    t.clock.advance(10);
    const first = await t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: undefined });
    expect(first).toMatchObject({ token_type: 'Bearer', refresh_token: tokens.refresh_token, scope: 'messaging.v1.send messaging.v1.read', principal: 'ada@example.com', expires_in: 3600 });
    expect(first.access_token).not.toBe(tokens.access_token);
    t.clock.advance(30 * 24 * 3600);
    const later = await t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: undefined });
    expect(later.refresh_token).toBe(tokens.refresh_token);
    expect((await t.gatehouse.verifyAccessToken(later.access_token)).scopes).toEqual(['messaging.v1.send', 'messaging.v1.read']);
  });

  it('narrows the scope on request, and the narrower token carries only it', async () => {
    const { t, client, tokens } = await setup();
    const narrow = await t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: 'messaging.v1.read' });
    expect(narrow.scope).toBe('messaging.v1.read');
    expect((await t.gatehouse.verifyAccessToken(narrow.access_token)).scopes).toEqual(['messaging.v1.read']);
    // RFC 6749 §6: narrowing does not shrink the grant; a later refresh may ask for the full scope again.
    const full = await t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: undefined });
    expect(full.scope).toBe('messaging.v1.send messaging.v1.read');
  });

  it('refuses to widen the scope beyond the grant', async () => {
    const t = await createTestGatehouse();
    const user = await t.seedUser();
    const { client } = await t.seedClient({ scopes: ['messaging.v1.send', 'messaging.v1.read'] });
    const tokens = await t.obtainTokens({ client, user, scope: 'messaging.v1.read' });
    const widened = await expectOAuthError(t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: 'messaging.v1.read messaging.v1.send' }));
    expect(widened.code).toBe('invalid_scope');
    expect(widened.description).toContain('messaging.v1.send');
    expect((await expectOAuthError(t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: 'admin.v1.attributes.read' }))).code).toBe('invalid_scope');
  });

  it('leaves out a scope taken from the client since the grant; with none left, invalid_grant (docs/decisions/0204)', async () => {
    const { t, client, tokens } = await setup();
    const edit = { ownerUserKey: null, clientId: client.clientId, name: client.name, redirectUris: client.redirectUris };
    await t.gatehouse.updateClient({ ...edit, scopes: ['messaging.v1.read'] });
    const narrowed = await t.gatehouse.refresh({ client: (await t.repositories.clients.findById(client.clientId)) as typeof client, refreshToken: tokens.refresh_token as string, scope: undefined });
    expect(narrowed.scope).toBe('messaging.v1.read');
    expect((await t.gatehouse.verifyAccessToken(narrowed.access_token)).scopes).toEqual(['messaging.v1.read']);
    const asked = await expectOAuthError(t.gatehouse.refresh({ client: (await t.repositories.clients.findById(client.clientId)) as typeof client, refreshToken: tokens.refresh_token as string, scope: 'messaging.v1.send' }));
    expect(asked.code).toBe('invalid_scope');

    await t.gatehouse.updateClient({ ...edit, scopes: ['admin.v1.attributes.read'] });
    const none = await expectOAuthError(t.gatehouse.refresh({ client: (await t.repositories.clients.findById(client.clientId)) as typeof client, refreshToken: tokens.refresh_token as string, scope: undefined }));
    expect(none.code).toBe('invalid_grant');
  });

  it('narrows only to scopes the configured catalogue offers', async () => {
    const orders = { scope: 'orders.v1.read', description: 'See your orders' };
    const t = await createTestGatehouse({ settings: { scopes: [...DEFAULT_SCOPES, orders] } });
    const user = await t.seedUser();
    const { client } = await t.seedClient({ scopes: ['orders.v1.read', 'messaging.v1.read'] });
    const tokens = await t.obtainTokens({ client, user });
    expect(tokens.scope).toBe('orders.v1.read messaging.v1.read');
    const narrow = await t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: 'orders.v1.read' });
    expect((await t.gatehouse.verifyAccessToken(narrow.access_token)).scopes).toEqual(['orders.v1.read']);

    // The same grant, under a deployment whose catalogue dropped orders.v1.read.
    const shrunk = await createTestGatehouse({ repositories: t.repositories });
    const refused = await expectOAuthError(shrunk.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: 'orders.v1.read' }));
    expect(refused.code).toBe('invalid_scope');
    expect((await shrunk.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: 'messaging.v1.read' })).scope).toBe('messaging.v1.read');
  });

  it('refuses an unknown refresh token and another client\'s refresh token', async () => {
    const { t, tokens } = await setup();
    const { client: other } = await t.seedClient({ name: 'Other' });
    expect((await expectOAuthError(t.gatehouse.refresh({ client: other, refreshToken: tokens.refresh_token as string, scope: undefined }))).code).toBe('invalid_grant');
    expect((await expectOAuthError(t.gatehouse.refresh({ client: other, refreshToken: 'unknown', scope: undefined }))).code).toBe('invalid_grant');
  });

  it('is refused after product logout of the session the grant was made under', async () => {
    const t = await createTestGatehouse();
    const user = await t.seedUser({ password: 'password123' });
    const { client } = await t.seedClient();
    const signedIn = await t.gatehouse.signIn({ email: user.email, password: 'password123' });
    const tokens = await t.obtainTokens({ client, user, sessionId: signedIn.session.sessionId });
    await t.gatehouse.logout(signedIn.sessionToken);
    expect((await expectOAuthError(t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: undefined }))).code).toBe('invalid_grant');
  });

  it('is refused after revocation', async () => {
    const { t, client, tokens } = await setup();
    await t.gatehouse.revokeToken({ client, token: tokens.refresh_token as string, tokenTypeHint: undefined });
    expect((await expectOAuthError(t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: undefined }))).code).toBe('invalid_grant');
  });

  it('is refused after a password change', async () => {
    const { t, user, client, tokens } = await setup();
    await t.product.changePassword({ userKey: user.userKey, newPassword: 'another password' });
    expect((await expectOAuthError(t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: undefined }))).code).toBe('invalid_grant');
  });

  it('stops after the idle limit, and each use restarts it', async () => {
    const { t, client, tokens } = await setup({ idleTtlSeconds: 100 });
    t.clock.advance(99);
    await t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: undefined });
    t.clock.advance(99);
    await t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: undefined });
    t.clock.advance(100);
    expect((await expectOAuthError(t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: undefined }))).code).toBe('invalid_grant');
  });

  it('stops after the absolute limit however often it is used', async () => {
    const { t, client, tokens } = await setup({ absoluteTtlSeconds: 1000 });
    for (let i = 0; i < 9; i += 1) {
      t.clock.advance(100);
      await t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: undefined });
    }
    t.clock.advance(100);
    expect((await expectOAuthError(t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: undefined }))).code).toBe('invalid_grant');
  });
});

describe('refresh with rotation', () => {
  it('returns a new refresh token each time, and the new one works', async () => {
    const { t, client, tokens } = await setup({ rotate: true });
    const second = await t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: undefined });
    expect(second.refresh_token).not.toBe(tokens.refresh_token);
    const third = await t.gatehouse.refresh({ client, refreshToken: second.refresh_token as string, scope: undefined });
    expect(third.refresh_token).not.toBe(second.refresh_token);
    expect((await t.gatehouse.verifyAccessToken(third.access_token)).clientId).toBe(client.clientId);
  });

  it('answers a retry within the grace with a new token that replaces the first answer: the grant never forks (RFC 9700 §4.14.2)', async () => {
    const { t, client, tokens } = await setup({ rotate: true, reuseGraceSeconds: 10 });
    const refresh = (refreshToken: string) => t.gatehouse.refresh({ client, refreshToken, scope: undefined });
    const first = await refresh(tokens.refresh_token as string);
    t.clock.advance(10);
    const retry = await refresh(tokens.refresh_token as string);
    expect(retry.refresh_token).not.toBe(first.refresh_token);
    expect(t.audit.ofType('refresh_token.reused')).toEqual([]);
    // The retry's token is the grant's one live token; the first answer's was replaced, and
    // presenting it is a reuse: the grant goes, with the branch that replaced it.
    const next = await refresh(retry.refresh_token as string);
    t.clock.advance(1);
    expect((await expectOAuthError(refresh(first.refresh_token as string))).code).toBe('invalid_grant');
    expect((await expectOAuthError(refresh(next.refresh_token as string))).code).toBe('invalid_grant');
    expect((await expectOAuthError(t.gatehouse.verifyAccessToken(next.access_token))).code).toBe('invalid_token');
    expect(t.audit.ofType('refresh_token.reused')).toHaveLength(1);
  });

  it('a replaced token is refused at once, even within the grace', async () => {
    const { t, client, tokens } = await setup({ rotate: true, reuseGraceSeconds: 10 });
    const refresh = (refreshToken: string) => t.gatehouse.refresh({ client, refreshToken, scope: undefined });
    const first = await refresh(tokens.refresh_token as string);
    await refresh(tokens.refresh_token as string);
    expect((await expectOAuthError(refresh(first.refresh_token as string))).code).toBe('invalid_grant');
    expect(t.audit.ofType('refresh_token.reused')).toHaveLength(1);
  });

  it('revokes the grant when a rotated token is reused after the grace period', async () => {
    const { t, user, client, tokens } = await setup({ rotate: true, reuseGraceSeconds: 10 });
    const first = await t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: undefined });
    t.clock.advance(11);
    expect((await expectOAuthError(t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: undefined }))).code).toBe('invalid_grant');
    // RFC 9700 §4.14.2: the legitimate holder's new token dies with the grant.
    expect((await expectOAuthError(t.gatehouse.refresh({ client, refreshToken: first.refresh_token as string, scope: undefined }))).code).toBe('invalid_grant');
    expect((await expectOAuthError(t.gatehouse.verifyAccessToken(first.access_token))).code).toBe('invalid_token');
    expect(t.audit.ofType('refresh_token.reused')).toEqual([
      expect.objectContaining({ clientId: client.clientId, userKey: user.userKey, grantIds: [expect.any(String)] }),
    ]);
  });

  it('two clients racing with one token: each gets an answer, one token stays live, and the other\'s use revokes the grant', async () => {
    const { t, client, tokens } = await setup({ rotate: true, reuseGraceSeconds: 10 });
    const refresh = (refreshToken: string) => t.gatehouse.refresh({ client, refreshToken, scope: undefined });
    const answers = await Promise.all(Array.from({ length: 5 }, () => refresh(tokens.refresh_token as string)));
    expect(new Set(answers.map((answer) => answer.refresh_token)).size).toBe(5);
    expect(t.audit.ofType('refresh_token.reused')).toEqual([]);
    const states = await Promise.all(answers.map(async (answer) => t.repositories.refreshTokens.findByHash(storedSecretHash(answer.refresh_token as string))));
    const live = answers.filter((_, index) => states[index]?.supersededAt === null);
    expect(live).toHaveLength(1);
    const loser = answers.find((answer) => answer !== live[0]) as (typeof answers)[number];
    expect((await expectOAuthError(refresh(loser.refresh_token as string))).code).toBe('invalid_grant');
    expect((await expectOAuthError(refresh(live[0]?.refresh_token ?? ''))).code).toBe('invalid_grant');
    expect(t.audit.ofType('refresh_token.reused')).toHaveLength(1);
  });

  it('with no grace period, a reuse one second later revokes the grant', async () => {
    const { t, client, tokens } = await setup({ rotate: true, reuseGraceSeconds: 0 });
    const first = await t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: undefined });
    t.clock.advance(1);
    expect((await expectOAuthError(t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: undefined }))).code).toBe('invalid_grant');
    expect((await expectOAuthError(t.gatehouse.refresh({ client, refreshToken: first.refresh_token as string, scope: undefined }))).code).toBe('invalid_grant');
  });

  it('with no grace period, a reuse in the same millisecond is a reuse too, not a retry: one answer, the grant revoked', async () => {
    const { t, client, tokens } = await setup({ rotate: true, reuseGraceSeconds: 0 });
    const first = await t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: undefined });
    expect((await expectOAuthError(t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: undefined }))).code).toBe('invalid_grant');
    expect((await expectOAuthError(t.gatehouse.refresh({ client, refreshToken: first.refresh_token as string, scope: undefined }))).code).toBe('invalid_grant');
    expect(t.audit.ofType('refresh_token.reused')).toHaveLength(1);
  });
});

describe('a rotation\'s tokens after rotation is turned off (RFC 9700 §4.14.2, docs/decisions/0179)', () => {
  it('a token rotated past its grace is a reuse: invalid_grant, the grant revoked; the current token worked until then', async () => {
    const { t, user, client, tokens } = await setup({ rotate: true, reuseGraceSeconds: 10 });
    const current = await t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: undefined });
    const grantId = (await t.repositories.refreshTokens.findByHash(storedSecretHash(tokens.refresh_token as string)))?.grantId;
    const off = await reconfigured(t, { rotate: false, reuseGraceSeconds: 10 }, 11);
    const refresh = (refreshToken: string) => off.gatehouse.refresh({ client, refreshToken, scope: undefined });
    // The current token works, and is kept now that rotation is off.
    expect((await refresh(current.refresh_token as string)).refresh_token).toBe(current.refresh_token as string);
    await expectOAuthError(refresh(tokens.refresh_token as string), 'invalid_grant');
    expect(off.audit.ofType('refresh_token.reused')).toEqual([expect.objectContaining({ clientId: client.clientId, userKey: user.userKey, grantIds: [grantId] })]);
    expect((await off.repositories.grants.findById(grantId ?? ''))?.revokedAt).toBeInstanceOf(Date);
    await expectOAuthError(refresh(current.refresh_token as string), 'invalid_grant');
    await expectOAuthError(off.gatehouse.verifyAccessToken(current.access_token), 'invalid_token');
  });

  it('a superseded token is a reuse at once: invalid_grant, the grant revoked; the live token worked until then', async () => {
    const { t, client, tokens } = await setup({ rotate: true, reuseGraceSeconds: 10 });
    const replaced = await t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: undefined });
    const live = await t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: undefined });
    const off = await reconfigured(t, { rotate: false, reuseGraceSeconds: 10 }, 1);
    const refresh = (refreshToken: string) => off.gatehouse.refresh({ client, refreshToken, scope: undefined });
    expect((await refresh(live.refresh_token as string)).refresh_token).toBe(live.refresh_token as string);
    expect((await expectOAuthError(refresh(replaced.refresh_token as string), 'invalid_grant')).detail).toBe('superseded refresh token reused');
    expect(off.audit.ofType('refresh_token.reused')).toHaveLength(1);
    await expectOAuthError(refresh(live.refresh_token as string), 'invalid_grant');
  });

  it('a retry within the grace still follows the rotation: a new token that replaces the first answer, kept from then on', async () => {
    const { t, client, tokens } = await setup({ rotate: true, reuseGraceSeconds: 10 });
    const first = await t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: undefined });
    const off = await reconfigured(t, { rotate: false, reuseGraceSeconds: 10 }, 5);
    const refresh = (refreshToken: string) => off.gatehouse.refresh({ client, refreshToken, scope: undefined });
    const retry = await refresh(tokens.refresh_token as string);
    expect(retry.refresh_token).not.toBe(tokens.refresh_token);
    expect(retry.refresh_token).not.toBe(first.refresh_token);
    expect((await refresh(retry.refresh_token as string)).refresh_token).toBe(retry.refresh_token as string);
    await expectOAuthError(refresh(first.refresh_token as string), 'invalid_grant');
    expect(off.audit.ofType('refresh_token.reused')).toHaveLength(1);
  });
});

describe('refresh tokens issued before time-ordered secrets (docs/decisions/0077-time-ordered-secrets.md)', () => {
  async function legacyToken() {
    const { t, client, tokens } = await setup();
    const stored = await t.repositories.refreshTokens.findByHash(storedSecretHash(tokens.refresh_token as string));
    // A token of the earlier shape (43 characters, no time digits), stored as its plain SHA-256.
    const legacy = randomIdGenerator.secret();
    await t.repositories.refreshTokens.save({ tokenHash: sha256(legacy), grantId: stored?.grantId ?? '', createdAt: t.clock.now(), lastUsedAt: t.clock.now(), rotatedAt: null, supersededAt: null });
    return { t, client, legacy, grantId: stored?.grantId ?? '' };
  }

  it('issues time-ordered refresh tokens, stored under their prefix and hash', async () => {
    const { t, tokens } = await setup();
    expect(tokens.refresh_token).toMatch(/^[0-9A-Za-z]{8}_[0-9A-Za-z]{43}$/);
    expect(await t.repositories.refreshTokens.findByHash(`${(tokens.refresh_token as string).slice(0, 9)}${sha256(tokens.refresh_token as string)}`)).toBeDefined();
    expect(await t.repositories.refreshTokens.findByHash(sha256(tokens.refresh_token as string))).toBeUndefined();
  });

  it('still refreshes with a token of the earlier shape, and it still revokes its grant', async () => {
    const { t, client, legacy, grantId } = await legacyToken();
    const refreshed = await t.gatehouse.refresh({ client, refreshToken: legacy, scope: undefined });
    expect(refreshed).toMatchObject({ token_type: 'Bearer', refresh_token: legacy });
    await t.gatehouse.revokeToken({ client, token: legacy, tokenTypeHint: 'refresh_token' });
    expect((await t.repositories.grants.findById(grantId))?.revokedAt).toBeInstanceOf(Date);
    expect((await expectOAuthError(t.gatehouse.refresh({ client, refreshToken: legacy, scope: undefined }))).code).toBe('invalid_grant');
  });
});

describe('refresh reads (docs/decisions/0168)', () => {
  it("uses the read started ahead for the same token, ignores one of another token, and writes nothing for an owner who is gone", async () => {
    const { t, user, client, tokens } = await setup({ rotate: true });
    const refreshToken = tokens.refresh_token as string;
    const ahead = t.gatehouse.readRefreshTokenAhead(refreshToken);
    expect((await ahead.reading).owner).toEqual({ email: 'ada@example.com' });
    const rotated = await t.gatehouse.refresh({ client, refreshToken, scope: undefined, readAhead: ahead });
    expect(rotated.principal).toBe('ada@example.com');
    // A read-ahead of another token is not this refresh's: the token is read again (and found rotated: reuse within the grace).
    const other = t.gatehouse.readRefreshTokenAhead('not-the-token');
    const next = await t.gatehouse.refresh({ client, refreshToken: rotated.refresh_token as string, scope: undefined, readAhead: other });
    expect(next.principal).toBe('ada@example.com');

    // The owner gone (deleted from the users table underneath): invalid_grant, and the token is not rotated.
    const users = t.repositories.users as unknown as { delete(userKey: string): Promise<unknown> };
    await users.delete(user.userKey);
    const hash = storedSecretHash(next.refresh_token as string);
    await expectOAuthError(t.gatehouse.refresh({ client, refreshToken: next.refresh_token as string, scope: undefined }), 'invalid_grant');
    expect(await t.repositories.refreshTokens.findByHash(hash)).toMatchObject({ rotatedAt: null });
  });

  it('never rejects unhandled when the read ahead fails and the client is refused first', async () => {
    const { t } = await setup();
    t.repositories.refreshTokens.findWithGrantAndOwnerEmail = async () => {
      throw new Error('database down');
    };
    // Nobody awaits this read (its client was refused): Vitest fails the run on an unhandled rejection.
    t.gatehouse.readRefreshTokenAhead('whatever');
    await new Promise((resolve) => setTimeout(resolve, 0));
    const awaited = t.gatehouse.readRefreshTokenAhead('whatever');
    await expect(awaited.reading).rejects.toThrow('database down');
  });
});
