import { describe, expect, it } from 'vitest';
import { createTestGatehouse } from '@gatehouse/core/testing';
import { expectDomainError } from '../test-support/rejections.js';

describe('createUser', () => {
  it('stores a hashed password and the trimmed names, with a default locale', async () => {
    const t = await createTestGatehouse();
    const user = await t.product.createUser({ email: ' ada@example.com ', password: 'correct horse', givenName: ' Ada ', familyName: 'Lovelace' });
    expect(user).toEqual({
      userKey: expect.any(String),
      email: 'ada@example.com',
      givenName: 'Ada',
      familyName: 'Lovelace',
      locale: 'en-US',
      passwordHash: expect.any(String),
    });
    expect(user.passwordHash).not.toContain('correct horse');
    expect(await t.repositories.users.findByKey(user.userKey)).toEqual(user);
  });

  it('refuses an e-mail taken ignoring case, a malformed e-mail and a short or huge password', async () => {
    const t = await createTestGatehouse();
    await t.product.createUser({ email: 'ada@example.com', password: 'password123' });
    expect(await expectDomainError(t.product.createUser({ email: 'ADA@example.com', password: 'password123' }))).toMatchObject({ kind: 'conflict', field: 'email' });
    for (const email of ['no-at-sign', 'two@@example.com', 'spa ce@example.com', '', `${'a'.repeat(250)}@example.com`]) {
      expect(await expectDomainError(t.product.createUser({ email, password: 'password123' }))).toMatchObject({ kind: 'invalid', field: 'email' });
    }
    expect(await expectDomainError(t.product.createUser({ email: 'bob@example.com', password: 'short' }))).toMatchObject({ kind: 'invalid', field: 'password' });
    expect(await expectDomainError(t.product.createUser({ email: 'bob@example.com', password: 'x'.repeat(1025) }))).toMatchObject({ kind: 'invalid', field: 'password' });
  });
});

describe('changePassword', () => {
  it('ends every session of the user, revokes every grant and swaps the password', async () => {
    const t = await createTestGatehouse();
    const user = await t.seedUser({ email: 'ada@example.com', password: 'old password' });
    const other = await t.seedUser({ email: 'grace@example.com', password: 'other password' });
    const { client } = await t.seedClient();
    const { client: second } = await t.seedClient({ name: 'Second' });
    const a = await t.obtainTokens({ client, user });
    const b = await t.obtainTokens({ client: second, user });
    const untouched = await t.obtainTokens({ client, user: other });
    const signedIn = await t.gatehouse.signIn({ email: 'ada@example.com', password: 'old password' });
    const otherSignedIn = await t.gatehouse.signIn({ email: 'grace@example.com', password: 'other password' });

    const { endedSessionIds, revokedGrantIds } = await t.product.changePassword({ userKey: user.userKey, newPassword: 'new password' });

    expect(endedSessionIds).toContain(signedIn.session.sessionId);
    expect(await t.gatehouse.resolveSession(signedIn.sessionToken)).toBeUndefined();
    expect((await t.gatehouse.resolveSession(otherSignedIn.sessionToken))?.user.userKey).toBe(other.userKey);
    expect(revokedGrantIds).toHaveLength(2);
    for (const tokens of [a, b]) await expect(t.gatehouse.verifyAccessToken(tokens.access_token)).rejects.toMatchObject({ code: 'invalid_token' });
    expect((await t.gatehouse.verifyAccessToken(untouched.access_token)).userKey).toBe(other.userKey);
    await expect(t.gatehouse.signIn({ email: 'ada@example.com', password: 'old password' })).rejects.toMatchObject({ kind: 'unauthenticated' });
    expect((await t.gatehouse.signIn({ email: 'ada@example.com', password: 'new password' })).user.userKey).toBe(user.userKey);
    expect(t.audit.ofType('password.changed')).toEqual([{ type: 'password.changed', at: t.clock.now(), userKey: user.userKey, grantIds: revokedGrantIds }]);
  });

  it('refuses a short password and an unknown user', async () => {
    const t = await createTestGatehouse();
    const user = await t.seedUser();
    expect(await expectDomainError(t.product.changePassword({ userKey: user.userKey, newPassword: 'short' }))).toMatchObject({ kind: 'invalid' });
    expect(await expectDomainError(t.product.changePassword({ userKey: 'nobody', newPassword: 'long enough' }))).toMatchObject({ kind: 'not_found' });
  });
});

