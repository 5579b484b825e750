/* global describe, it, expect */
// How an embedder tests their own token and attribute rules with Jest: plain ESM JavaScript,
// the packages imported by name (resolved through their "exports" to dist/), Jest's globals.
import { DomainError, OAuthError } from '@gatehouse/core';
import { createTestGatehouse } from '@gatehouse/core/testing';

async function signedInUserWithTokens() {
  const t = await createTestGatehouse();
  const user = await t.seedUser({ email: 'ada@example.com' });
  const { client, clientSecret } = await t.seedClient({ scopes: ['messaging.v1.send', 'messaging.v1.read'] });
  const tokens = await t.obtainTokens({ client, user });
  return { t, user, client, clientSecret, tokens };
}

describe('createTestGatehouse in a Jest project', () => {
  it('runs the authorization-code flow and verifies the access token', async () => {
    const { t, user, client, clientSecret, tokens } = await signedInUserWithTokens();
    expect(tokens).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      refresh_token: expect.any(String),
      expires_in: 3600,
      scope: 'messaging.v1.send messaging.v1.read',
      principal: 'ada@example.com',
    });
    const authenticated = await t.gatehouse.authenticateClient({ clientId: client.clientId, clientSecret });
    expect(authenticated.clientId).toBe(client.clientId);
    const verified = await t.gatehouse.verifyAccessToken(tokens.access_token);
    expect(verified.userKey).toBe(user.userKey);
    expect(verified.scopes).toEqual(['messaging.v1.send', 'messaging.v1.read']);
  });

  it('obtains and checks an ID token of an OpenID Connect request (settings.openid)', async () => {
    const t = await createTestGatehouse({ settings: { openid: true } });
    const user = await t.seedUser({ email: 'ada@example.com' });
    const { client } = await t.seedClient({ scopes: ['openid', 'profile', 'email'] });
    const tokens = await t.obtainTokens({ client, user, scope: 'openid email', nonce: 'n-1' });
    const claims = await t.checkIdToken(tokens.id_token, { client, nonce: 'n-1', accessToken: tokens.access_token });
    expect(claims).toMatchObject({ sub: user.userKey, aud: client.clientId, nonce: 'n-1' });
    await expect(t.checkIdToken(tokens.id_token, { client, nonce: 'another' })).rejects.toThrow(/nonce/);
    const info = await t.gatehouse.userInfo(await t.gatehouse.verifyAccessToken(tokens.access_token));
    expect(info).toEqual({ sub: user.userKey, email: 'ada@example.com' });
  }, 30000);

  it('expires the access token when the controllable clock moves past its lifetime', async () => {
    const { t, tokens } = await signedInUserWithTokens();
    t.clock.advance(3599);
    await expect(t.gatehouse.verifyAccessToken(tokens.access_token)).resolves.toBeDefined();
    t.clock.advance(1);
    const error = await t.gatehouse.verifyAccessToken(tokens.access_token).catch((caught) => caught);
    expect(error).toBeInstanceOf(OAuthError);
    expect(error.code).toBe('invalid_token');
  });

  it('expires an unused authorization code after 60 seconds', async () => {
    const t = await createTestGatehouse();
    const user = await t.seedUser();
    const { client } = await t.seedClient();
    const check = await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', state: 'xyz' });
    expect(check.kind).toBe('valid');
    const { redirectTo } = await t.gatehouse.approveAuthorization({ request: check.request, userKey: user.userKey, sessionId: null });
    const url = new URL(redirectTo);
    expect(url.searchParams.get('state')).toBe('xyz');
    expect(url.searchParams.get('iss')).toBe('http://localhost:3000');
    t.clock.advance(60);
    await expect(
      t.gatehouse.exchangeCode({ client, code: url.searchParams.get('code'), redirectUri: client.redirectUris[0], codeVerifier: undefined }),
    ).rejects.toMatchObject({ code: 'invalid_grant' });
  });

  it('lets the recording audit log see a replayed code, and the first tokens stop working', async () => {
    const t = await createTestGatehouse();
    const user = await t.seedUser();
    const { client } = await t.seedClient();
    const check = await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code' });
    const { redirectTo } = await t.gatehouse.approveAuthorization({ request: check.request, userKey: user.userKey, sessionId: null });
    const code = new URL(redirectTo).searchParams.get('code');
    const exchange = () => t.gatehouse.exchangeCode({ client, code, redirectUri: client.redirectUris[0], codeVerifier: undefined });

    const first = await exchange();
    await expect(exchange()).rejects.toMatchObject({ code: 'invalid_grant' });

    const replays = t.audit.ofType('code.replayed');
    expect(replays).toHaveLength(1);
    expect(replays[0]).toMatchObject({ clientId: client.clientId, userKey: user.userKey });
    expect(JSON.stringify(t.audit.events)).not.toContain(code);
    await expect(t.gatehouse.verifyAccessToken(first.access_token)).rejects.toMatchObject({ code: 'invalid_token' });
  });

  it('ends every grant of a session on product logout', async () => {
    const t = await createTestGatehouse();
    const user = await t.seedUser({ password: 'correct horse' });
    const { client } = await t.seedClient();
    const { sessionToken, session } = await t.gatehouse.signIn({ email: user.email, password: 'correct horse' });
    const tokens = await t.obtainTokens({ client, user, sessionId: session.sessionId });
    await t.gatehouse.logout(sessionToken);
    await expect(t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token, scope: undefined })).rejects.toMatchObject({ code: 'invalid_grant' });
  });
});

