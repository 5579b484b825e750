import { describe, expect, it } from 'vitest';
import { createControllableClock, createMemoryRepositories, createTestGatehouse } from '@gatehouse/core/testing';
import { OAuthError } from '../errors.js';
import { createGatehouse } from '../gatehouse.js';
import type { PasswordHasher } from '../ports/services.js';
import { defineSettings } from '../settings.js';
import { sha256 } from '../crypto.js';
import { expectDomainError } from '../test-support/rejections.js';

async function setup() {
  const t = await createTestGatehouse();
  const user = await t.seedUser({ email: 'ada@example.com', password: 'correct horse' });
  return { t, user };
}

const expectSignInRefused = (promise: Promise<unknown>) => expectDomainError(promise, 'unauthenticated');

describe('signIn', () => {
  it('creates a session whose id is the hash of the cookie value', async () => {
    const { t, user } = await setup();
    const signedIn = await t.gatehouse.signIn({ email: 'ada@example.com', password: 'correct horse' });
    expect(signedIn.user.userKey).toBe(user.userKey);
    expect(signedIn.sessionToken).toMatch(/^[A-Za-z0-9]{43,}$/);
    expect(signedIn.session).toEqual({
      sessionId: sha256(signedIn.sessionToken),
      userKey: user.userKey,
      createdAt: t.clock.now(),
      authenticatedAt: t.clock.now(),
      // RFC 8176 §2: a password sign-in (what an ID token's amr says).
      amr: ['pwd'],
      expiresAt: new Date(t.clock.now().getTime() + 12 * 3600 * 1000),
      endedAt: null,
    });
    expect(await t.repositories.sessions.findById(sha256(signedIn.sessionToken))).toEqual(signedIn.session);
    expect(t.audit.ofType('sign_in.succeeded')).toEqual([{ type: 'sign_in.succeeded', at: t.clock.now(), userKey: user.userKey }]);
  });

  it('matches the e-mail ignoring case and surrounding spaces', async () => {
    const { t, user } = await setup();
    expect((await t.gatehouse.signIn({ email: '  ADA@Example.com ', password: 'correct horse' })).user.userKey).toBe(user.userKey);
  });

  it('gives the same error for a wrong password and an unknown e-mail', async () => {
    const { t, user } = await setup();
    const wrongPassword = await expectSignInRefused(t.gatehouse.signIn({ email: 'ada@example.com', password: 'wrong horse' }));
    const unknownEmail = await expectSignInRefused(t.gatehouse.signIn({ email: 'nobody@example.com', password: 'correct horse' }));
    expect(wrongPassword.message).toBe(unknownEmail.message);
    expect(wrongPassword.field).toBe(unknownEmail.field);
    expect(t.audit.ofType('sign_in.failed')).toEqual([
      { type: 'sign_in.failed', at: t.clock.now(), userKey: user.userKey, reason: 'wrong password' },
      { type: 'sign_in.failed', at: t.clock.now(), reason: 'unknown e-mail' },
    ]);
    expect(JSON.stringify(t.audit.events)).not.toContain('horse');
  });

  it('checks a password hash of the gatehouse\'s own hasher for an unknown e-mail, so it costs the same time', async () => {
    const seen: string[] = [];
    const hasher = (prefix: string): PasswordHasher => ({
      hash: async (password) => `${prefix}:${password}`,
      verify: async (password, hash) => {
        seen.push(hash);
        return hash === `${prefix}:${password}`;
      },
      needsRehash: () => false,
    });
    for (const prefix of ['first', 'second']) {
      const gatehouse = createGatehouse({
        repositories: createMemoryRepositories(),
        settings: defineSettings({ issuer: 'http://localhost:3000' }),
        clock: createControllableClock(),
        passwords: hasher(prefix),
      });
      await expectSignInRefused(gatehouse.signIn({ email: 'nobody@example.com', password: 'whatever1' }));
    }
    expect(seen).toHaveLength(2);
    expect(seen[0]?.startsWith('first:')).toBe(true);
    expect(seen[1]?.startsWith('second:')).toBe(true);
  });
});

/**
 * A fast hasher whose hashes name their cost (`cost2$password`), counting its calls: what a
 * sign-in computes is checked by structure, not by timings. It verifies hashes of any cost.
 */
function countingHasher(cost: number, hooks: { beforeHash?: () => Promise<void> } = {}) {
  const calls = { hash: 0, verify: [] as string[] };
  const hasher: PasswordHasher = {
    async hash(password) {
      calls.hash += 1;
      await hooks.beforeHash?.();
      return `cost${cost}$${password}`;
    },
    async verify(password, hash) {
      calls.verify.push(hash);
      return hash.slice(hash.indexOf('$') + 1) === password && /^cost\d+\$/.test(hash);
    },
    needsRehash: (hash) => !hash.startsWith(`cost${cost}$`),
  };
  return { hasher, calls, reset: () => ((calls.hash = 0), (calls.verify = [])) };
}

