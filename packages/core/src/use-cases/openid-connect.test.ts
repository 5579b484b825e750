import { decodeJwt, decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import { createTestGatehouse, type TestGatehouse } from '@gatehouse/core/testing';
import type { Client, User } from '../domain/model.js';
import { epochSeconds } from '../domain/time.js';
import { expectOAuthError } from '../test-support/rejections.js';
import { accessTokenHash, sessionIdForClients } from '../tokens/id-token.js';

// OpenID Connect Core 1.0 for the authorization-code flow (SPEC §9; docs/decisions/0130, 0131):
// the ID token of a code exchange and of a refresh, with what the authorization request and the
// sign-in say; nothing of it without `openid`.

/** RSA key generation on a loaded 2-core machine can take a second or more. */
const SLOW = { timeout: 30_000 };

async function oidc(settings: Record<string, unknown> = {}) {
  const t = await createTestGatehouse({ settings: { openid: true, ...settings } });
  const user = await t.seedUser({ email: 'ada@example.com', givenName: 'Ada', familyName: 'Lovelace' });
  const { client } = await t.seedClient({ scopes: ['messaging.v1.read', 'openid', 'profile', 'email', 'offline_access'] });
  return { t, user, client };
}

/** Signs the user in (Gatehouse's password sign-in), authorizes with `params` under that session and exchanges the code. */
async function signedInFlow(t: TestGatehouse, client: Client, user: User, params: Record<string, string>, secondsSinceSignIn = 0) {
  const signedIn = await t.gatehouse.signIn({ email: user.email, password: 'password123' });
  t.clock.advance(secondsSinceSignIn);
  const check = await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', redirect_uri: client.redirectUris[0], ...params });
  if (check.kind !== 'valid') throw check.error;
  const { redirectTo } = await t.gatehouse.approveAuthorization({ request: check.request, userKey: user.userKey, sessionId: signedIn.session.sessionId });
  const code = new URL(redirectTo).searchParams.get('code') as string;
  const tokens = await t.gatehouse.exchangeCode({ client, code, redirectUri: client.redirectUris[0], codeVerifier: undefined });
  return { tokens, signedIn };
}

describe('the ID token of a code exchange (OIDC Core §3.1.3.3)', SLOW, () => {
  it('carries iss, sub, aud, exp, iat, auth_time, nonce, at_hash, sid and amr, signed RS256 by default', async () => {
    const { t, user, client } = await oidc();
    const signedInAt = t.clock.now();
    const { tokens, signedIn } = await signedInFlow(t, client, user, { scope: 'openid email', nonce: 'n-0S6_WzA2Mj' }, 120);
    const claims = await t.checkIdToken(tokens.id_token, { client, nonce: 'n-0S6_WzA2Mj', accessToken: tokens.access_token });
    const now = epochSeconds(t.clock.now());
    expect(claims).toEqual({
      iss: 'http://localhost:3000',
      sub: user.userKey,
      aud: client.clientId,
      exp: now + 3600,
      iat: now,
      // The session's sign-in, not the exchange.
      auth_time: epochSeconds(signedInAt),
      nonce: 'n-0S6_WzA2Mj',
      at_hash: accessTokenHash(tokens.access_token),
      sid: sessionIdForClients(signedIn.session.sessionId),
      amr: ['pwd'],
    });
    // sid is derived from the stored session id (the cookie's look-up key), never that id itself.
    expect(claims.sid).not.toBe(signedIn.session.sessionId);
    const header = decodeProtectedHeader(tokens.id_token as string);
    expect(header).toMatchObject({ alg: 'RS256', typ: 'JWT' });
    expect((await t.gatehouse.jwks()).keys.find((jwk) => jwk.kid === header.kid)).toMatchObject({ kty: 'RSA', alg: 'RS256' });
    // The access token is unchanged: ES256, RFC 9068, and the token response says the scopes.
    expect(decodeProtectedHeader(tokens.access_token)).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
    expect(tokens.scope).toBe('openid email');
  });

  it('is ES256 for a client registered with id_token_signed_response_alg ES256', async () => {
    const { t, user } = await oidc();
    const { client } = await t.seedClient({ scopes: ['openid'], idTokenSignedResponseAlg: 'ES256' });
    const tokens = await t.obtainTokens({ client, user, scope: 'openid' });
    expect(decodeProtectedHeader(tokens.id_token as string).alg).toBe('ES256');
    await t.checkIdToken(tokens.id_token, { client, accessToken: tokens.access_token });
  });

  it('has no nonce when the request sent none, and no sid when the code was approved outside a session', async () => {
    const { t, user, client } = await oidc();
    const tokens = await t.obtainTokens({ client, user, scope: 'openid' });
    const claims = await t.checkIdToken(tokens.id_token, { client, accessToken: tokens.access_token });
    expect(claims).not.toHaveProperty('nonce');
    expect(claims).not.toHaveProperty('sid');
    expect(claims.auth_time).toBe(epochSeconds(t.clock.now()));
  });

  it("carries the host's sign-in: its time and its amr (docs/decisions/0107)", async () => {
    const { t, user, client } = await oidc();
    const signedInToHost = new Date(t.clock.now().getTime() - 300_000);
    const { tokens } = await t.obtainTokensViaHostLogin({ client, userKey: user.userKey, scope: 'openid', nonce: 'abc', authenticatedAt: signedInToHost, amr: ['pwd', 'otp'] });
    const claims = await t.checkIdToken(tokens.id_token, { client, nonce: 'abc', accessToken: tokens.access_token });
    expect(claims.auth_time).toBe(epochSeconds(signedInToHost));
    expect(claims.amr).toEqual(['pwd', 'otp']);
  });

  it('the aud of the ID token is the client even when the access token is for a resource (RFC 8707)', async () => {
    const resource = 'https://mcp.example.com/mcp';
    const { t, user, client } = await oidc({ resources: [{ resource, name: 'MCP', scopes: ['messaging.v1.read'] }] });
    const tokens = await t.obtainTokens({ client, user, scope: 'openid messaging.v1.read', resource });
    expect(decodeJwt(tokens.access_token).aud).toBe(resource);
    expect((await t.checkIdToken(tokens.id_token, { client, accessToken: tokens.access_token })).aud).toBe(client.clientId);
  });
});

describe('the ID token of a refresh (OIDC Core §12.2)', SLOW, () => {
  it('has the same sub, the original auth_time and sid, no nonce, and the new access token\'s at_hash', async () => {
    const { t, user, client } = await oidc();
    const { tokens, signedIn } = await signedInFlow(t, client, user, { scope: 'openid profile offline_access', nonce: 'first' });
    const first = await t.checkIdToken(tokens.id_token, { client, nonce: 'first', accessToken: tokens.access_token });
    t.clock.advance(1800);
    const refreshed = await t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: undefined });
    const claims = await t.checkIdToken(refreshed.id_token, { client, accessToken: refreshed.access_token });
    expect(claims).toMatchObject({ sub: first.sub, auth_time: first.auth_time, sid: sessionIdForClients(signedIn.session.sessionId), iat: epochSeconds(t.clock.now()) });
    expect(claims).not.toHaveProperty('nonce');
  });

  it('none when the refresh narrows the scopes to leave openid out', async () => {
    const { t, user, client } = await oidc();
    const tokens = await t.obtainTokens({ client, user, scope: 'openid messaging.v1.read' });
    const refreshed = await t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: 'messaging.v1.read' });
    expect(refreshed).not.toHaveProperty('id_token');
  });
});

