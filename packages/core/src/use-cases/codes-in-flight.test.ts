import { describe, expect, it } from 'vitest';
import { createMemoryUserDirectory, createTestGatehouse } from '@gatehouse/core/testing';
import { expectOAuthError } from '../test-support/rejections.js';

// docs/decisions/0105-withdrawn-access-stops-codes-in-flight.md: a code the client holds when the
// user withdraws its access (Authorized apps, a password change, the host's sign-out) is refused
// at its exchange, by the exchange's own conditional write.

async function aCodeInFlight(options: Parameters<typeof createTestGatehouse>[0] = {}) {
  const t = await createTestGatehouse(options);
  const user = await t.seedUser();
  const { client } = await t.seedClient({ name: 'Mail' });
  const { client: other } = await t.seedClient({ name: 'Other' });
  const { session } = await t.gatehouse.signIn({ email: user.email, password: 'password123' });
  const codeOf = async (forClient: typeof client, sessionId: string | null) => {
    const check = await t.gatehouse.checkAuthorizationRequest({ client_id: forClient.clientId, response_type: 'code', redirect_uri: forClient.redirectUris[0] });
    if (check.kind !== 'valid') throw check.error;
    const { redirectTo } = await t.gatehouse.approveAuthorization({ request: check.request, userKey: user.userKey, sessionId });
    return { code: new URL(redirectTo).searchParams.get('code') as string, redirectUri: check.request.redirectUri };
  };
  const exchange = (forClient: typeof client, held: { code: string; redirectUri: string }) =>
    t.gatehouse.exchangeCode({ client: forClient, code: held.code, redirectUri: held.redirectUri, codeVerifier: undefined });
  return { t, user, client, other, session, codeOf, exchange };
}

describe('codes in flight when the user withdraws access', () => {
  it('revoking an app in "Authorized apps" makes its unused codes unusable, and the app stays off the list', async () => {
    const { t, user, client, other, session, codeOf, exchange } = await aCodeInFlight();
    const held = await codeOf(client, session.sessionId);
    const heldByOther = await codeOf(other, session.sessionId);

    await t.gatehouse.revokeAuthorizedApp({ userKey: user.userKey, clientId: client.clientId });

    expect((await expectOAuthError(exchange(client, held))).code).toBe('invalid_grant');
    expect(await t.gatehouse.listAuthorizedApps(user.userKey)).toEqual([expect.objectContaining({ clientId: other.clientId })]);
    // Another app's code is untouched.
    expect((await exchange(other, heldByOther)).token_type).toBe('Bearer');
  });

  it('revoking an app with only a code in flight (no grant yet, no consent) is not "not found"', async () => {
    const { t, user, client, codeOf, exchange } = await aCodeInFlight();
    const held = await codeOf(client, null);
    await t.repositories.consents.forget(user.userKey, client.clientId);
    await t.gatehouse.revokeAuthorizedApp({ userKey: user.userKey, clientId: client.clientId });
    expect((await expectOAuthError(exchange(client, held))).code).toBe('invalid_grant');
  });

  it('a password change makes every unused code of the user unusable, of any client, in a session or not', async () => {
    const { t, user, client, other, session, codeOf, exchange } = await aCodeInFlight();
    const inSession = await codeOf(client, session.sessionId);
    const withoutSession = await codeOf(other, null);
    await t.product.changePassword({ userKey: user.userKey, newPassword: 'a new password 123' });
    expect((await expectOAuthError(exchange(client, inSession))).code).toBe('invalid_grant');
    expect((await expectOAuthError(exchange(other, withoutSession))).code).toBe('invalid_grant');
  });

  it('the host\'s sign-out (logoutUser) makes the user\'s unused codes unusable, those made outside a session too', async () => {
    const directory = createMemoryUserDirectory([{ userKey: 'host-7', email: 'ada@host.example', givenName: 'Ada', familyName: 'L' }]);
    const t = await createTestGatehouse({ userDirectory: directory });
    const { client } = await t.seedClient();
    const check = await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', redirect_uri: client.redirectUris[0] });
    if (check.kind !== 'valid') throw check.error;
    const { redirectTo } = await t.gatehouse.approveAuthorization({ request: check.request, userKey: 'host-7', sessionId: null });
    const code = new URL(redirectTo).searchParams.get('code') as string;

    await t.gatehouse.logoutUser('host-7');

    const refused = await expectOAuthError(t.gatehouse.exchangeCode({ client, code, redirectUri: check.request.redirectUri, codeVerifier: undefined }));
    expect(refused.code).toBe('invalid_grant');
  });

  it('an exchange that won before the revocation has its grant revoked by it', async () => {
    const { t, user, client, session, codeOf, exchange } = await aCodeInFlight();
    const tokens = await exchange(client, await codeOf(client, session.sessionId));
    await t.gatehouse.revokeAuthorizedApp({ userKey: user.userKey, clientId: client.clientId });
    expect((await expectOAuthError(t.gatehouse.verifyAccessToken(tokens.access_token))).code).toBe('invalid_token');
  });
});
