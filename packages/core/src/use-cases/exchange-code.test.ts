import { describe, expect, it } from 'vitest';
import { createMemoryRepositories, createTestGatehouse, s256Challenge, type TestGatehouse } from '@gatehouse/core/testing';
import type { Client, User } from '../domain/model.js';
import type { Es256Signer } from '../ports/services.js';
import { es256Signature } from '../tokens/jws.js';
import { StorageUnavailableError, type OAuthError } from '../errors.js';
import { storedSecretHash } from '../domain/time-ordered-secret.js';
import { expectOAuthError } from '../test-support/rejections.js';

const REDIRECT = 'https://client.example/callback';
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';

async function setup() {
  const t = await createTestGatehouse();
  const user = await t.seedUser({ email: 'ada@example.com' });
  const { client } = await t.seedClient({ scopes: ['messaging.v1.send', 'messaging.v1.read'] });
  return { t, user, client };
}

/** Authorize and approve; returns the code from the redirect. */
async function issueCode(t: TestGatehouse, client: Client, user: User, extra: Record<string, string> = {}): Promise<string> {
  const check = await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', redirect_uri: client.redirectUris[0], ...extra });
  if (check.kind !== 'valid') throw check.error;
  const { redirectTo } = await t.gatehouse.approveAuthorization({ request: check.request, userKey: user.userKey, sessionId: null });
  return new URL(redirectTo).searchParams.get('code') as string;
}

