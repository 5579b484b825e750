import { SignJWT, decodeJwt, decodeProtectedHeader, generateKeyPair } from 'jose';
import { describe, expect, it } from 'vitest';
import { createControllableClock, createFastPasswordHasher, createMemoryRepositories, createTestGatehouse } from '@gatehouse/core/testing';
import { OAuthError } from '../errors.js';
import { createGatehouse, depsOf } from '../gatehouse.js';
import { createProductApi } from '../product/create-product-api.js';
import { defineSettings } from '../settings.js';
import { es256Signature } from './jws.js';
import { keyRotationTimings } from './key-ring.js';

/** The rotation timeline of the default settings (a JWKS cacheable 300 s). */
const { newKeySignsAfterMs: NEW_KEY_SIGNS_AFTER_MS, retiredKeyGraceMs: RETIRED_KEY_GRACE_MS } = keyRotationTimings(300);

const ISSUER = 'http://localhost:3000';

async function setup() {
  const t = await createTestGatehouse();
  const user = await t.seedUser({ email: 'ada@example.com' });
  const { client } = await t.seedClient({ scopes: ['messaging.v1.send', 'messaging.v1.read'] });
  const tokens = await t.obtainTokens({ client, user });
  return { t, user, client, tokens };
}

async function invalidToken(promise: Promise<unknown>): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(OAuthError);
  expect((error as OAuthError).code).toBe('invalid_token');
  // One public description whatever went wrong: nothing to learn from the answer.
  expect((error as OAuthError).description).toBe('The access token is invalid, expired or revoked.');
}

