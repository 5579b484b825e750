import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createTestGatehouse } from '@gatehouse/core/testing';
import { isEndSessionRequest, postLogoutRedirect } from './end-session.js';

// RP-Initiated Logout 1.0 §2, §3 (docs/decisions/0135-rp-initiated-logout.md).

const BYE = 'https://client.example/bye';

async function setup() {
  const t = await createTestGatehouse({ settings: { openid: true } });
  const user = await t.seedUser({ email: 'ada@example.com' });
  const { client } = await t.seedClient({ scopes: ['openid'], postLogoutRedirectUris: [BYE] });
  const { session } = await t.gatehouse.signIn({ email: 'ada@example.com', password: 'password123' });
  // An ID token of that session, as the relying party holds it.
  const check = await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', redirect_uri: client.redirectUris[0], scope: 'openid' });
  if (check.kind !== 'valid') throw check.error;
  const { redirectTo } = await t.gatehouse.approveAuthorization({ request: check.request, userKey: user.userKey, sessionId: session.sessionId });
  const tokens = await t.gatehouse.exchangeCode({ client, code: new URL(redirectTo).searchParams.get('code') as string, redirectUri: client.redirectUris[0], codeVerifier: undefined });
  return { t, user, client, session, idToken: tokens.id_token as string };
}

describe('checkEndSessionRequest', { timeout: 30_000 }, () => {
  it('is confirmed only by a hint of this very session and user', async () => {
    const { t, user, session, idToken } = await setup();
    expect(await t.gatehouse.checkEndSessionRequest({ id_token_hint: idToken }, session)).toMatchObject({ kind: 'valid', request: { confirmed: true } });
    const other = (await t.gatehouse.signIn({ email: user.email, password: 'password123' })).session;
    expect(await t.gatehouse.checkEndSessionRequest({ id_token_hint: idToken }, other)).toMatchObject({ kind: 'valid', request: { confirmed: false } });
    expect(await t.gatehouse.checkEndSessionRequest({ id_token_hint: idToken }, { sessionId: session.sessionId, userKey: 'someone-else' })).toMatchObject({ request: { confirmed: false } });
    expect(await t.gatehouse.checkEndSessionRequest({ id_token_hint: idToken }, undefined)).toMatchObject({ request: { confirmed: false } });
    // An expired hint still names the session (RP-Initiated Logout §2: the OP should accept it).
    t.clock.advance(86_400);
    expect(await t.gatehouse.checkEndSessionRequest({ id_token_hint: idToken }, session)).toMatchObject({ request: { confirmed: true } });
  });

  it('takes the client from the hint, and a post-logout redirect URI only exactly as registered; state only with it', async () => {
    const { t, client, session, idToken } = await setup();
    expect(await t.gatehouse.checkEndSessionRequest({ id_token_hint: idToken, post_logout_redirect_uri: BYE, state: 's' }, session)).toEqual({
      kind: 'valid',
      request: { client: { clientId: client.clientId, name: client.name }, postLogoutRedirectUri: BYE, state: 's', confirmed: true },
    });
    expect(await t.gatehouse.checkEndSessionRequest({ client_id: client.clientId, state: 's' }, session)).toMatchObject({ request: { state: undefined } });
    // No hint (docs/decisions/0177): followed for a signed-in user (who confirms first), not for nobody.
    expect(await t.gatehouse.checkEndSessionRequest({ client_id: client.clientId, post_logout_redirect_uri: BYE, state: 's' }, session)).toMatchObject({ request: { postLogoutRedirectUri: BYE, state: 's', confirmed: false } });
    expect(await t.gatehouse.checkEndSessionRequest({ client_id: client.clientId, post_logout_redirect_uri: BYE, state: 's' }, undefined)).toMatchObject({ request: { postLogoutRedirectUri: undefined, state: undefined } });
    expect(await t.gatehouse.checkEndSessionRequest({ id_token_hint: idToken, post_logout_redirect_uri: BYE }, undefined)).toMatchObject({ request: { postLogoutRedirectUri: BYE, confirmed: false } });
    for (const params of [{ client_id: client.clientId, post_logout_redirect_uri: `${BYE}?x=1` }, { post_logout_redirect_uri: BYE }, { client_id: client.clientId, state: ['a', 'b'] }]) {
      expect(await t.gatehouse.checkEndSessionRequest(params, session)).toMatchObject({ kind: 'show-error', error: { code: 'invalid_request' } });
    }
  });
});

