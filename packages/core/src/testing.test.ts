import { describe, expect, it } from 'vitest';
import {
  createControllableClock,
  createFastPasswordHasher,
  createRecordingAuditLog,
  createRecordingTransport,
  createSequentialIds,
  createTestGatehouse,
  s256Challenge,
} from '@gatehouse/core/testing';
import type { Message } from './domain/model.js';

describe('the test kit', () => {
  it('controllable clock moves only when told', () => {
    const clock = createControllableClock('2030-01-01T00:00:00Z');
    expect(clock.now().toISOString()).toBe('2030-01-01T00:00:00.000Z');
    expect(clock.now().toISOString()).toBe('2030-01-01T00:00:00.000Z');
    clock.advance(61);
    expect(clock.now().toISOString()).toBe('2030-01-01T00:01:01.000Z');
    clock.advance(0.5);
    expect(clock.now().getTime() % 1000).toBe(500);
    clock.set('2031-06-01T12:00:00Z');
    expect(clock.now().toISOString()).toBe('2031-06-01T12:00:00.000Z');
    // now() hands out copies: mutating one does not move the clock.
    clock.now().setFullYear(1999);
    expect(clock.now().getFullYear()).toBe(2031);
  });

  it('sequential ids are readable and alphanumeric; secrets are random', () => {
    const ids = createSequentialIds('k');
    expect([ids.id(), ids.id(), ids.id()]).toEqual(['k1', 'k2', 'k3']);
    expect(ids.secret()).toMatch(/^[A-Za-z0-9]{43}$/);
    expect(ids.secret()).not.toBe(ids.secret());
  });

  it('fast password hasher verifies the right password only', async () => {
    const hasher = createFastPasswordHasher();
    const hash = await hasher.hash('correct horse');
    expect(await hasher.verify('correct horse', hash)).toBe(true);
    expect(await hasher.verify('wrong horse', hash)).toBe(false);
    expect(hash).not.toContain('correct horse');
    expect(hasher.needsRehash(hash)).toBe(false);
    expect(hasher.needsRehash('scrypt$16384$8$1$salt$key')).toBe(true);
  });

  it('recording audit log and transport keep what they were given', async () => {
    const audit = createRecordingAuditLog();
    const at = new Date('2030-01-01T00:00:00Z');
    audit.record({ type: 'logout', at, userKey: 'u1' });
    audit.record({ type: 'key.rotated', at });
    expect(audit.events).toHaveLength(2);
    expect(audit.ofType('logout')).toEqual([{ type: 'logout', at, userKey: 'u1' }]);

    const transport = createRecordingTransport('QUEUED');
    const message: Message = { id: 'm1', ownerPhoneNumber: '+15551234567', contactPhoneNumbers: ['+15557654321'], body: 'Hi', direction: 'OUT', authorUserKey: 'u1', timestamp: at, status: 'QUEUED' };
    expect(await transport.send(message)).toBe('QUEUED');
    message.body = 'changed afterwards';
    expect(transport.sent[0]?.body).toBe('Hi');
  });

  it('createTestGatehouse seeds users in accounts with phones, clients, and obtains tokens', async () => {
    const t = await createTestGatehouse({ settings: { accessTokenTtlSeconds: 300 } });
    const account = await t.seedAccount('Acme');
    const user = await t.seedUser({ email: 'ada@example.com', accountKey: account.accountKey, role: 'admin', phone: '+15551234567' });
    expect(await t.repositories.accounts.findRole(account.accountKey, user.userKey)).toBe('admin');
    expect(await t.repositories.users.listPhoneNumbers(user.userKey)).toEqual(['+15551234567']);
    expect((await t.gatehouse.signIn({ email: 'ada@example.com', password: 'password123' })).user.userKey).toBe(user.userKey);

    const { client } = await t.seedClient({ scopes: ['messaging.v1.read'] });
    const tokens = await t.obtainTokens({ client, user });
    expect(tokens).toMatchObject({ scope: 'messaging.v1.read', expires_in: 300, principal: 'ada@example.com' });
    expect(t.settings.accessTokenTtlSeconds).toBe(300);
    t.clock.advance(300);
    await expect(t.gatehouse.verifyAccessToken(tokens.access_token)).rejects.toMatchObject({ code: 'invalid_token' });
  });

  it('s256Challenge is the RFC 7636 S256 transform', () => {
    expect(s256Challenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
  });

  it('checkIdToken checks an ID token as a relying party would: signature, iss, aud, expiry, nonce, at_hash', { timeout: 30_000 }, async () => {
    const t = await createTestGatehouse({ settings: { openid: true } });
    const user = await t.seedUser();
    const { client } = await t.seedClient({ scopes: ['openid'] });
    const { client: other } = await t.seedClient({ scopes: ['openid'] });
    const tokens = await t.obtainTokens({ client, user, scope: 'openid', nonce: 'n-1' });
    await expect(t.checkIdToken(tokens.id_token, { client, nonce: 'n-1', accessToken: tokens.access_token })).resolves.toMatchObject({ sub: user.userKey });
    await expect(t.checkIdToken(tokens.id_token, { client, nonce: 'n-2' })).rejects.toThrow(/nonce/);
    await expect(t.checkIdToken(tokens.id_token, { client, nonce: 'n-1', accessToken: 'another token' })).rejects.toThrow(/at_hash/);
    await expect(t.checkIdToken(tokens.id_token, { client: other, nonce: 'n-1' })).rejects.toThrow();
    await expect(t.checkIdToken(tokens.id_token, { client: { ...client, idTokenSignedResponseAlg: 'ES256' }, nonce: 'n-1' })).rejects.toThrow();
    await expect(t.checkIdToken(undefined, { client })).rejects.toThrow(/no id_token/);
    t.clock.advance(3601);
    await expect(t.checkIdToken(tokens.id_token, { client, nonce: 'n-1' })).rejects.toThrow();
  });
});
