import { createPublicKey } from 'node:crypto';
import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectMatchesOpenApi } from '../resource/test-support/openapi.js';
import { basicAuth } from '../test-support/index.js';
import { compactJws, es256, hs256, payloadOf, serverSigningKey, strangerKey } from './test-support/forge.js';
import { ALL_SCOPES, createHardenedApp, type Hardened } from './test-support/harness.js';
import { resourceRoutes, send } from './test-support/routes.js';

// Issue 9 / decision 0031 and openapi.yaml (the resource APIs): forged, stale and orphaned tokens are refused at every
// resource route with 401 invalid_token (RFC 6750 §3.1), in the documented problem shape.

let h: Hardened;
let claims: Record<string, unknown>;
let key: Awaited<ReturnType<typeof serverSigningKey>>;
const HEADER = { alg: 'ES256', typ: 'at+jwt' };

beforeAll(async () => {
  h = await createHardenedApp();
  const { access_token } = await h.tokenFor(h.admin);
  claims = payloadOf(access_token);
  key = await serverSigningKey(h.repositories);
});

const now = () => Math.floor(h.clock.now().getTime() / 1000);
/** A token signed with the server's own key: only the named change makes it wrong. */
const signed = (changes: Record<string, unknown>, header: Record<string, unknown> = {}) =>
  compactJws({ ...HEADER, kid: key.kid, ...header }, { ...claims, jti: `forged-${Math.random()}`, ...changes }, es256(key.privateKey));

async function expectRefusedEverywhere(token: string): Promise<void> {
  for (const route of resourceRoutes(h)) {
    const res = await send(h.app, route, `Bearer ${token}`);
    const where = `${route.method.toUpperCase()} ${route.path}`;
    expect(res.status, where).toBe(401);
    expect(res.headers['www-authenticate'], where).toBe('Bearer realm="gatehouse", error="invalid_token"');
    expect(res.body.errorCode, where).toBe('AUTHN_INVALID_TOKEN');
    expectMatchesOpenApi(res, route.method, route.template);
  }
}

describe('forged and invalid access tokens at every resource route (10 routes)', () => {
  const cases: Array<[string, () => string]> = [
    ['alg "none" (unsigned)', () => compactJws({ alg: 'none', typ: 'at+jwt', kid: key.kid }, claims, () => '')],
    ['alg "none" with the real signature kept', () => {
      const real = signed({});
      return `${compactJws({ alg: 'none', typ: 'at+jwt', kid: key.kid }, claims, () => '').slice(0, -1)}.${real.split('.')[2]}`;
    }],
    ['HS256 keyed with the public key (PEM)', () => compactJws({ alg: 'HS256', typ: 'at+jwt', kid: key.kid }, claims, hs256(key.publicKey.export({ type: 'spki', format: 'pem' }) as string))],
    ['HS256 keyed with the public key (DER)', () => compactJws({ alg: 'HS256', typ: 'at+jwt', kid: key.kid }, claims, hs256(key.publicKey.export({ type: 'spki', format: 'der' })))],
    ['HS256 keyed with the published JWK', () => compactJws({ alg: 'HS256', typ: 'at+jwt', kid: key.kid }, claims, hs256(JSON.stringify(key.publicJwk)))],
    ['an unknown kid (signed by a stranger key)', () => compactJws({ ...HEADER, kid: 'not-a-published-kid' }, claims, es256(strangerKey()))],
    ['the real kid, signed by a stranger key', () => compactJws({ ...HEADER, kid: key.kid }, claims, es256(strangerKey()))],
    ['no kid at all', () => signed({}, { kid: undefined })],
    ['typ JWT instead of at+jwt (RFC 9068 §4)', () => signed({}, { typ: 'JWT' })],
    ['a wrong iss', () => signed({ iss: 'https://evil.example' })],
    ['a wrong aud', () => signed({ aud: 'https://other-api.example' })],
    ['expired an hour ago', () => signed({ iat: now() - 7200, exp: now() - 3600 })],
    ['expired a second ago', () => signed({ iat: now() - 3601, exp: now() - 1 })],
    ['issued an hour in the future (iat)', () => signed({ iat: now() + 3600, exp: now() + 7200 })],
    ['not valid before an hour from now (nbf)', () => signed({ nbf: now() + 3600 })],
    ['a sub that is not the grant owner', () => signed({ sub: h.member.userKey })],
    ['a gid of no grant', () => signed({ gid: 'no-such-grant' })],
    ['a payload changed after signing', () => {
      const [head, , signature] = signed({}).split('.');
      return `${head}.${Buffer.from(JSON.stringify({ ...claims, sub: h.member.userKey })).toString('base64url')}.${signature}`;
    }],
  ];

  it.each(cases)('refuses %s', async (_name, make) => {
    await expectRefusedEverywhere(make());
  });

  it("refuses a token of a deleted client", async () => {
    const { client } = await h.seedClient({ name: 'Soon gone', scopes: ALL_SCOPES });
    const { access_token } = await h.obtainTokens({ client, user: h.admin });
    expect((await send(h.app, resourceRoutes(h)[0]!, `Bearer ${access_token}`)).status).toBe(200);
    await h.gatehouse.deleteClient({ ownerUserKey: null, clientId: client.clientId });
    await expectRefusedEverywhere(access_token);
  });

  it('refuses a token of a revoked grant (revoked over /oauth/revoke)', async () => {
    const { access_token, refresh_token } = await h.tokenFor(h.admin);
    expect((await send(h.app, resourceRoutes(h)[0]!, `Bearer ${access_token}`)).status).toBe(200);
    await request(h.app).post('/oauth/revoke').set('Authorization', basicAuth(h.client.clientId, h.clientSecret)).type('form').send({ token: refresh_token }).expect(200);
    await expectRefusedEverywhere(access_token);
  });

  // Last, because the successful DELETE removes the attribute the other routes use.
  it('accepts the same token when nothing is wrong with it (the forgeries above differ by one thing)', async () => {
    const token = signed({});
    for (const route of resourceRoutes(h)) {
      const res = await send(h.app, route, `Bearer ${token}`);
      expect(res.status, `${route.method.toUpperCase()} ${route.path}: ${res.text}`).toBe(route.okStatus);
      expectMatchesOpenApi(res, route.method, route.template);
    }
    expect(createPublicKey(key.privateKey).export({ format: 'jwk' }).x).toBe(key.publicJwk.x);
  });
});