describe('exchangeCode', () => {
  it('returns the RFC 6749 §5.1 token response and stores only the refresh token hash', async () => {
    const { t, user, client } = await setup();
    const code = await issueCode(t, client, user, { scope: 'messaging.v1.send' });
    const tokens = await t.gatehouse.exchangeCode({ client, code, redirectUri: REDIRECT, codeVerifier: undefined });
    expect(tokens).toEqual({
      access_token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      token_type: 'Bearer',
      refresh_token: expect.stringMatching(/^[0-9A-Za-z]{8}_[A-Za-z0-9]{43,}$/),
      expires_in: 3600,
      scope: 'messaging.v1.send',
      principal: 'ada@example.com',
    });
    const stored = await t.repositories.refreshTokens.findByHash(storedSecretHash(tokens.refresh_token as string));
    expect(stored).toMatchObject({ rotatedAt: null });
    expect(await t.repositories.refreshTokens.findByHash(tokens.refresh_token as string)).toBeUndefined();
    const grant = await t.repositories.grants.findById(stored?.grantId ?? '');
    expect(grant).toMatchObject({ clientId: client.clientId, userKey: user.userKey, scopes: ['messaging.v1.send'], revokedAt: null });
  });

  it('gives a client not registered for the refresh_token grant no refresh token, and stores none (RFC 6749 §1.5, docs/decisions/0188)', async () => {
    const { t, user } = await setup();
    const { client } = await t.seedClient({ scopes: ['messaging.v1.send'], grantTypes: ['authorization_code'] });
    const before = await t.repositories.grants.listActiveByClient(client.clientId);
    expect(before).toEqual([]);
    const code = await issueCode(t, client, user, { scope: 'messaging.v1.send' });
    const tokens = await t.gatehouse.exchangeCode({ client, code, redirectUri: REDIRECT, codeVerifier: undefined });
    expect(tokens).not.toHaveProperty('refresh_token');
    expect(tokens).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'messaging.v1.send' });
    // The grant is there (the access token is checked against it, the user can withdraw it), without a refresh token.
    const [grant] = await t.repositories.grants.listActiveByClient(client.clientId);
    expect((await t.gatehouse.verifyAccessToken(tokens.access_token)).userKey).toBe(user.userKey);
    expect(grant).toMatchObject({ clientId: client.clientId, userKey: user.userKey });
    // A replay still revokes the grant and its access token (RFC 6749 §4.1.2).
    await expectOAuthError(t.gatehouse.exchangeCode({ client, code, redirectUri: REDIRECT, codeVerifier: undefined }), 'invalid_grant');
    await expectOAuthError(t.gatehouse.verifyAccessToken(tokens.access_token), 'invalid_token');
  });

  it('works once: a second exchange is invalid_grant, revokes the first grant and its access token', async () => {
    const { t, user, client } = await setup();
    const code = await issueCode(t, client, user);
    const first = await t.gatehouse.exchangeCode({ client, code, redirectUri: REDIRECT, codeVerifier: undefined });
    expect((await t.gatehouse.verifyAccessToken(first.access_token)).userKey).toBe(user.userKey);

    t.clock.advance(5);
    await expectOAuthError(t.gatehouse.exchangeCode({ client, code, redirectUri: REDIRECT, codeVerifier: undefined }), 'invalid_grant');

    await expectOAuthError(t.gatehouse.verifyAccessToken(first.access_token), 'invalid_token');
    await expectOAuthError(t.gatehouse.refresh({ client, refreshToken: first.refresh_token as string, scope: undefined }), 'invalid_grant');
    const replay = t.audit.ofType('code.replayed');
    expect(replay).toHaveLength(1);
    expect(replay[0]).toMatchObject({ clientId: client.clientId, userKey: user.userKey, grantIds: [expect.any(String)] });
  });

  it('detects a late replay long after the code would have expired', async () => {
    const { t, user, client } = await setup();
    const code = await issueCode(t, client, user);
    const first = await t.gatehouse.exchangeCode({ client, code, redirectUri: REDIRECT, codeVerifier: undefined });
    t.clock.advance(3000);
    await expectOAuthError(t.gatehouse.exchangeCode({ client, code, redirectUri: REDIRECT, codeVerifier: undefined }), 'invalid_grant');
    await expectOAuthError(t.gatehouse.verifyAccessToken(first.access_token), 'invalid_token');
  });

  it('yields exactly one token response when 20 exchanges race, and the racing replays revoke that grant', async () => {
    const { t, user, client } = await setup();
    const code = await issueCode(t, client, user);
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () => t.gatehouse.exchangeCode({ client, code, redirectUri: REDIRECT, codeVerifier: undefined })),
    );
    const fulfilled = results.filter((result) => result.status === 'fulfilled');
    const rejected = results.filter((result): result is PromiseRejectedResult => result.status === 'rejected');
    expect(fulfilled).toHaveLength(1);
    expect(rejected).toHaveLength(19);
    for (const failure of rejected) expect((failure.reason as OAuthError).code).toBe('invalid_grant');
    // RFC 6749 §4.1.2: the replays found the winner's grant and revoked it; the losers' own grants were removed.
    expect(await t.repositories.grants.listActiveByUser(user.userKey)).toEqual([]);
    const winner = (fulfilled[0] as PromiseFulfilledResult<{ access_token: string }>).value;
    await expectOAuthError(t.gatehouse.verifyAccessToken(winner.access_token), 'invalid_token');
  });

  it('refuses an expired code (60 s by default) and accepts it just before', async () => {
    const { t, user, client } = await setup();
    const late = await issueCode(t, client, user);
    t.clock.advance(60);
    await expectOAuthError(t.gatehouse.exchangeCode({ client, code: late, redirectUri: REDIRECT, codeVerifier: undefined }), 'invalid_grant');

    const inTime = await issueCode(t, client, user);
    t.clock.advance(59);
    const tokens = await t.gatehouse.exchangeCode({ client, code: inTime, redirectUri: REDIRECT, codeVerifier: undefined });
    expect(tokens.token_type).toBe('Bearer');
  });

  it('grants only the scopes the client still has: a scope taken from it since the code is left out; with none left, invalid_grant (docs/decisions/0204)', async () => {
    const { t, user, client } = await setup();
    const edit = { ownerUserKey: null, clientId: client.clientId, name: client.name, redirectUris: client.redirectUris };
    const code = await issueCode(t, client, user);
    const other = await issueCode(t, client, user);
    await t.gatehouse.updateClient({ ...edit, scopes: ['messaging.v1.read'] });
    const edited = (await t.repositories.clients.findById(client.clientId)) as Client;
    const tokens = await t.gatehouse.exchangeCode({ client: edited, code, redirectUri: REDIRECT, codeVerifier: undefined });
    expect(tokens.scope).toBe('messaging.v1.read');
    expect((await t.gatehouse.verifyAccessToken(tokens.access_token)).scopes).toEqual(['messaging.v1.read']);
    expect((await t.gatehouse.refresh({ client: edited, refreshToken: tokens.refresh_token as string, scope: undefined })).scope).toBe('messaging.v1.read');

    await t.gatehouse.updateClient({ ...edit, scopes: ['admin.v1.attributes.read'] });
    await expectOAuthError(t.gatehouse.exchangeCode({ client: (await t.repositories.clients.findById(client.clientId)) as Client, code: other, redirectUri: REDIRECT, codeVerifier: undefined }), 'invalid_grant');
  });

  it('refuses an unknown code', async () => {
    const { t, client } = await setup();
    const error = await expectOAuthError(t.gatehouse.exchangeCode({ client, code: 'not-a-code', redirectUri: REDIRECT, codeVerifier: undefined }), 'invalid_grant');
    expect(error.description).toBe('The authorization code is invalid, expired or already used.');
  });

  it('refuses a code presented by another client, and the code still works for its own client', async () => {
    const { t, user, client } = await setup();
    const { client: other } = await t.seedClient({ name: 'Other', redirectUris: [REDIRECT] });
    const code = await issueCode(t, client, user);
    await expectOAuthError(t.gatehouse.exchangeCode({ client: other, code, redirectUri: REDIRECT, codeVerifier: undefined }), 'invalid_grant');
    const tokens = await t.gatehouse.exchangeCode({ client, code, redirectUri: REDIRECT, codeVerifier: undefined });
    expect(tokens.principal).toBe('ada@example.com');
  });

  it('a used code shown by another client is invalid_grant and changes nothing: the rightful grant lives on (RFC 6749 §4.1.3)', async () => {
    const { t, user, client } = await setup();
    const { client: other } = await t.seedClient({ name: 'Other', redirectUris: [REDIRECT] });
    const code = await issueCode(t, client, user);
    const tokens = await t.gatehouse.exchangeCode({ client, code, redirectUri: REDIRECT, codeVerifier: undefined });

    const error = await expectOAuthError(t.gatehouse.exchangeCode({ client: other, code, redirectUri: REDIRECT, codeVerifier: undefined }), 'invalid_grant');
    expect(error.description).toBe('The authorization code is invalid, expired or already used.');

    expect((await t.gatehouse.verifyAccessToken(tokens.access_token)).userKey).toBe(user.userKey);
    expect((await t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: undefined })).token_type).toBe('Bearer');
    expect(t.audit.ofType('code.replayed')).toEqual([]);
  });

  it('a replay by the code’s own client still revokes, after another client was refused (RFC 6749 §4.1.2)', async () => {
    const { t, user, client } = await setup();
    const { client: other } = await t.seedClient({ name: 'Other', redirectUris: [REDIRECT] });
    const code = await issueCode(t, client, user);
    const tokens = await t.gatehouse.exchangeCode({ client, code, redirectUri: REDIRECT, codeVerifier: undefined });
    await expectOAuthError(t.gatehouse.exchangeCode({ client: other, code, redirectUri: REDIRECT, codeVerifier: undefined }), 'invalid_grant');
    await expectOAuthError(t.gatehouse.exchangeCode({ client, code, redirectUri: REDIRECT, codeVerifier: undefined }), 'invalid_grant');
    await expectOAuthError(t.gatehouse.verifyAccessToken(tokens.access_token), 'invalid_token');
    expect(t.audit.ofType('code.replayed')).toHaveLength(1);
  });

  it('another client racing the rightful exchange revokes nothing', async () => {
    const { t, user, client } = await setup();
    const { client: other } = await t.seedClient({ name: 'Other', redirectUris: [REDIRECT] });
    const code = await issueCode(t, client, user);
    const results = await Promise.allSettled([
      t.gatehouse.exchangeCode({ client, code, redirectUri: REDIRECT, codeVerifier: undefined }),
      ...Array.from({ length: 10 }, () => t.gatehouse.exchangeCode({ client: other, code, redirectUri: REDIRECT, codeVerifier: undefined })),
    ]);
    const [rightful, ...foreign] = results;
    expect(rightful?.status).toBe('fulfilled');
    for (const result of foreign) expect(result.status === 'rejected' && (result.reason as OAuthError).code).toBe('invalid_grant');
    const tokens = (rightful as PromiseFulfilledResult<{ access_token: string }>).value;
    expect((await t.gatehouse.verifyAccessToken(tokens.access_token)).userKey).toBe(user.userKey);
    expect(await t.repositories.grants.listActiveByUser(user.userKey)).toHaveLength(1);
    expect(t.audit.ofType('code.replayed')).toEqual([]);
  });

  it('refuses a redirect URI that differs from the authorization request, and a missing one', async () => {
    const { t, user } = await setup();
    const { client } = await t.seedClient({ redirectUris: [REDIRECT, 'https://client.example/other'] });
    const code = await issueCode(t, client, user);
    await expectOAuthError(t.gatehouse.exchangeCode({ client, code, redirectUri: 'https://client.example/other', codeVerifier: undefined }), 'invalid_grant');
    await expectOAuthError(t.gatehouse.exchangeCode({ client, code, redirectUri: undefined, codeVerifier: undefined }), 'invalid_request');
    await expectOAuthError(t.gatehouse.exchangeCode({ client, code, redirectUri: '', codeVerifier: undefined }), 'invalid_request');
  });

  describe('redirect_uri at the token endpoint (RFC 6749 §4.1.3, docs/decisions/0182)', () => {
    /** A code of a request that sent no redirect_uri: the client's only registered one was used (RFC 6749 §3.1.2.3). */
    async function issueCodeWithoutRedirectUri(t: TestGatehouse, client: Client, user: User): Promise<string> {
      const check = await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code' });
      if (check.kind !== 'valid') throw check.error;
      const { redirectTo } = await t.gatehouse.approveAuthorization({ request: check.request, userKey: user.userKey, sessionId: null });
      expect(`${new URL(redirectTo).origin}${new URL(redirectTo).pathname}`).toBe(REDIRECT);
      return new URL(redirectTo).searchParams.get('code') as string;
    }

    it('omitted at authorize: the token request may omit it too (or send it empty); one it sends must be the URI the code went to, identical', async () => {
      const { t, user, client } = await setup();
      const code = await issueCodeWithoutRedirectUri(t, client, user);
      expect((await t.repositories.codes.findByHash(storedSecretHash(code)))?.redirectUriIncluded).toBe(false);
      const tokens = await t.gatehouse.exchangeCode({ client, code, redirectUri: undefined, codeVerifier: undefined });
      expect(tokens.principal).toBe('ada@example.com');
      const empty = await issueCodeWithoutRedirectUri(t, client, user);
      expect((await t.gatehouse.exchangeCode({ client, code: empty, redirectUri: '', codeVerifier: undefined })).token_type).toBe('Bearer');

      const sent = await issueCodeWithoutRedirectUri(t, client, user);
      for (const other of [`${REDIRECT}/`, 'https://CLIENT.example/callback', 'https://client.example/other']) {
        const error = await expectOAuthError(t.gatehouse.exchangeCode({ client, code: sent, redirectUri: other, codeVerifier: undefined }), 'invalid_grant');
        expect(error.description).toBe('redirect_uri does not match the authorization request.');
      }
      // Refused before anything was written: the code still works with the right one.
      expect((await t.gatehouse.exchangeCode({ client, code: sent, redirectUri: REDIRECT, codeVerifier: undefined })).token_type).toBe('Bearer');
    });

    it('the rule follows each code: included at authorize, omitted at the token endpoint is invalid_request; omitted at both works', async () => {
      const { t, user, client } = await setup();
      const named = await issueCode(t, client, user);
      const unnamed = await issueCodeWithoutRedirectUri(t, client, user);
      for (const redirectUri of [undefined, '']) {
        const error = await expectOAuthError(t.gatehouse.exchangeCode({ client, code: named, redirectUri, codeVerifier: undefined }), 'invalid_request');
        expect(error.description).toBe('redirect_uri is required: the authorization request included it.');
      }
      expect((await t.gatehouse.exchangeCode({ client, code: unnamed, redirectUri: undefined, codeVerifier: undefined })).token_type).toBe('Bearer');
      expect((await t.gatehouse.exchangeCode({ client, code: named, redirectUri: REDIRECT, codeVerifier: undefined })).token_type).toBe('Bearer');
    });
  });

  describe('PKCE (RFC 7636)', () => {
    it('accepts the right verifier', async () => {
      const { t, user, client } = await setup();
      const code = await issueCode(t, client, user, { code_challenge: s256Challenge(VERIFIER), code_challenge_method: 'S256' });
      const tokens = await t.gatehouse.exchangeCode({ client, code, redirectUri: REDIRECT, codeVerifier: VERIFIER });
      expect(tokens.token_type).toBe('Bearer');
    });

    it('matches the RFC 7636 Appendix B example', () => {
      expect(s256Challenge(VERIFIER)).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
    });

    it('refuses a missing, wrong or malformed verifier', async () => {
      const { t, user, client } = await setup();
      const code = await issueCode(t, client, user, { code_challenge: s256Challenge(VERIFIER), code_challenge_method: 'S256' });
      await expectOAuthError(t.gatehouse.exchangeCode({ client, code, redirectUri: REDIRECT, codeVerifier: undefined }), 'invalid_grant');
      await expectOAuthError(t.gatehouse.exchangeCode({ client, code, redirectUri: REDIRECT, codeVerifier: 'x'.repeat(43) }), 'invalid_grant');
      await expectOAuthError(t.gatehouse.exchangeCode({ client, code, redirectUri: REDIRECT, codeVerifier: 'short' }), 'invalid_grant');
      await expectOAuthError(t.gatehouse.exchangeCode({ client, code, redirectUri: REDIRECT, codeVerifier: `${VERIFIER}!` }), 'invalid_grant');
      // The challenge itself is not a verifier.
      await expectOAuthError(t.gatehouse.exchangeCode({ client, code, redirectUri: REDIRECT, codeVerifier: s256Challenge(VERIFIER) }), 'invalid_grant');
    });

    it('refuses a verifier when the authorization request had no challenge (downgrade)', async () => {
      const { t, user, client } = await setup();
      const code = await issueCode(t, client, user);
      await expectOAuthError(t.gatehouse.exchangeCode({ client, code, redirectUri: REDIRECT, codeVerifier: VERIFIER }), 'invalid_grant');
    });
  });
});

