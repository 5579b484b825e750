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

  it('deletes a user for good: user records, sessions, grants (tokens refused), consents; owned clients only when asked', async () => {
    const t = await createTestGatehouse();
    const user = await t.seedUser({ email: 'ada@example.com' });
    const other = await t.seedUser({ email: 'bob@example.com' });
    const account = await t.product.createAccount({ name: 'Acme' });
    await t.product.setMembership({ accountKey: account.accountKey, userKey: user.userKey, role: 'admin' });
    await t.product.addPhoneNumber({ userKey: user.userKey, phoneNumber: '+15550000001' });
    await t.product.sendMessage(user.userKey, { ownerPhoneNumber: '+15550000001', contactPhoneNumbers: ['+15550000009'], body: 'hello' });
    const { client } = await t.seedClient();
    const { client: owned } = await t.seedClient({ name: 'Ada\'s app', ownerUserKey: user.userKey });
    const session = await t.gatehouse.signIn({ email: 'ada@example.com', password: 'password123' });
    const tokens = await t.obtainTokens({ client, user, sessionId: sha256(session.sessionToken) });
    const bobs = await t.obtainTokens({ client: owned, user: other });

    // Bob's grant hangs on Ada's client: the operator decides, nothing is deleted meanwhile.
    await expect(t.product.deleteUser(user.userKey)).rejects.toMatchObject({ kind: 'conflict', field: 'clients', message: expect.stringContaining(owned.clientId) });
    expect((await t.gatehouse.verifyAccessToken(tokens.access_token)).userKey).toBe(user.userKey);
    expect(await t.product.findUserByEmail('ada@example.com')).toBeDefined();

    const deleted = await t.product.deleteUser(user.userKey, { deleteOwnedClients: true });
    expect(deleted).toEqual({ phoneNumbers: 1, memberships: 1, attributeValues: 0, messages: 1, sessions: 1, grants: 1, codes: 0, consents: 1, interactions: 0, clientIds: [owned.clientId] });
    await expect(t.gatehouse.verifyAccessToken(tokens.access_token)).rejects.toMatchObject({ code: 'invalid_token' });
    await expect(t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: undefined })).rejects.toMatchObject({ code: 'invalid_grant' });
    await expect(t.gatehouse.verifyAccessToken(bobs.access_token)).rejects.toMatchObject({ code: 'invalid_token' });
    expect(await t.gatehouse.resolveSession(session.sessionToken)).toBeUndefined();
    expect(await t.product.findUserByEmail('ada@example.com')).toBeUndefined();
    expect(await t.product.findPhoneNumberOwner('+15550000001')).toBeUndefined();
    await expect(t.gatehouse.signIn({ email: 'ada@example.com', password: 'password123' })).rejects.toMatchObject({ kind: 'unauthenticated' });
    expect(t.audit.ofType('user.deleted')).toMatchObject([{ userKey: user.userKey, grantIds: [expect.any(String)], reason: 'by the operator' }]);
    expect(await t.product.findUserByEmail('bob@example.com')).toBeDefined();
    await expect(t.product.deleteUser(user.userKey)).rejects.toMatchObject({ kind: 'not_found' });
  });
});