describe('signIn: the same work whatever the outcome (docs/security.md)', () => {
  it('verifies exactly one hash of the current cost for an unknown e-mail, a wrong password and the right one', async () => {
    const counting = countingHasher(2);
    const t = await createTestGatehouse({ passwords: counting.hasher });
    await t.seedUser({ email: 'ada@example.com', password: 'correct horse' });
    // The decoy hash is made once per hasher, at the first unknown e-mail.
    await expectSignInRefused(t.gatehouse.signIn({ email: 'first@example.com', password: 'whatever1' }));

    counting.reset();
    await expectSignInRefused(t.gatehouse.signIn({ email: 'nobody@example.com', password: 'correct horse' }));
    expect(counting.calls).toEqual({ hash: 0, verify: [expect.stringMatching(/^cost2\$/)] });

    counting.reset();
    await expectSignInRefused(t.gatehouse.signIn({ email: 'ada@example.com', password: 'wrong horse' }));
    expect(counting.calls).toEqual({ hash: 0, verify: ['cost2$correct horse'] });

    counting.reset();
    await t.gatehouse.signIn({ email: 'ada@example.com', password: 'correct horse' });
    expect(counting.calls).toEqual({ hash: 0, verify: ['cost2$correct horse'] });
  });
});

describe('signIn: a hash of an older cost is replaced at the next successful sign-in', () => {
  async function withOldHash(hooks?: { beforeHash?: () => Promise<void> }) {
    const counting = countingHasher(2, hooks);
    const t = await createTestGatehouse({ passwords: counting.hasher });
    const user = await t.seedUser({ email: 'ada@example.com', password: 'correct horse' });
    await t.repositories.users.updatePasswordHash(user.userKey, 'cost1$correct horse');
    counting.reset();
    return { t, user, counting };
  }

  it('stores a hash of the current cost, keeps the grants and signs in as before', async () => {
    const { t, user, counting } = await withOldHash();
    const { client } = await t.seedClient();
    const tokens = await t.obtainTokens({ client, user });

    const signedIn = await t.gatehouse.signIn({ email: 'ada@example.com', password: 'correct horse' });
    expect(signedIn.user.userKey).toBe(user.userKey);
    expect(counting.calls).toEqual({ hash: 1, verify: ['cost1$correct horse'] });
    expect((await t.repositories.users.findByKey(user.userKey))?.passwordHash).toBe('cost2$correct horse');
    // Not a password change: the user's grants and tokens live on.
    expect((await t.gatehouse.verifyAccessToken(tokens.access_token)).userKey).toBe(user.userKey);
    expect(t.audit.ofType('password.changed')).toEqual([]);

    counting.reset();
    await t.gatehouse.signIn({ email: 'ada@example.com', password: 'correct horse' });
    expect(counting.calls).toEqual({ hash: 0, verify: ['cost2$correct horse'] });
  });

  it('leaves the hash alone after a wrong password', async () => {
    const { t, user, counting } = await withOldHash();
    await expectSignInRefused(t.gatehouse.signIn({ email: 'ada@example.com', password: 'wrong horse' }));
    expect(counting.calls).toEqual({ hash: 0, verify: ['cost1$correct horse'] });
    expect((await t.repositories.users.findByKey(user.userKey))?.passwordHash).toBe('cost1$correct horse');
  });

  it('never overwrites a password changed meanwhile (the new hash is stored only over the one checked)', async () => {
    let changeFirst: (() => Promise<void>) | undefined;
    const { t, user } = await withOldHash({ beforeHash: () => changeFirst?.() ?? Promise.resolve() });
    changeFirst = async () => {
      changeFirst = undefined;
      await t.product.changePassword({ userKey: user.userKey, newPassword: 'new password' });
    };
    await t.gatehouse.signIn({ email: 'ada@example.com', password: 'correct horse' });
    expect((await t.repositories.users.findByKey(user.userKey))?.passwordHash).toBe('cost2$new password');
  });
});

describe('resolveSession', () => {
  it('finds a live session with its user\'s profile (never the password hash)', async () => {
    const { t, user } = await setup();
    const { sessionToken, session } = await t.gatehouse.signIn({ email: 'ada@example.com', password: 'correct horse' });
    expect(await t.gatehouse.resolveSession(sessionToken)).toEqual({
      session,
      user: { userKey: user.userKey, email: 'ada@example.com', givenName: user.givenName, familyName: user.familyName },
    });
  });

  it('refuses an expired, an ended, an unknown and an empty session token', async () => {
    const { t } = await setup();
    const { sessionToken } = await t.gatehouse.signIn({ email: 'ada@example.com', password: 'correct horse' });
    t.clock.advance(12 * 3600 - 1);
    expect(await t.gatehouse.resolveSession(sessionToken)).toBeDefined();
    t.clock.advance(1);
    expect(await t.gatehouse.resolveSession(sessionToken)).toBeUndefined();

    const second = await t.gatehouse.signIn({ email: 'ada@example.com', password: 'correct horse' });
    await t.gatehouse.logout(second.sessionToken);
    expect(await t.gatehouse.resolveSession(second.sessionToken)).toBeUndefined();
    expect(await t.gatehouse.resolveSession('unknown')).toBeUndefined();
    expect(await t.gatehouse.resolveSession('')).toBeUndefined();
  });
});

