import { describe, expect, it } from 'vitest';
import { createTestGatehouse, s256Challenge, type TestGatehouse } from '@gatehouse/core/testing';
import type { Client } from '../domain/model.js';
import { expectDomainError, expectOAuthError } from '../test-support/rejections.js';

const VERIFIER = 'a-verifier-of-at-least-forty-three-characters-0123456789';

async function setup(settings: Parameters<typeof createTestGatehouse>[0] = {}) {
  const t = await createTestGatehouse(settings);
  const user = await t.seedUser({ email: 'ada@example.com' });
  const { client, clientSecret } = await t.gatehouse.registerClient({
    name: 'Single-page app',
    public: true,
    redirectUris: ['https://spa.example/cb', 'http://127.0.0.1/native', 'http://[::1]/native'],
    scopes: ['messaging.v1.read', 'messaging.v1.send'],
  });
  return { t, user, client, clientSecret };
}

/** Authorize with PKCE S256 at `redirectUri` and exchange the code: what an unmodified public client does. */
async function codeFlow(t: TestGatehouse, client: Client, userKey: string, redirectUri = 'https://spa.example/cb') {
  const check = await t.gatehouse.checkAuthorizationRequest({
    client_id: client.clientId,
    response_type: 'code',
    redirect_uri: redirectUri,
    code_challenge: s256Challenge(VERIFIER),
    code_challenge_method: 'S256',
  });
  if (check.kind !== 'valid') throw check.error;
  const { redirectTo } = await t.gatehouse.approveAuthorization({ request: check.request, userKey, sessionId: null });
  const code = new URL(redirectTo).searchParams.get('code') as string;
  return t.gatehouse.exchangeCode({ client, code, redirectUri, codeVerifier: VERIFIER });
}