describe('records of the in-memory test kit', () => {
  it('hold Dates of the test\'s own realm (Jest runs tests in a VM context)', async () => {
    const { t, user } = await signedInUserWithTokens();
    const [grant] = await t.repositories.grants.listActiveByUser(user.userKey);
    expect(grant.createdAt).toBeInstanceOf(Date);
    expect(grant.createdAt).toEqual(t.clock.now());
    await t.product.addPhoneNumber({ userKey: user.userKey, phoneNumber: '+15551234567' });
    await t.product.sendMessage(user.userKey, { ownerPhoneNumber: '+15551234567', contactPhoneNumbers: ['+15557654321'], body: 'Hi' });
    expect(t.transport.sent[0].timestamp).toBeInstanceOf(Date);
    expect((await t.product.listMessages(user.userKey, { ownerPhoneNumber: '+15551234567' })).items[0].timestamp).toBeInstanceOf(Date);
  });
});

describe('attribute rules in a Jest project', () => {
  async function accountWithAdmin(settings) {
    const t = await createTestGatehouse({ settings });
    const account = await t.seedAccount('Acme');
    const admin = await t.seedUser({ accountKey: account.accountKey, role: 'admin' });
    return { t, account, admin, scope: { actorUserKey: admin.userKey, accountKey: account.accountKey } };
  }

  it('trims names and keeps them unique ignoring case', async () => {
    const { t, scope } = await accountWithAdmin();
    const created = await t.product.createAttribute({ ...scope, name: '  Department ' });
    expect(created.name).toBe('Department');
    const error = await t.product.createAttribute({ ...scope, name: 'department' }).catch((caught) => caught);
    expect(error).toBeInstanceOf(DomainError);
    expect(error.kind).toBe('conflict');
  });

  it('enforces a per-account limit set in the settings', async () => {
    const { t, scope } = await accountWithAdmin({ maxAttributesPerAccount: 1 });
    await t.product.createAttribute({ ...scope, name: 'department' });
    await expect(t.product.createAttribute({ ...scope, name: 'division' })).rejects.toMatchObject({ kind: 'conflict' });
  });

  it('sets user values all or nothing, naming the unknown key', async () => {
    const { t, scope, admin } = await accountWithAdmin();
    const department = await t.product.createAttribute({ ...scope, name: 'department' });
    const values = [
      { key: department.key, value: 'Sales' },
      { key: 'missing-key', value: 'x' },
    ];
    const error = await t.product.setUserAttributes({ ...scope, userKey: admin.userKey, values }).catch((caught) => caught);
    expect(error.kind).toBe('invalid');
    expect(error.message).toContain('missing-key');
    expect(await t.product.getUserAttributes({ ...scope, userKey: admin.userKey })).toEqual([]);
  });

  it('hides another account: not_found, not forbidden', async () => {
    const { t, account } = await accountWithAdmin();
    const stranger = await t.seedUser();
    await expect(t.product.listAttributes({ actorUserKey: stranger.userKey, accountKey: account.accountKey })).rejects.toMatchObject({ kind: 'not_found' });
  });
});