describe('exchangeCode after product logout', () => {
  /** Signs in, authorizes under that session and returns the code with the session's cookie value. */
  async function issueCodeInSession(t: TestGatehouse, client: Client, user: User): Promise<{ code: string; sessionToken: string }> {
    const { sessionToken, session } = await t.gatehouse.signIn({ email: user.email, password: 'password123' });
    const check = await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', redirect_uri: REDIRECT });
    if (check.kind !== 'valid') throw check.error;
    const { redirectTo } = await t.gatehouse.approveAuthorization({ request: check.request, userKey: user.userKey, sessionId: session.sessionId });
    return { code: new URL(redirectTo).searchParams.get('code') as string, sessionToken };
  }

  it('refuses a code whose sign-in session was logged out: invalid_grant, no grant, the code stays unused', async () => {
    const { t, user, client } = await setup();
    const { code, sessionToken } = await issueCodeInSession(t, client, user);
    await t.gatehouse.logout(sessionToken);

    const error = await expectOAuthError(t.gatehouse.exchangeCode({ client, code, redirectUri: REDIRECT, codeVerifier: undefined }), 'invalid_grant');
    expect(error.description).toBe('The authorization code is invalid, expired or already used.');
    expect(await t.repositories.grants.listActiveByUser(user.userKey)).toEqual([]);
    expect(await t.repositories.codes.findByHash(storedSecretHash(code))).toMatchObject({ consumedAt: null, grantId: null });
    // Not a replay: nothing to revoke, nothing audited as one.
    expect(t.audit.ofType('code.replayed')).toEqual([]);
  });

  it('refuses a code whose sign-in session no longer exists', async () => {
    const { t, user, client } = await setup();
    const check = await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', redirect_uri: REDIRECT });
    if (check.kind !== 'valid') throw check.error;
    const { redirectTo } = await t.gatehouse.approveAuthorization({ request: check.request, userKey: user.userKey, sessionId: 'never-signed-in' });
    const code = new URL(redirectTo).searchParams.get('code') as string;
    await expectOAuthError(t.gatehouse.exchangeCode({ client, code, redirectUri: REDIRECT, codeVerifier: undefined }), 'invalid_grant');
    expect(await t.repositories.grants.listActiveByUser(user.userKey)).toEqual([]);
  });

  it('accepts a code while its session lives, and the logout then revokes the grant', async () => {
    const { t, user, client } = await setup();
    const { code, sessionToken } = await issueCodeInSession(t, client, user);
    const tokens = await t.gatehouse.exchangeCode({ client, code, redirectUri: REDIRECT, codeVerifier: undefined });
    expect((await t.gatehouse.logout(sessionToken)).revokedGrantIds).toHaveLength(1);
    await expectOAuthError(t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: undefined }), 'invalid_grant');
  });
});