describe('checkEndSessionRequest for a client that registered itself', { timeout: 30_000 }, () => {
  // §3: no redirect without "other means of confirming the legitimacy of the post-logout
  // redirection target" (docs/decisions/0177-post-logout-redirects-vouched-for.md).
  async function setupSelfRegistered() {
    const t = await createTestGatehouse({ settings: { openid: true, registration: { policy: 'open' } } });
    const user = await t.seedUser({ email: 'ada@example.com' });
    const { client } = await t.gatehouse.registerDynamicClient({
      metadata: { client_name: 'Agent', redirect_uris: ['https://agent.example/cb'], token_endpoint_auth_method: 'client_secret_basic', scope: 'openid', post_logout_redirect_uris: [BYE] },
      initialAccessToken: undefined,
    });
    const { session } = await t.gatehouse.signIn({ email: 'ada@example.com', password: 'password123' });
    const verifier = 'v'.repeat(43);
    const check = await t.gatehouse.checkAuthorizationRequest({
      client_id: client.clientId,
      response_type: 'code',
      scope: 'openid',
      redirect_uri: 'https://agent.example/cb',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    });
    if (check.kind !== 'valid') throw check.error;
    const { redirectTo } = await t.gatehouse.approveAuthorization({ request: check.request, userKey: user.userKey, sessionId: session.sessionId });
    const tokens = await t.gatehouse.exchangeCode({ client, code: new URL(redirectTo).searchParams.get('code') as string, redirectUri: 'https://agent.example/cb', codeVerifier: verifier });
    return { t, user, client, session, idToken: tokens.id_token as string };
  }

  it('follows its registered post-logout redirect URI only with a hint of this very sign-in', async () => {
    const { t, client, session, idToken } = await setupSelfRegistered();
    expect(await t.gatehouse.checkEndSessionRequest({ id_token_hint: idToken, post_logout_redirect_uri: BYE, state: 's' }, session)).toMatchObject({
      kind: 'valid',
      request: { postLogoutRedirectUri: BYE, state: 's', confirmed: true },
    });
    // Nobody signed in, another sign-in, no hint: the registered URI is not followed (nor is state kept).
    const other = (await t.gatehouse.signIn({ email: 'ada@example.com', password: 'password123' })).session;
    for (const [params, signedIn] of [
      [{ client_id: client.clientId, post_logout_redirect_uri: BYE, state: 's' }, undefined],
      [{ client_id: client.clientId, post_logout_redirect_uri: BYE, state: 's' }, session],
      [{ id_token_hint: idToken, post_logout_redirect_uri: BYE, state: 's' }, undefined],
      [{ id_token_hint: idToken, post_logout_redirect_uri: BYE, state: 's' }, other],
    ] as const) {
      expect(await t.gatehouse.checkEndSessionRequest(params, signedIn)).toEqual({
        kind: 'valid',
        request: { client: { clientId: client.clientId, name: 'Agent' }, postLogoutRedirectUri: undefined, state: undefined, confirmed: false },
      });
    }
    // An unregistered URI is still refused outright.
    expect(await t.gatehouse.checkEndSessionRequest({ client_id: client.clientId, post_logout_redirect_uri: 'https://evil.example/' }, undefined)).toMatchObject({ kind: 'show-error' });
  });
});

describe('postLogoutRedirect and isEndSessionRequest', () => {
  it('adds state to the registered URI (its own query kept), and knows an end-session request by its parameters', () => {
    expect(postLogoutRedirect({ postLogoutRedirectUri: 'https://app.example/bye?lang=fr', state: 'a b' })).toBe('https://app.example/bye?lang=fr&state=a+b');
    expect(postLogoutRedirect({ postLogoutRedirectUri: undefined, state: 'x' })).toBeUndefined();
    expect(isEndSessionRequest({ return_to: '/oauth/authorize' })).toBe(false);
    expect(isEndSessionRequest({ client_id: 'c' })).toBe(true);
  });
});
