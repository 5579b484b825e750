import { describe, expect, it } from 'vitest';
import { createTestGatehouse } from '@gatehouse/core/testing';
import { sha256 } from '../crypto.js';

describe("the operator's users", () => {
  it('lists users a page at a time, and refuses a page size out of range', async () => {
    const t = await createTestGatehouse();
    for (const email of ['carol@example.com', 'alice@example.com', 'bob@example.com']) await t.seedUser({ email });
    expect((await t.product.listUsers({ limit: 2, offset: 0 })).map((user) => user.email)).toEqual(['alice@example.com', 'bob@example.com']);
    expect((await t.product.listUsers({ limit: 2, offset: 2 })).map((user) => user.email)).toEqual(['carol@example.com']);
    expect(JSON.stringify(await t.product.listUsers({ limit: 10, offset: 0 }))).not.toContain('passwordHash');
    await expect(t.product.listUsers({ limit: 0, offset: 0 })).rejects.toMatchObject({ kind: 'invalid' });
    await expect(t.product.listUsers({ limit: 10, offset: -1 })).rejects.toMatchObject({ kind: 'invalid' });
  });

  it('disables a user: no sign-in (password or host login), sessions ended, tokens refused; enabling lets them sign in again', async () => {
    const t = await createTestGatehouse();
    const user = await t.seedUser({ email: 'ada@example.com' });
    const other = await t.seedUser({ email: 'bob@example.com' });
    const { client } = await t.seedClient();
    const session = await t.gatehouse.signIn({ email: 'ada@example.com', password: 'password123' });
    const underSession = await t.obtainTokens({ client, user, sessionId: sha256(session.sessionToken) });
    const outside = await t.obtainTokens({ client, user });
    const bobs = await t.obtainTokens({ client, user: other });

    const { endedSessionIds, revokedGrantIds } = await t.product.disableUser(user.userKey);
    expect(endedSessionIds).toEqual([sha256(session.sessionToken)]);
    expect(revokedGrantIds).toHaveLength(2);
    for (const tokens of [underSession, outside]) {
      await expect(t.gatehouse.verifyAccessToken(tokens.access_token)).rejects.toMatchObject({ code: 'invalid_token' });
      await expect(t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: undefined })).rejects.toMatchObject({ code: 'invalid_grant' });
    }
    expect((await t.gatehouse.verifyAccessToken(bobs.access_token)).userKey).toBe(other.userKey);
    expect(await t.gatehouse.resolveSession(session.sessionToken)).toBeUndefined();
    // The right password is refused as a wrong one would be; the audit says why.
    await expect(t.gatehouse.signIn({ email: 'ada@example.com', password: 'password123' })).rejects.toMatchObject({ kind: 'unauthenticated', message: 'The e-mail or password is not right.' });
    expect(t.audit.ofType('sign_in.failed').at(-1)).toMatchObject({ userKey: user.userKey, reason: 'user disabled' });
    expect(t.audit.ofType('user.disabled')).toMatchObject([{ userKey: user.userKey, grantIds: revokedGrantIds }]);
    const { loginRequest } = await t.gatehouse.startLogin({ returnTo: '/after' });
    await expect(t.gatehouse.completeLogin({ loginRequest, userKey: user.userKey, authenticatedAt: t.clock.now() })).rejects.toMatchObject({ kind: 'unauthenticated' });
    expect((await t.product.currentUser(user.userKey)).user.disabledAt).toEqual(t.clock.now());

    await t.product.enableUser(user.userKey);
    expect((await t.gatehouse.signIn({ email: 'ada@example.com', password: 'password123' })).user.userKey).toBe(user.userKey);
    expect(t.audit.ofType('user.enabled')).toHaveLength(1);
    await expect(t.product.disableUser('no-such-user')).rejects.toMatchObject({ kind: 'not_found' });
  });
});