describe('accounts, memberships and phone numbers', () => {
  it('creates an account with a trimmed name, and refuses an empty one', async () => {
    const t = await createTestGatehouse();
    expect(await t.product.createAccount({ name: ' Acme ' })).toEqual({ accountKey: expect.any(String), name: 'Acme' });
    expect(await expectDomainError(t.product.createAccount({ name: ' ' }))).toMatchObject({ kind: 'invalid', field: 'name' });
  });

  it('sets and changes a role; unknown account or user is not_found', async () => {
    const t = await createTestGatehouse();
    const account = await t.seedAccount('Acme');
    const user = await t.seedUser({ accountKey: account.accountKey, role: 'member' });
    expect(await t.repositories.accounts.findRole(account.accountKey, user.userKey)).toBe('member');
    await t.product.setMembership({ accountKey: account.accountKey, userKey: user.userKey, role: 'admin' });
    expect(await t.repositories.accounts.findRole(account.accountKey, user.userKey)).toBe('admin');
    expect(await expectDomainError(t.product.setMembership({ accountKey: 'nope', userKey: user.userKey, role: 'admin' }))).toMatchObject({ kind: 'not_found' });
    expect(await expectDomainError(t.product.setMembership({ accountKey: account.accountKey, userKey: 'nope', role: 'admin' }))).toMatchObject({ kind: 'not_found' });
  });

  it('adds E.164 phone numbers only', async () => {
    const t = await createTestGatehouse();
    const user = await t.seedUser();
    await t.product.addPhoneNumber({ userKey: user.userKey, phoneNumber: '+15551234567' });
    await t.product.addPhoneNumber({ userKey: user.userKey, phoneNumber: '+15551234567' });
    expect(await t.repositories.users.listPhoneNumbers(user.userKey)).toEqual(['+15551234567']);
    for (const phoneNumber of ['15551234567', '+05551234567', '+1555123456789012', '+1 555 123 4567', '+']) {
      expect(await expectDomainError(t.product.addPhoneNumber({ userKey: user.userKey, phoneNumber }))).toMatchObject({ kind: 'invalid', field: 'phone' });
    }
  });
});

describe('addPhoneNumber: one owner per number', () => {
  it('refuses a number another user has (conflict), so neither reads the other’s messages', async () => {
    const t = await createTestGatehouse();
    const ada = await t.seedUser({ phone: '+15551234567' });
    const eve = await t.seedUser();
    const error = await expectDomainError(t.product.addPhoneNumber({ userKey: eve.userKey, phoneNumber: '+15551234567' }));
    expect(error).toMatchObject({ kind: 'conflict', field: 'phone', message: 'The phone number +15551234567 belongs to another user.' });
    expect(await t.repositories.users.listPhoneNumbers(eve.userKey)).toEqual([]);
    expect(await t.repositories.users.listPhoneNumbers(ada.userKey)).toEqual(['+15551234567']);
  });
});

describe('currentUser (identity)', () => {
  it('returns the user without the password hash, with every membership and role', async () => {
    const t = await createTestGatehouse();
    const acme = await t.seedAccount('Acme');
    const globex = await t.seedAccount('Globex');
    const user = await t.seedUser({ email: 'ada@example.com', givenName: 'Ada', familyName: 'Lovelace', accountKey: acme.accountKey, role: 'admin' });
    await t.product.setMembership({ accountKey: globex.accountKey, userKey: user.userKey, role: 'member' });

    const me = await t.product.currentUser(user.userKey);
    expect(me.user).toEqual({ userKey: user.userKey, email: 'ada@example.com', givenName: 'Ada', familyName: 'Lovelace', locale: 'en-US' });
    expect(me.user).not.toHaveProperty('passwordHash');
    expect(me.memberships).toEqual(
      expect.arrayContaining([
        { account: acme, role: 'admin' },
        { account: globex, role: 'member' },
      ]),
    );
    expect(me.memberships).toHaveLength(2);
  });

  it('has no memberships for a user of no account, and is not_found for an unknown user', async () => {
    const t = await createTestGatehouse();
    const user = await t.seedUser();
    expect((await t.product.currentUser(user.userKey)).memberships).toEqual([]);
    expect(await expectDomainError(t.product.currentUser('nobody'))).toMatchObject({ kind: 'not_found' });
  });
});
