import { describe, expect, it } from 'vitest';
import { createTestGatehouse } from '@gatehouse/core/testing';
import { sha256 } from '../crypto.js';

describe("the operator's sessions and grants", () => {
  it("lists a user's live sessions and ends one with its grants, once", async () => {
    const t = await createTestGatehouse();
    const user = await t.seedUser({ email: 'ada@example.com' });
    const { client } = await t.seedClient();
    const first = await t.gatehouse.signIn({ email: 'ada@example.com', password: 'password123' });
    t.clock.advance(10);
    const second = await t.gatehouse.signIn({ email: 'ada@example.com', password: 'password123' });
    const firstId = sha256(first.sessionToken);
    const tokens = await t.obtainTokens({ client, user, sessionId: firstId });
    expect((await t.gatehouse.listUserSessions(user.userKey)).map((session) => session.sessionId)).toEqual([sha256(second.sessionToken), firstId]);

    const { revokedGrantIds } = await t.gatehouse.endSession(firstId);
    expect(revokedGrantIds).toHaveLength(1);
    await expect(t.gatehouse.verifyAccessToken(tokens.access_token)).rejects.toMatchObject({ code: 'invalid_token' });
    expect((await t.gatehouse.listUserSessions(user.userKey)).map((session) => session.sessionId)).toEqual([sha256(second.sessionToken)]);
    expect(t.audit.ofType('logout').at(-1)).toMatchObject({ userKey: user.userKey, grantIds: revokedGrantIds, reason: 'session ended by the operator' });
    await expect(t.gatehouse.endSession(firstId)).rejects.toMatchObject({ kind: 'not_found' });
    await expect(t.gatehouse.endSession('no-such-session')).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('lists and revokes grants by id, by user (for one client or all) and by client', async () => {
    const t = await createTestGatehouse();
    const ada = await t.seedUser();
    const bob = await t.seedUser();
    const { client: mail } = await t.seedClient({ name: 'Mail' });
    const { client: other } = await t.seedClient({ name: 'Other' });
    const adaMail = await t.obtainTokens({ client: mail, user: ada });
    const adaOther = await t.obtainTokens({ client: other, user: ada });
    const bobMail = await t.obtainTokens({ client: mail, user: bob });
    const bobOther = await t.obtainTokens({ client: other, user: bob });
    expect(await t.gatehouse.listGrants({ userKey: ada.userKey })).toHaveLength(2);
    const mailGrants = await t.gatehouse.listGrants({ clientId: mail.clientId });
    expect(mailGrants.map((grant) => grant.userKey).sort()).toEqual([ada.userKey, bob.userKey].sort());

    const one = mailGrants.find((grant) => grant.userKey === bob.userKey)!;
    expect(await t.gatehouse.revokeGrants({ grantId: one.grantId })).toEqual({ revokedGrantIds: [one.grantId] });
    await expect(t.gatehouse.verifyAccessToken(bobMail.access_token)).rejects.toMatchObject({ code: 'invalid_token' });
    await expect(t.gatehouse.revokeGrants({ grantId: one.grantId })).rejects.toMatchObject({ kind: 'not_found' });

    expect((await t.gatehouse.revokeGrants({ userKey: ada.userKey, clientId: other.clientId })).revokedGrantIds).toHaveLength(1);
    await expect(t.gatehouse.verifyAccessToken(adaOther.access_token)).rejects.toMatchObject({ code: 'invalid_token' });
    expect((await t.gatehouse.verifyAccessToken(adaMail.access_token)).clientId).toBe(mail.clientId);

    expect((await t.gatehouse.revokeGrants({ clientId: mail.clientId })).revokedGrantIds).toHaveLength(1);
    await expect(t.gatehouse.verifyAccessToken(adaMail.access_token)).rejects.toMatchObject({ code: 'invalid_token' });
    expect((await t.gatehouse.verifyAccessToken(bobOther.access_token)).clientId).toBe(other.clientId);
    expect((await t.gatehouse.revokeGrants({ userKey: bob.userKey })).revokedGrantIds).toHaveLength(1);
    expect(t.audit.ofType('grant.revoked').map((event) => event.reason)).toEqual(Array(4).fill('revoked by the operator'));
  });
});
