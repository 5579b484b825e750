import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { createTestGatehouse } from '@gatehouse/core/testing';
import { expectDomainError, expectOAuthError } from '../test-support/rejections.js';
import { validateRegistration } from './clients.js';
import { depsOf } from '../gatehouse.js';
import { issueAccessToken } from '../tokens/access-token.js';
import { DEFAULT_SCOPES } from '../domain/scopes.js';

async function setup() {
  const t = await createTestGatehouse();
  const { client, clientSecret } = await t.seedClient({
    name: 'Billing job',
    redirectUris: [],
    grantTypes: ['client_credentials'],
    scopes: ['messaging.v1.read', 'admin.v1.attributes.read'],
  });
  return { t, client, clientSecret };
}

describe('grant types per client', () => {
  it('default to authorization_code and refresh_token, and are kept in their usual order', () => {
    const base = { name: 'x', redirectUris: ['https://a.example/cb'], scopes: ['messaging.v1.read'] };
    expect(validateRegistration(base, DEFAULT_SCOPES).grantTypes).toEqual(['authorization_code', 'refresh_token']);
    expect(validateRegistration({ ...base, grantTypes: ['client_credentials', 'refresh_token', 'authorization_code', 'client_credentials'] }, DEFAULT_SCOPES).grantTypes).toEqual([
      'authorization_code',
      'refresh_token',
      'client_credentials',
    ]);
  });

  it('need a redirect URI only with authorization_code', () => {
    expect(validateRegistration({ name: 'x', redirectUris: [], scopes: ['messaging.v1.read'], grantTypes: ['client_credentials'] }, DEFAULT_SCOPES).redirectUris).toEqual([]);
    expect(() => validateRegistration({ name: 'x', redirectUris: [], scopes: ['messaging.v1.read'] }, DEFAULT_SCOPES)).toThrow(/redirect URI/);
  });

  it('refuse unknown grant types, none at all, and refresh_token without authorization_code', async () => {
    const t = await createTestGatehouse();
    const base = { name: 'x', redirectUris: ['https://a.example/cb'], scopes: ['messaging.v1.read'] };
    for (const grantTypes of [['password'], ['implicit', 'authorization_code'], [], ['refresh_token'], ['refresh_token', 'client_credentials']]) {
      await expectDomainError(t.gatehouse.registerClient({ ...base, grantTypes }), 'invalid', 'grantTypes');
    }
    expect(await t.gatehouse.listClients()).toEqual([]);
  });

  it('are edited with the client, and stay when an edit does not name them', async () => {
    const t = await createTestGatehouse();
    const { client } = await t.seedClient();
    const edited = await t.gatehouse.updateClient({ ownerUserKey: null, clientId: client.clientId, name: 'x', redirectUris: client.redirectUris, scopes: client.scopes, grantTypes: ['authorization_code', 'client_credentials'] });
    expect(edited.grantTypes).toEqual(['authorization_code', 'client_credentials']);
    const renamed = await t.gatehouse.updateClient({ ownerUserKey: null, clientId: client.clientId, name: 'y', redirectUris: client.redirectUris, scopes: client.scopes });
    expect(renamed.grantTypes).toEqual(['authorization_code', 'client_credentials']);
    expect((await t.repositories.clients.findById(client.clientId))?.grantTypes).toEqual(['authorization_code', 'client_credentials']);
  });

  it('a client without authorization_code is unauthorized_client at authorize (a redirect) and at the token endpoint', async () => {
    const t = await createTestGatehouse();
    const user = await t.seedUser();
    const { client } = await t.seedClient();
    const tokens = await t.obtainTokens({ client, user });
    const machine = await t.gatehouse.updateClient({ ownerUserKey: null, clientId: client.clientId, name: 'x', redirectUris: client.redirectUris, scopes: client.scopes, grantTypes: ['client_credentials'] });
    const check = await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', redirect_uri: client.redirectUris[0], state: 'st' });
    expect(check.kind).toBe('redirect-error');
    if (check.kind === 'redirect-error') {
      expect(check.error.code).toBe('unauthorized_client');
      expect(new URL(check.redirectTo).searchParams.get('error')).toBe('unauthorized_client');
    }
    await expectOAuthError(t.gatehouse.refresh({ client: machine, refreshToken: tokens.refresh_token as string, scope: undefined }), 'unauthorized_client');
    await expectOAuthError(t.gatehouse.exchangeCode({ client: machine, code: 'whatever', redirectUri: client.redirectUris[0], codeVerifier: undefined }), 'unauthorized_client');
  });

  it('a client without redirect URIs is an error page at authorize, never a redirect', async () => {
    const { t, client } = await setup();
    const check = await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code' });
    expect(check.kind).toBe('show-error');
  });
});

