import { describe, expect, it } from 'vitest';
import { createTestGatehouse } from '@gatehouse/core/testing';
import { DomainError } from '../errors.js';

describe('authorized apps', () => {
  it('lists the clients a user granted, one entry per client with the union of scopes', async () => {
    const t = await createTestGatehouse();
    const user = await t.seedUser();
    const { client: mail } = await t.seedClient({ name: 'Mail', scopes: ['messaging.v1.send', 'messaging.v1.read'] });
    const { client: admin } = await t.seedClient({ name: 'Admin tool', scopes: ['admin.v1.attributes.read'] });
    const firstAt = t.clock.now();
    await t.obtainTokens({ client: mail, user, scope: 'messaging.v1.send' });
    t.clock.advance(60);
    await t.obtainTokens({ client: mail, user, scope: 'messaging.v1.read' });
    await t.obtainTokens({ client: admin, user });

    const apps = await t.gatehouse.listAuthorizedApps(user.userKey);
    expect(apps).toHaveLength(2);
    expect(apps.find((app) => app.clientId === mail.clientId)).toEqual({
      clientId: mail.clientId,
      clientName: 'Mail',
      scopes: expect.arrayContaining(['messaging.v1.send', 'messaging.v1.read']),
      firstGrantedAt: firstAt,
      grantCount: 2,
      origin: { registration: 'static', documentHost: undefined, loopbackRedirectsOnly: false },
    });
    expect(apps.find((app) => app.clientId === admin.clientId)).toMatchObject({ clientName: 'Admin tool', scopes: ['admin.v1.attributes.read'], grantCount: 1 });
  });

  it('revokes every grant of one client and leaves the others', async () => {
    const t = await createTestGatehouse();
    const user = await t.seedUser();
    const { client: mail } = await t.seedClient({ name: 'Mail' });
    const { client: other } = await t.seedClient({ name: 'Other' });
    const a = await t.obtainTokens({ client: mail, user });
    const b = await t.obtainTokens({ client: mail, user });
    const c = await t.obtainTokens({ client: other, user });

    const { revokedGrantIds } = await t.gatehouse.revokeAuthorizedApp({ userKey: user.userKey, clientId: mail.clientId });
    expect(revokedGrantIds).toHaveLength(2);
    for (const tokens of [a, b]) await expect(t.gatehouse.verifyAccessToken(tokens.access_token)).rejects.toMatchObject({ code: 'invalid_token' });
    expect((await t.gatehouse.verifyAccessToken(c.access_token)).clientId).toBe(other.clientId);
    expect((await t.gatehouse.listAuthorizedApps(user.userKey)).map((app) => app.clientId)).toEqual([other.clientId]);
    expect(t.audit.ofType('grant.revoked')).toEqual([
      { type: 'grant.revoked', at: t.clock.now(), userKey: user.userKey, clientId: mail.clientId, grantIds: revokedGrantIds, reason: 'revoked by the user; consent forgotten' },
    ]);
  });

  it('is not_found when the user has not authorized the client (or another user did)', async () => {
    const t = await createTestGatehouse();
    const user = await t.seedUser();
    const someoneElse = await t.seedUser();
    const { client } = await t.seedClient();
    await t.obtainTokens({ client, user: someoneElse });
    const error = await t.gatehouse.revokeAuthorizedApp({ userKey: user.userKey, clientId: client.clientId }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).kind).toBe('not_found');
    expect(await t.gatehouse.listAuthorizedApps(someoneElse.userKey)).toHaveLength(1);
  });

  it('lists an app whose grants ended while its consent is remembered, and revoking it forgets the consent', async () => {
    const t = await createTestGatehouse();
    const user = await t.seedUser();
    const { client } = await t.seedClient({ name: 'Mail', scopes: ['messaging.v1.read'] });
    await t.obtainTokens({ client, user });
    await t.repositories.grants.revokeByUser(user.userKey, t.clock.now());
    expect(await t.gatehouse.listAuthorizedApps(user.userKey)).toEqual([
      { clientId: client.clientId, clientName: 'Mail', scopes: ['messaging.v1.read'], firstGrantedAt: t.clock.now(), grantCount: 0, origin: { registration: 'static', documentHost: undefined, loopbackRedirectsOnly: false } },
    ]);
    expect(await t.gatehouse.revokeAuthorizedApp({ userKey: user.userKey, clientId: client.clientId })).toEqual({ revokedGrantIds: [] });
    expect(await t.repositories.consents.find(user.userKey, client.clientId)).toBeUndefined();
    expect(await t.gatehouse.listAuthorizedApps(user.userKey)).toEqual([]);
    expect(t.audit.ofType('grant.revoked')).toMatchObject([{ clientId: client.clientId, grantIds: [], reason: 'revoked by the user; consent forgotten' }]);
  });
});