describe('logout (product logout)', () => {
  it('revokes every grant made under the session and only those', async () => {
    const { t, user } = await setup();
    const { client } = await t.seedClient();
    const { client: other } = await t.seedClient({ name: 'Other' });
    const browser = await t.gatehouse.signIn({ email: 'ada@example.com', password: 'correct horse' });
    const phone = await t.gatehouse.signIn({ email: 'ada@example.com', password: 'correct horse' });
    const a = await t.obtainTokens({ client, user, sessionId: browser.session.sessionId });
    const b = await t.obtainTokens({ client: other, user, sessionId: browser.session.sessionId });
    const c = await t.obtainTokens({ client, user, sessionId: phone.session.sessionId });

    const { revokedGrantIds } = await t.gatehouse.logout(browser.sessionToken);
    expect(revokedGrantIds).toHaveLength(2);
    for (const tokens of [a, b]) {
      const error = await t.gatehouse.verifyAccessToken(tokens.access_token).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OAuthError);
      expect((error as OAuthError).code).toBe('invalid_token');
    }
    expect((await t.gatehouse.verifyAccessToken(c.access_token)).userKey).toBe(user.userKey);
    expect(await t.gatehouse.resolveSession(phone.sessionToken)).toBeDefined();
    expect(t.audit.ofType('logout')).toEqual([{ type: 'logout', at: t.clock.now(), userKey: user.userKey, grantIds: revokedGrantIds }]);
  });

  it('is a no-op for an unknown session', async () => {
    const { t } = await setup();
    expect(await t.gatehouse.logout('unknown')).toEqual({ revokedGrantIds: [] });
    expect(t.audit.ofType('logout')).toEqual([]);
  });
});

describe('replaceSession (the login form signed a browser in again)', () => {
  it("signs another user's session out (docs/decisions/0191) and hands the same user's over to the new one (docs/decisions/0194)", async () => {
    const { t, user } = await setup();
    const bob = await t.seedUser({ email: 'bob@example.com', password: 'correct horse' });
    const { client } = await t.seedClient();
    const first = await t.gatehouse.signIn({ email: 'ada@example.com', password: 'correct horse' });
    const tokens = await t.obtainTokens({ client, user, sessionId: first.session.sessionId });

    // The same user: the previous session ends, its grant moves and keeps working.
    const second = await t.gatehouse.signIn({ email: 'ada@example.com', password: 'correct horse' });
    const { grantId } = await t.gatehouse.verifyAccessToken(tokens.access_token);
    expect(await t.gatehouse.replaceSession(first.sessionToken, second.session)).toEqual({ revokedGrantIds: [], movedGrantIds: [grantId] });
    expect(await t.gatehouse.resolveSession(first.sessionToken)).toBeUndefined();
    expect((await t.gatehouse.verifyAccessToken(tokens.access_token)).userKey).toBe(user.userKey);
    // Nothing to do for an ended session, an unknown token or the new session itself.
    for (const token of [first.sessionToken, 'unknown', '', second.sessionToken]) expect(await t.gatehouse.replaceSession(token, second.session)).toEqual({ revokedGrantIds: [], movedGrantIds: [] });
    expect(t.audit.ofType('logout')).toEqual([]);

    // Another user: product logout of the previous session, its grant revoked.
    const bobs = await t.gatehouse.signIn({ email: 'bob@example.com', password: 'correct horse' });
    expect(await t.gatehouse.replaceSession(second.sessionToken, bobs.session)).toEqual({ revokedGrantIds: [grantId], movedGrantIds: [] });
    await expect(t.gatehouse.verifyAccessToken(tokens.access_token)).rejects.toMatchObject({ code: 'invalid_token' });
    expect(t.audit.ofType('logout').map((event) => event.userKey)).toEqual([user.userKey]);
    expect((await t.gatehouse.resolveSession(bobs.sessionToken))?.user.userKey).toBe(bob.userKey);
  });

  it('keeps the previous session of the same user live when the store cannot hand it over (handOver is optional)', async () => {
    const repositories = createMemoryRepositories();
    const { handOver: _unused, ...sessions } = repositories.sessions;
    const t = await createTestGatehouse({ repositories: { ...repositories, sessions } });
    await t.seedUser({ email: 'ada@example.com', password: 'correct horse' });
    const first = await t.gatehouse.signIn({ email: 'ada@example.com', password: 'correct horse' });
    const second = await t.gatehouse.signIn({ email: 'ada@example.com', password: 'correct horse' });
    expect(await t.gatehouse.replaceSession(first.sessionToken, second.session)).toEqual({ revokedGrantIds: [], movedGrantIds: [] });
    expect(await t.gatehouse.resolveSession(first.sessionToken)).toBeDefined();
  });
});