describe('exchangeCode signs while the write commits (decision 0078)', () => {
  /** Memory repositories whose exchange write waits for `release()`, and a signer that records whether that write had answered. */
  async function setupWithHeldWrite(sign: (input: string, key: Parameters<Es256Signer['sign']>[1]) => string = es256Signature) {
    const repositories = createMemoryRepositories();
    let release = (): void => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let writeAnswered = false;
    const createFromCode = repositories.grants.createFromCode.bind(repositories.grants);
    repositories.grants = {
      ...repositories.grants,
      async createFromCode(input) {
        await held;
        const won = await createFromCode(input);
        writeAnswered = true;
        return won;
      },
    };
    const signatures: Array<{ writeAnswered: boolean }> = [];
    // Waiting for the signer to be asked, not for a time: a loaded machine may take longer than any delay.
    const waiters: Array<{ count: number; done: () => void }> = [];
    const signer: Es256Signer = {
      sign: (input, key) => {
        signatures.push({ writeAnswered });
        for (const waiter of waiters.filter((candidate) => signatures.length >= candidate.count)) waiter.done();
        return sign(input, key);
      },
    };
    const untilSignatures = (count: number): Promise<void> =>
      signatures.length >= count ? Promise.resolve() : new Promise((done) => waiters.push({ count, done }));
    const t = await createTestGatehouse({ repositories, signer });
    const user = await t.seedUser({ email: 'ada@example.com' });
    const { client } = await t.seedClient({ scopes: ['messaging.v1.send', 'messaging.v1.read'] });
    return { t, user, client, release, signatures, untilSignatures };
  }

  it('asks for the signature before the write answers, and answers only after it', async () => {
    const { t, user, client, release, signatures, untilSignatures } = await setupWithHeldWrite();
    const code = await issueCode(t, client, user);
    let settled = false;
    const exchange = t.gatehouse.exchangeCode({ client, code, redirectUri: REDIRECT, codeVerifier: undefined }).finally(() => (settled = true));
    await untilSignatures(1);
    expect(signatures).toEqual([{ writeAnswered: false }]);
    expect(settled).toBe(false);

    release();
    const tokens = await exchange;
    expect((await t.gatehouse.verifyAccessToken(tokens.access_token)).userKey).toBe(user.userKey);
    expect(await t.repositories.refreshTokens.findByHash(storedSecretHash(tokens.refresh_token as string))).toMatchObject({ rotatedAt: null });
  });

  it('drops the response prepared for the exchange that lost the race: invalid_grant, and the winner’s grant is revoked', async () => {
    const { t, user, client, release, signatures, untilSignatures } = await setupWithHeldWrite();
    const code = await issueCode(t, client, user);
    const racing = [1, 2].map(() => t.gatehouse.exchangeCode({ client, code, redirectUri: REDIRECT, codeVerifier: undefined }));
    await untilSignatures(2);
    expect(signatures).toEqual([{ writeAnswered: false }, { writeAnswered: false }]);
    release();
    const [first, second] = await Promise.allSettled(racing);
    expect(first).toMatchObject({ status: 'fulfilled' });
    expect(second).toMatchObject({ status: 'rejected', reason: { code: 'invalid_grant', description: 'The authorization code is invalid, expired or already used.' } });
    // RFC 6749 §4.1.2: the loser was a replay; the grant the code produced is revoked.
    const winner = (first as PromiseFulfilledResult<{ access_token: string }>).value;
    await expectOAuthError(t.gatehouse.verifyAccessToken(winner.access_token), 'invalid_token');
    expect(t.audit.ofType('code.replayed')).toHaveLength(1);
  });

  it('answers the exchange that lost with invalid_grant even when preparing its response failed, with no unhandled rejection', async () => {
    let calls = 0;
    const { t, user, client, release, untilSignatures } = await setupWithHeldWrite((input, key) => {
      calls += 1;
      if (calls === 2) throw new Error('signing service down');
      return es256Signature(input, key);
    });
    const code = await issueCode(t, client, user);
    const racing = [1, 2].map(() => t.gatehouse.exchangeCode({ client, code, redirectUri: REDIRECT, codeVerifier: undefined }));
    await untilSignatures(2);
    release();
    const [first, second] = await Promise.allSettled(racing);
    expect(first).toMatchObject({ status: 'fulfilled' });
    expect(second).toMatchObject({ status: 'rejected', reason: { code: 'invalid_grant' } });
  });

  it('reads the owner before the write: an owner who is gone is invalid_grant, and nothing is written (a repository that reads the code alone)', async () => {
    const repositories = createMemoryRepositories();
    let ownerGone = false;
    const findByKey = repositories.users.findByKey.bind(repositories.users);
    repositories.users = { ...repositories.users, findByKey: async (userKey) => (ownerGone ? undefined : findByKey(userKey)) };
    const { findByHashWithOwnerEmail: _joined, ...codesAlone } = repositories.codes;
    repositories.codes = codesAlone;
    const t = await createTestGatehouse({ repositories });
    const user = await t.seedUser({ email: 'ada@example.com' });
    const { client } = await t.seedClient({ scopes: ['messaging.v1.send'] });
    const code = await issueCode(t, client, user);
    ownerGone = true;
    const error = await expectOAuthError(t.gatehouse.exchangeCode({ client, code, redirectUri: REDIRECT, codeVerifier: undefined }), 'invalid_grant');
    expect(error.description).toBe('The grant is no longer valid.');
    expect(await t.repositories.codes.findByHash(storedSecretHash(code))).toMatchObject({ consumedAt: null, grantId: null });
    expect(await t.repositories.grants.listActiveByUser(user.userKey)).toEqual([]);
  });

  it("reads the owner's e-mail with the code (decision 0172): an owner who is gone is invalid_grant, nothing is written, the directory is not asked", async () => {
    const repositories = createMemoryRepositories();
    let ownerGone = false;
    let ownerReads = 0;
    const findByKey = repositories.users.findByKey.bind(repositories.users);
    repositories.users = { ...repositories.users, findByKey: async (userKey) => ((ownerReads += 1), findByKey(userKey)) };
    const joined = repositories.codes.findByHashWithOwnerEmail!.bind(repositories.codes);
    repositories.codes = { ...repositories.codes, findByHashWithOwnerEmail: async (hash) => {
      const found = await joined(hash);
      return found && (ownerGone ? { ...found, ownerEmail: undefined } : found);
    } };
    const t = await createTestGatehouse({ repositories });
    const user = await t.seedUser({ email: 'ada@example.com' });
    const { client } = await t.seedClient({ scopes: ['messaging.v1.send'] });
    const kept = await issueCode(t, client, user);
    ownerReads = 0;
    expect(await t.gatehouse.exchangeCode({ client, code: kept, redirectUri: REDIRECT, codeVerifier: undefined })).toMatchObject({ principal: 'ada@example.com' });
    expect(ownerReads).toBe(0);
    const code = await issueCode(t, client, user);
    ownerGone = true;
    const error = await expectOAuthError(t.gatehouse.exchangeCode({ client, code, redirectUri: REDIRECT, codeVerifier: undefined }), 'invalid_grant');
    expect(error.description).toBe('The grant is no longer valid.');
    expect(await t.repositories.codes.findByHash(storedSecretHash(code))).toMatchObject({ consumedAt: null, grantId: null });
    expect(await t.repositories.grants.listActiveByUser(user.userKey)).toHaveLength(1);
  });

  it('uses a code read ahead of the client’s authentication only for that code (decision 0172)', async () => {
    const t = await createTestGatehouse();
    const user = await t.seedUser({ email: 'ada@example.com' });
    const { client } = await t.seedClient({ scopes: ['messaging.v1.send'] });
    const code = await issueCode(t, client, user);
    const other = await issueCode(t, client, user);
    // Read ahead for another code: ignored, the exchange reads its own.
    const misdirected = t.gatehouse.readCodeAhead(other);
    expect(await t.gatehouse.exchangeCode({ client, code, redirectUri: REDIRECT, codeVerifier: undefined, readAhead: misdirected })).toMatchObject({ principal: 'ada@example.com' });
    expect(await t.repositories.codes.findByHash(storedSecretHash(other))).toMatchObject({ consumedAt: null });
    // Read ahead, then consumed by its exchange: a second exchange with a stale read-ahead is a replay, decided by the database.
    const ahead = t.gatehouse.readCodeAhead(other);
    await ahead.reading;
    await t.gatehouse.exchangeCode({ client, code: other, redirectUri: REDIRECT, codeVerifier: undefined, readAhead: ahead });
    await expectOAuthError(t.gatehouse.exchangeCode({ client, code: other, redirectUri: REDIRECT, codeVerifier: undefined, readAhead: ahead }), 'invalid_grant');
    expect(t.audit.ofType('code.replayed')).toHaveLength(1);
    expect(await t.repositories.grants.listActiveByUser(user.userKey)).toHaveLength(1);
  });

  it('fails a won write with the response’s own failure', async () => {
    const { t, user, client, release } = await setupWithHeldWrite(() => {
      throw new Error('signing service down');
    });
    release();
    const code = await issueCode(t, client, user);
    await expect(t.gatehouse.exchangeCode({ client, code, redirectUri: REDIRECT, codeVerifier: undefined })).rejects.toThrow('signing service down');
  });
});