describe('without openid, nothing changes (SPEC §9)', SLOW, () => {
  it('an OAuth request of a client registered with openid gets no ID token, and no OpenID scope by default', async () => {
    const { t, user, client } = await oidc();
    const tokens = await t.obtainTokens({ client, user });
    expect(tokens).not.toHaveProperty('id_token');
    expect(tokens.scope).toBe('messaging.v1.read');
    const explicit = await t.obtainTokens({ client, user, scope: 'messaging.v1.read profile', nonce: 'ignored' });
    expect(explicit).not.toHaveProperty('id_token');
    expect(await t.gatehouse.refresh({ client, refreshToken: explicit.refresh_token as string, scope: undefined })).not.toHaveProperty('id_token');
  });

  it('no RSA key is made for a deployment without OpenID Connect, and openid is not a scope there', async () => {
    const t = await createTestGatehouse();
    const user = await t.seedUser();
    const { client } = await t.seedClient({ scopes: ['messaging.v1.read'] });
    await t.obtainTokens({ client, user });
    expect((await t.gatehouse.jwks()).keys.map((jwk) => jwk.kty)).toEqual(['EC']);
    await expect(t.seedClient({ scopes: ['openid'] })).rejects.toMatchObject({ kind: 'invalid', field: 'scopes' });
    const check = await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', scope: 'openid messaging.v1.read' });
    expect(check).toMatchObject({ kind: 'redirect-error', error: { code: 'invalid_scope' } });
  });

  it('a client-credentials token never carries an OpenID Connect scope (it has no user)', async () => {
    const { t } = await oidc();
    const { client } = await t.seedClient({ scopes: ['messaging.v1.read', 'openid'], grantTypes: ['client_credentials'] });
    expect((await t.gatehouse.clientCredentials({ client, scope: undefined })).scope).toBe('messaging.v1.read');
    await expectOAuthError(t.gatehouse.clientCredentials({ client, scope: 'openid' }), 'invalid_scope');
  });
});