function b64(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

describe('access tokens (RFC 9068)', () => {
  it('carry the RFC 9068 §2.2 claims and the at+jwt header', async () => {
    const { t, user, client, tokens } = await setup();
    const header = decodeProtectedHeader(tokens.access_token);
    const { keys } = await t.gatehouse.jwks();
    expect(header).toEqual({ alg: 'ES256', typ: 'at+jwt', kid: keys[0]?.kid });
    const claims = decodeJwt(tokens.access_token);
    const iat = Math.floor(t.clock.now().getTime() / 1000);
    const grant = (await t.repositories.grants.listActiveByUser(user.userKey))[0];
    expect(claims).toEqual({
      iss: ISSUER,
      sub: user.userKey,
      aud: ISSUER,
      client_id: client.clientId,
      scope: 'messaging.v1.send messaging.v1.read',
      iat,
      exp: iat + 3600,
      jti: expect.any(String),
      principal: 'ada@example.com',
      gid: grant?.grantId,
    });
  });

  it('are signed by the signer the gatehouse was given, and verify', async () => {
    const signed: string[] = [];
    const t = await createTestGatehouse({ signer: { sign: async (input, key) => (signed.push(input), es256Signature(input, key)) } });
    const user = await t.seedUser({ email: 'ada@example.com' });
    const { client } = await t.seedClient({ scopes: ['messaging.v1.send'] });
    const tokens = await t.obtainTokens({ client, user });
    const refreshed = await t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: undefined });
    expect(signed).toEqual([tokens.access_token, refreshed.access_token].map((token) => token.split('.').slice(0, 2).join('.')));
    expect((await t.gatehouse.verifyAccessToken(refreshed.access_token)).userKey).toBe(user.userKey);
  });

  it('have a fresh jti each time', async () => {
    const { t, client, tokens } = await setup();
    const again = await t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: undefined });
    expect(decodeJwt(again.access_token).jti).not.toBe(decodeJwt(tokens.access_token).jti);
  });

  it('verify into user, client, grant and scopes', async () => {
    const { t, user, client, tokens } = await setup();
    const verified = await t.gatehouse.verifyAccessToken(tokens.access_token);
    expect(verified).toMatchObject({ userKey: user.userKey, clientId: client.clientId, scopes: ['messaging.v1.send', 'messaging.v1.read'] });
    expect(verified.grantId).toBe(decodeJwt(tokens.access_token).gid);
  });

  it('use the audience setting when it differs from the issuer', async () => {
    const t = await createTestGatehouse({ settings: { audience: 'https://api.example.com' } });
    const user = await t.seedUser();
    const { client } = await t.seedClient();
    const tokens = await t.obtainTokens({ client, user });
    expect(decodeJwt(tokens.access_token).aud).toBe('https://api.example.com');
    expect((await t.gatehouse.verifyAccessToken(tokens.access_token)).userKey).toBe(user.userKey);
  });

  it('are refused once expired (by the injected clock)', async () => {
    const { t, tokens } = await setup();
    t.clock.advance(3599);
    await t.gatehouse.verifyAccessToken(tokens.access_token);
    t.clock.advance(1);
    await invalidToken(t.gatehouse.verifyAccessToken(tokens.access_token));
  });

  it('are refused with alg none', async () => {
    const { t, tokens } = await setup();
    const header = decodeProtectedHeader(tokens.access_token);
    const unsigned = `${b64({ alg: 'none', typ: 'at+jwt', kid: header.kid })}.${b64(decodeJwt(tokens.access_token))}.`;
    await invalidToken(t.gatehouse.verifyAccessToken(unsigned));
  });

  it('are refused when signed by another key, even under a known kid', async () => {
    const { t, tokens } = await setup();
    const { kid } = decodeProtectedHeader(tokens.access_token);
    const { privateKey } = await generateKeyPair('ES256');
    const forged = await new SignJWT(decodeJwt(tokens.access_token)).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: kid as string }).sign(privateKey);
    await invalidToken(t.gatehouse.verifyAccessToken(forged));
  });

  it('are refused when signed with HS256 using the public key as the secret (algorithm confusion)', async () => {
    const { t, tokens } = await setup();
    const { keys } = await t.gatehouse.jwks();
    const secret = new TextEncoder().encode(JSON.stringify(keys[0]));
    const forged = await new SignJWT(decodeJwt(tokens.access_token))
      .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: keys[0]?.kid as string })
      .sign(secret);
    await invalidToken(t.gatehouse.verifyAccessToken(forged));
  });

  it('are refused from another Gatehouse', async () => {
    const { t } = await setup();
    const elsewhere = await setup();
    await invalidToken(t.gatehouse.verifyAccessToken(elsewhere.tokens.access_token));
  });

  it('are refused when tampered, malformed, without kid, or with an unknown kid', async () => {
    const { t, tokens } = await setup();
    const [header, payload, signature] = tokens.access_token.split('.') as [string, string, string];
    const widened = b64({ ...decodeJwt(tokens.access_token), scope: 'admin.v1.attributes.write' });
    await invalidToken(t.gatehouse.verifyAccessToken(`${header}.${widened}.${signature}`));
    await invalidToken(t.gatehouse.verifyAccessToken('not a token'));
    await invalidToken(t.gatehouse.verifyAccessToken(''));
    await invalidToken(t.gatehouse.verifyAccessToken(`${b64({ alg: 'ES256', typ: 'at+jwt' })}.${payload}.${signature}`));
    await invalidToken(t.gatehouse.verifyAccessToken(`${b64({ alg: 'ES256', typ: 'at+jwt', kid: 'unknown' })}.${payload}.${signature}`));
  });

  it('are refused when correctly signed but with the wrong typ, issuer, audience, a missing claim or an iat in the future', async () => {
    const { t, tokens } = await setup();
    const { kid, key } = await depsOf(t.gatehouse).keys.signingKey();
    const claims = decodeJwt(tokens.access_token);
    const sign = (payload: Record<string, unknown>, typ = 'at+jwt') => new SignJWT(payload).setProtectedHeader({ alg: 'ES256', typ, kid }).sign(key);
    // The control: the same helper with untouched claims verifies.
    await t.gatehouse.verifyAccessToken(await sign(claims));
    await invalidToken(t.gatehouse.verifyAccessToken(await sign(claims, 'JWT')));
    await invalidToken(t.gatehouse.verifyAccessToken(await sign({ ...claims, iss: 'https://evil.example' })));
    await invalidToken(t.gatehouse.verifyAccessToken(await sign({ ...claims, aud: 'https://other.example' })));
    const { gid: _gid, ...withoutGid } = claims;
    await invalidToken(t.gatehouse.verifyAccessToken(await sign(withoutGid)));
    await invalidToken(t.gatehouse.verifyAccessToken(await sign({ ...claims, gid: 42 })));
    const future = (claims.iat as number) + 3600;
    await invalidToken(t.gatehouse.verifyAccessToken(await sign({ ...claims, iat: future, exp: future + 3600 })));
  });

  it('are refused when their claims name another client or user than the grant', async () => {
    const { t, tokens } = await setup();
    const { kid, key } = await depsOf(t.gatehouse).keys.signingKey();
    const claims = decodeJwt(tokens.access_token);
    const sign = (payload: Record<string, unknown>) => new SignJWT(payload).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid }).sign(key);
    await invalidToken(t.gatehouse.verifyAccessToken(await sign({ ...claims, client_id: 'someone-else' })));
    await invalidToken(t.gatehouse.verifyAccessToken(await sign({ ...claims, sub: 'someone-else' })));
  });
});