describe('exchangeCode when the connection is lost under its write (decision 0167)', () => {
  /** Memory repositories whose exchange write fails as `fail` says, the real write done or not. */
  async function setupWithFailingWrite(fail: (call: number) => 'after-commit' | 'before-write' | 'busy' | 'none') {
    const repositories = createMemoryRepositories();
    const createFromCode = repositories.grants.createFromCode.bind(repositories.grants);
    let calls = 0;
    repositories.grants = {
      ...repositories.grants,
      async createFromCode(input) {
        calls += 1;
        const failure = fail(calls);
        if (failure === 'before-write') throw new StorageUnavailableError('unreachable', 'connection lost');
        if (failure === 'busy') throw new StorageUnavailableError('busy', 'locked');
        const won = await createFromCode(input);
        if (failure === 'after-commit') throw new StorageUnavailableError('unreachable', 'connection lost before the answer');
        return won;
      },
    };
    const t = await createTestGatehouse({ repositories });
    const user = await t.seedUser({ email: 'ada@example.com' });
    const { client } = await t.seedClient();
    return { t, user, client, calls: () => calls };
  }

  it('a commit whose answer was lost is recognised: the exchange succeeds with its own grant, and a later replay still revokes it', async () => {
    const { t, user, client, calls } = await setupWithFailingWrite((call) => (call === 1 ? 'after-commit' : 'none'));
    const code = await issueCode(t, client, user);
    const tokens = await t.gatehouse.exchangeCode({ client, code, redirectUri: REDIRECT, codeVerifier: undefined });
    expect(calls()).toBe(2);
    expect((await t.gatehouse.verifyAccessToken(tokens.access_token)).userKey).toBe(user.userKey);
    expect(t.audit.ofType('code.replayed')).toEqual([]);
    expect(await t.gatehouse.listGrants({ userKey: user.userKey })).toHaveLength(1);
    // RFC 6749 §4.1.2: the code stays used once; a real replay revokes the grant.
    await expectOAuthError(t.gatehouse.exchangeCode({ client, code, redirectUri: REDIRECT, codeVerifier: undefined }), 'invalid_grant');
    await expectOAuthError(t.gatehouse.verifyAccessToken(tokens.access_token), 'invalid_token');
  });

  it('a write lost before it happened is sent once more and succeeds; other failures are answered at once', async () => {
    const lost = await setupWithFailingWrite((call) => (call === 1 ? 'before-write' : 'none'));
    const tokens = await lost.t.gatehouse.exchangeCode({ client: lost.client, code: await issueCode(lost.t, lost.client, lost.user), redirectUri: REDIRECT, codeVerifier: undefined });
    expect(lost.calls()).toBe(2);
    expect((await lost.t.gatehouse.verifyAccessToken(tokens.access_token)).userKey).toBe(lost.user.userKey);

    const busy = await setupWithFailingWrite(() => 'busy');
    const code = await issueCode(busy.t, busy.client, busy.user);
    await expect(busy.t.gatehouse.exchangeCode({ client: busy.client, code, redirectUri: REDIRECT, codeVerifier: undefined })).rejects.toBeInstanceOf(StorageUnavailableError);
    expect(busy.calls()).toBe(1);

    const down = await setupWithFailingWrite(() => 'before-write');
    await expect(down.t.gatehouse.exchangeCode({ client: down.client, code: await issueCode(down.t, down.client, down.user), redirectUri: REDIRECT, codeVerifier: undefined })).rejects.toMatchObject({ reason: 'unreachable' });
    expect(down.calls()).toBe(2);
    expect(await down.t.gatehouse.listGrants({ userKey: down.user.userKey })).toEqual([]);
  });
});