describe('client credentials (RFC 6749 §4.4)', () => {
  it('issues a JWT for the client itself: sub = client_id, no principal, no refresh token, all registered scopes', async () => {
    const { t, client } = await setup();
    const tokens = await t.gatehouse.clientCredentials({ client, scope: undefined });
    expect(tokens).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 3600, scope: 'messaging.v1.read admin.v1.attributes.read' });
    expect(tokens).not.toHaveProperty('refresh_token');
    const claims = decodeJwt(tokens.access_token);
    expect(claims.sub).toBe(client.clientId);
    expect(claims.client_id).toBe(client.clientId);
    expect(claims).not.toHaveProperty('principal');
    const verified = await t.gatehouse.verifyAccessToken(tokens.access_token);
    expect(verified).toMatchObject({ subjectType: 'client', userKey: null, clientId: client.clientId, scopes: ['messaging.v1.read', 'admin.v1.attributes.read'] });
  });

  it('narrows to the requested scopes, and refuses one the client lacks (invalid_scope)', async () => {
    const { t, client } = await setup();
    expect((await t.gatehouse.clientCredentials({ client, scope: 'messaging.v1.read' })).scope).toBe('messaging.v1.read');
    await expectOAuthError(t.gatehouse.clientCredentials({ client, scope: 'messaging.v1.send' }), 'invalid_scope');
    await expectOAuthError(t.gatehouse.clientCredentials({ client, scope: 'not.a.scope' }), 'invalid_scope');
  });

  it('is unauthorized_client for a client without the grant type, and for a public client', async () => {
    const t = await createTestGatehouse();
    const { client } = await t.seedClient();
    await expectOAuthError(t.gatehouse.clientCredentials({ client, scope: undefined }), 'unauthorized_client');
    const { client: spa } = await t.gatehouse.registerClient({ name: 'spa', public: true, redirectUris: ['https://spa.example/cb'], scopes: ['messaging.v1.read'] });
    await expectOAuthError(t.gatehouse.clientCredentials({ client: spa, scope: undefined }), 'unauthorized_client');
  });

  it('rests on a grant without a user, so revocation refuses the token at once', async () => {
    const { t, client } = await setup();
    const tokens = await t.gatehouse.clientCredentials({ client, scope: undefined });
    const verified = await t.gatehouse.verifyAccessToken(tokens.access_token);
    expect(await t.repositories.grants.findById(verified.grantId)).toMatchObject({ userKey: null, clientId: client.clientId, sessionId: null, revokedAt: null });
    await t.gatehouse.revokeToken({ client, token: tokens.access_token, tokenTypeHint: 'access_token' });
    await expectOAuthError(t.gatehouse.verifyAccessToken(tokens.access_token), 'invalid_token');
    expect(t.audit.ofType('grant.revoked')).toMatchObject([{ clientId: client.clientId, grantIds: [verified.grantId] }]);
    expect(t.audit.ofType('grant.revoked')[0]).not.toHaveProperty('userKey');
  });

  it('is introspected by its client: active, sub = client_id, no username', async () => {
    const { t, client } = await setup();
    const tokens = await t.gatehouse.clientCredentials({ client, scope: 'messaging.v1.read' });
    const answer = await t.gatehouse.introspectToken({ client, token: tokens.access_token, tokenTypeHint: undefined });
    expect(answer).toMatchObject({ active: true, client_id: client.clientId, sub: client.clientId, scope: 'messaging.v1.read', token_type: 'Bearer' });
    expect(answer).not.toHaveProperty('username');
    const { client: other } = await t.seedClient({ redirectUris: [], grantTypes: ['client_credentials'] });
    expect(await t.gatehouse.introspectToken({ client: other, token: tokens.access_token, tokenTypeHint: undefined })).toEqual({ active: false });
  });

  it('a token of a client grant that claims a principal is refused: the grant says whose token it is', async () => {
    const { t, client } = await setup();
    const tokens = await t.gatehouse.clientCredentials({ client, scope: undefined });
    const grant = (await t.repositories.grants.findById((await t.gatehouse.verifyAccessToken(tokens.access_token)).grantId))!;
    const forged = await issueAccessToken(depsOf(t.gatehouse), grant, 'mallory@example.com', grant.scopes);
    await expectOAuthError(t.gatehouse.verifyAccessToken(forged.token), 'invalid_token');
  });

  it('grants without a user are purged once their token has long expired', async () => {
    const { t, client } = await setup();
    const tokens = await t.gatehouse.clientCredentials({ client, scope: undefined });
    const grantId = (await t.gatehouse.verifyAccessToken(tokens.access_token)).grantId;
    t.clock.advance(3600 + 24 * 3600 + 1);
    expect((await t.gatehouse.purgeExpired()).grants).toBe(1);
    expect(await t.repositories.grants.findById(grantId)).toBeUndefined();
  });
});