describe('signing keys', () => {
  it('rotation keeps old tokens valid and JWKS lists both keys until the old ones expire', async () => {
    const { t, user, client, tokens } = await setup();
    const oldKid = decodeProtectedHeader(tokens.access_token).kid;
    const { kid: newKid } = await t.gatehouse.rotateSigningKey();
    expect(newKid).not.toBe(oldKid);
    // The new key is published at once but signs only once every instance can know it (key-ring.ts):
    // until then the retired key still signs.
    expect((await t.gatehouse.jwks()).keys.map((key) => key.kid).sort()).toEqual([oldKid, newKid].sort());
    t.clock.advance(NEW_KEY_SIGNS_AFTER_MS / 1000 - 1);
    const lastOfOldKey = await t.obtainTokens({ client, user });
    expect(decodeProtectedHeader(lastOfOldKey.access_token).kid).toBe(oldKid);
    t.clock.advance(1);
    const fresh = await t.obtainTokens({ client, user });
    expect(decodeProtectedHeader(fresh.access_token).kid).toBe(newKid);
    await t.gatehouse.verifyAccessToken(tokens.access_token);
    await t.gatehouse.verifyAccessToken(lastOfOldKey.access_token);
    await t.gatehouse.verifyAccessToken(fresh.access_token);

    const { keys } = await t.gatehouse.jwks();
    expect(keys.map((key) => key.kid).sort()).toEqual([oldKid, newKid].sort());
    for (const key of keys) {
      expect(key).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
      expect(key).not.toHaveProperty('d');
    }
    expect(t.audit.ofType('key.rotated')).toHaveLength(1);

    // The old key's last token lives 3600 s from the end of the hand-over: it verifies, and the key
    // stays published, until then.
    t.clock.advance(3600 - 2);
    expect((await t.gatehouse.verifyAccessToken(lastOfOldKey.access_token)).userKey).toBe(user.userKey);
    expect((await t.gatehouse.jwks()).keys.map((key) => key.kid).sort()).toEqual([oldKid, newKid].sort());
    // Published for the grace beyond the token lifetime after its retirement, then no longer, then purged.
    t.clock.advance(RETIRED_KEY_GRACE_MS / 1000 - NEW_KEY_SIGNS_AFTER_MS / 1000 + 2);
    expect((await t.gatehouse.jwks()).keys.map((key) => key.kid)).toEqual([newKid]);
    await invalidToken(t.gatehouse.verifyAccessToken(lastOfOldKey.access_token));
    expect(await depsOf(t.gatehouse).keys.purge()).toBe(0);
    t.clock.advance(1);
    expect(await depsOf(t.gatehouse).keys.purge()).toBe(1);
    expect(await depsOf(t.gatehouse).keys.purge()).toBe(0);
    await t.gatehouse.verifyAccessToken((await t.obtainTokens({ client, user })).access_token);
  });

  it('a token signed after another instance rotated is verified once the key ring reloads', async () => {
    const repositories = createMemoryRepositories();
    const clock = createControllableClock();
    const settings = defineSettings({ issuer: ISSUER });
    const first = createGatehouse({ repositories, settings, clock, passwords: createFastPasswordHasher() });
    const second = createGatehouse({ repositories, settings, clock, passwords: createFastPasswordHasher() });
    const user = await createProductApi({ gatehouse: first, repositories, passwords: createFastPasswordHasher() }).createUser({ email: 'ada@example.com', password: 'password123' });
    const { client } = await first.registerClient({ name: 'App', redirectUris: ['https://app.example/cb'], scopes: ['messaging.v1.read'] });

    const issue = async (gatehouse: typeof first) => {
      const check = await gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code' });
      if (check.kind !== 'valid') throw check.error;
      const { redirectTo } = await gatehouse.approveAuthorization({ request: check.request, userKey: user.userKey, sessionId: null });
      const code = new URL(redirectTo).searchParams.get('code') as string;
      return gatehouse.exchangeCode({ client, code, redirectUri: 'https://app.example/cb', codeVerifier: undefined });
    };
    await first.verifyAccessToken((await issue(first)).access_token);
    const { kid } = await second.rotateSigningKey();
    clock.advance(NEW_KEY_SIGNS_AFTER_MS / 1000);
    const afterRotation = await issue(second);
    expect(decodeProtectedHeader(afterRotation.access_token).kid).toBe(kid);
    expect((await first.verifyAccessToken(afterRotation.access_token)).userKey).toBe(user.userKey);
  });
});