describe('a public client (RFC 6749 §2.1)', () => {
  it('is registered without a secret, PKCE required, with the default grant types', async () => {
    const { t, client, clientSecret } = await setup();
    expect(clientSecret).toBeNull();
    expect(client.clientSecretHash).toBeNull();
    expect(client.pkceRequired).toBe(true);
    expect(client.grantTypes).toEqual(['authorization_code', 'refresh_token']);
    expect(await t.repositories.clients.findById(client.clientId)).toEqual(client);
  });

  it('cannot have the client_credentials grant, nor a secret rotated', async () => {
    const { t, client } = await setup();
    await expectDomainError(
      t.gatehouse.registerClient({ name: 'x', public: true, redirectUris: ['https://a.example/cb'], scopes: ['messaging.v1.read'], grantTypes: ['client_credentials'] }),
      'invalid',
      'grantTypes',
    );
    await expectDomainError(t.gatehouse.updateClient({ ownerUserKey: null, clientId: client.clientId, name: 'x', redirectUris: client.redirectUris, scopes: client.scopes, grantTypes: ['authorization_code', 'client_credentials'] }), 'invalid', 'grantTypes');
    await expectDomainError(t.gatehouse.rotateClientSecret({ ownerUserKey: null, clientId: client.clientId }), 'invalid');
    expect((await t.repositories.clients.findById(client.clientId))?.clientSecretHash).toBeNull();
  });

  it('authenticates with its client_id alone; a secret, even an empty hash match, is invalid_client', async () => {
    const { t, client } = await setup();
    expect((await t.gatehouse.authenticateClient({ clientId: client.clientId, clientSecret: null })).clientId).toBe(client.clientId);
    await expectOAuthError(t.gatehouse.authenticateClient({ clientId: client.clientId, clientSecret: 'anything' }), 'invalid_client');
    await expectOAuthError(t.gatehouse.authenticateClient({ clientId: client.clientId, clientSecret: '' }), 'invalid_client');
    await expectOAuthError(t.gatehouse.authenticateClient({ clientId: 'unknown', clientSecret: null }), 'invalid_client');
  });

  it('a confidential client cannot leave its secret out', async () => {
    const { t } = await setup();
    const { client } = await t.seedClient();
    await expectOAuthError(t.gatehouse.authenticateClient({ clientId: client.clientId, clientSecret: null }), 'invalid_client');
    expect(t.audit.events.filter((event) => event.type === 'client.authentication_failed').map((event) => event.clientId)).toEqual([client.clientId]);
  });

  it('must send a PKCE S256 challenge at authorize (an error redirect, RFC 9700 §2.1.1)', async () => {
    const { t, client } = await setup();
    const check = await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', redirect_uri: 'https://spa.example/cb', state: 's' });
    expect(check.kind).toBe('redirect-error');
    if (check.kind !== 'redirect-error') return;
    expect(check.error.code).toBe('invalid_request');
    const url = new URL(check.redirectTo);
    expect(url.searchParams.get('error')).toBe('invalid_request');
    expect(url.searchParams.get('state')).toBe('s');
  });

  it('refuses a code without a challenge at the exchange, should one exist', async () => {
    const { t, user, client } = await setup();
    // A code issued without PKCE (e.g. written before the client became public): the exchange refuses it too.
    const { redirectTo } = await t.gatehouse.approveAuthorization({
      request: { clientId: client.clientId, redirectUri: 'https://spa.example/cb', scopes: ['messaging.v1.read'], state: undefined, codeChallenge: undefined },
      userKey: user.userKey,
      sessionId: null,
    });
    const code = new URL(redirectTo).searchParams.get('code') as string;
    const error = await expectOAuthError(t.gatehouse.exchangeCode({ client, code, redirectUri: 'https://spa.example/cb', codeVerifier: undefined }), 'invalid_grant');
    expect(error.description).toContain('PKCE');
  });

  it('gets tokens through the code flow with PKCE', async () => {
    const { t, user, client } = await setup();
    const tokens = await codeFlow(t, client, user.userKey);
    expect(tokens).toMatchObject({ token_type: 'Bearer', principal: 'ada@example.com', scope: 'messaging.v1.read messaging.v1.send' });
    const verified = await t.gatehouse.verifyAccessToken(tokens.access_token);
    expect(verified).toMatchObject({ subjectType: 'user', userKey: user.userKey, clientId: client.clientId });
  });

  it('always rotates its refresh tokens, though the deployment does not, and a reused one revokes the grant (RFC 9700 §4.14.2)', async () => {
    const { t, user, client } = await setup({ settings: { refreshToken: { rotate: false, reuseGraceSeconds: 10 } } });
    const tokens = await codeFlow(t, client, user.userKey);
    const second = await t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: undefined });
    expect(second.refresh_token).not.toBe(tokens.refresh_token);
    // Within the grace period (a lost response), the rotated token still works once more.
    t.clock.advance(5);
    const retried = await t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: undefined });
    expect(retried.refresh_token).not.toBe(second.refresh_token);
    t.clock.advance(20);
    await expectOAuthError(t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: undefined }), 'invalid_grant');
    // The whole grant went: the newest refresh token and the access tokens too.
    await expectOAuthError(t.gatehouse.refresh({ client, refreshToken: second.refresh_token as string, scope: undefined }), 'invalid_grant');
    await expectOAuthError(t.gatehouse.verifyAccessToken(second.access_token), 'invalid_token');
    expect(t.audit.events.some((event) => event.type === 'refresh_token.reused' && event.clientId === client.clientId)).toBe(true);
  });

  it('a confidential client keeps the deployment setting (no rotation by default)', async () => {
    const { t, user } = await setup();
    const { client } = await t.seedClient();
    const tokens = await t.obtainTokens({ client, user });
    expect((await t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: undefined })).refresh_token).toBe(tokens.refresh_token as string);
  });

  it('revokes its tokens by client_id alone (RFC 7009 §5)', async () => {
    const { t, user, client } = await setup();
    const tokens = await codeFlow(t, client, user.userKey);
    await t.gatehouse.revokeToken({ client, token: tokens.refresh_token as string, tokenTypeHint: undefined });
    await expectOAuthError(t.gatehouse.verifyAccessToken(tokens.access_token), 'invalid_token');
  });

  it('may not introspect (invalid_client): introspection is for confidential clients', async () => {
    const { t, user, client } = await setup();
    const tokens = await codeFlow(t, client, user.userKey);
    await expectOAuthError(t.gatehouse.introspectToken({ client, token: tokens.access_token, tokenTypeHint: undefined }), 'invalid_client');
  });

  it('uses a loopback IP redirect URI with any port (RFC 8252 §7.3), the same one at the token endpoint', async () => {
    const { t, user, client } = await setup();
    for (const redirectUri of ['http://127.0.0.1:53122/native', 'http://[::1]:8080/native', 'http://127.0.0.1/native']) {
      const tokens = await codeFlow(t, client, user.userKey, redirectUri);
      expect(tokens.token_type).toBe('Bearer');
    }
    // The token request must name the URI of the authorization request, port included.
    const check = await t.gatehouse.checkAuthorizationRequest({
      client_id: client.clientId,
      response_type: 'code',
      redirect_uri: 'http://127.0.0.1:4000/native',
      code_challenge: s256Challenge(VERIFIER),
      code_challenge_method: 'S256',
    });
    if (check.kind !== 'valid') throw check.error;
    expect(check.request.redirectUri).toBe('http://127.0.0.1:4000/native');
    const { redirectTo } = await t.gatehouse.approveAuthorization({ request: check.request, userKey: user.userKey, sessionId: null });
    expect(redirectTo.startsWith('http://127.0.0.1:4000/native?code=')).toBe(true);
    const code = new URL(redirectTo).searchParams.get('code') as string;
    const mismatch = await expectOAuthError(t.gatehouse.exchangeCode({ client, code, redirectUri: 'http://127.0.0.1:4001/native', codeVerifier: VERIFIER }), 'invalid_grant');
    expect(mismatch.description).toContain('redirect_uri');
  });

  it('shows an error page (no redirect) for another path or localhost on a loopback port', async () => {
    const { t, client } = await setup();
    for (const redirectUri of ['http://127.0.0.1:4000/other', 'http://localhost:4000/native', 'http://127.0.0.2:4000/native']) {
      const check = await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', redirect_uri: redirectUri });
      expect(check.kind).toBe('show-error');
    }
  });
});
