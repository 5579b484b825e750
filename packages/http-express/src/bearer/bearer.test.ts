import { SignJWT, base64url, decodeJwt, decodeProtectedHeader, generateKeyPair } from 'jose';
import { describe, expect, it } from 'vitest';
import { expectMatchesOpenApi } from '../resource/test-support/openapi.js';
import { ADMIN_PHONE, bearer, createResourceHarness } from '../resource/test-support/harness.js';

/** Two values of one header: superagent hands an array to Node's setHeader, which sends each on a line of its own. */
const twice = (values: string[]) => values as unknown as string;

const ME = '/identity/v1/Users/me';
const INVALID_TOKEN = 'Bearer realm="gatehouse", error="invalid_token"';

async function refusedAsInvalidToken(response: { status: number; headers: Record<string, string>; body: Record<string, unknown>; text: string }) {
  expect(response.status).toBe(401);
  expect(response.headers['www-authenticate']).toBe(INVALID_TOKEN);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(response.body).toMatchObject({ status: 401, errorCode: 'AUTHN_INVALID_TOKEN', type: 'urn:gatehouse:problem:invalid-token' });
  expectMatchesOpenApi(response, 'get', ME);
}

describe('bearer authentication (RFC 6750)', () => {
  it('accepts a valid token in the Authorization header', async () => {
    const h = await createResourceHarness();
    const response = await h.http.get(ME).set(bearer(await h.tokenFor(h.admin)));
    expect(response.status).toBe(200);
    expect(response.body.id).toBe(h.admin.userKey);
  });

  it('accepts the scheme name in any case (RFC 7235 §2.1)', async () => {
    const h = await createResourceHarness();
    const response = await h.http.get(ME).set('Authorization', `bearer ${await h.tokenFor(h.admin)}`);
    expect(response.status).toBe(200);
  });

  it('answers a request without credentials with 401 and a challenge without an error code (§3.1)', async () => {
    const h = await createResourceHarness();
    const response = await h.http.get(ME);
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer realm="gatehouse"');
    expect(response.body).toMatchObject({ status: 401, errorCode: 'AUTHN_INVALID_TOKEN', type: 'urn:gatehouse:problem:unauthenticated' });
    expectMatchesOpenApi(response, 'get', ME);
  });

  it('treats credentials of another scheme as no bearer credentials', async () => {
    const h = await createResourceHarness();
    const response = await h.http.get(ME).set('Authorization', 'Basic dXNlcjpwYXNz');
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer realm="gatehouse"');
    expectMatchesOpenApi(response, 'get', ME);
  });

  it('refuses a malformed Bearer header with 400 invalid_request', async () => {
    const h = await createResourceHarness();
    const token = await h.tokenFor(h.admin);
    for (const header of ['Bearer', 'Bearer ', `Bearer ${token} extra`, 'Bearer a"b']) {
      const response = await h.http.get(ME).set('Authorization', header);
      expect(response.status, header).toBe(400);
      expect(response.headers['www-authenticate']).toBe('Bearer realm="gatehouse", error="invalid_request"');
      expect(response.body.errorCode).toBe('INVALID_REQUEST');
      expectMatchesOpenApi(response, 'get', ME);
    }
  });

  it('refuses the Authorization header sent twice with 400 invalid_request, whichever of the two is the valid token', async () => {
    const h = await createResourceHarness();
    const token = await h.tokenFor(h.admin);
    for (const pair of [[`Bearer ${token}`, 'Bearer garbage'], ['Bearer garbage', `Bearer ${token}`], [`Bearer ${token}`, `Bearer ${token}`]]) {
      const response = await h.http.get(ME).set('Authorization', twice(pair));
      expect(response.status, pair.join(' | ')).toBe(400);
      expect(response.headers['www-authenticate']).toBe('Bearer realm="gatehouse", error="invalid_request"');
      expect(response.body).toMatchObject({ errorCode: 'INVALID_REQUEST', detail: 'The Authorization header must be sent once.' });
    }
    expect((await h.http.get(ME).set(bearer(token))).status).toBe(200);
  });

  it('refuses a token in the query string (§2.3), even alongside a valid header', async () => {
    const h = await createResourceHarness();
    const token = await h.tokenFor(h.admin);
    for (const request of [h.http.get(`${ME}?access_token=${token}`), h.http.get(`${ME}?access_token=${token}`).set(bearer(token))]) {
      const response = await request;
      expect(response.status).toBe(400);
      expect(response.headers['www-authenticate']).toBe('Bearer realm="gatehouse", error="invalid_request"');
      expect(response.body).toMatchObject({ errorCode: 'INVALID_REQUEST', invalidParams: [{ name: 'access_token' }] });
      expect(response.text).not.toContain(token);
      expectMatchesOpenApi(response, 'get', ME);
    }
  });

  it('refuses a token in a form body (§2.2) and writes nothing', async () => {
    const h = await createResourceHarness();
    const token = await h.tokenFor(h.admin);
    const response = await h.http
      .post(`/admin/rest/v1/accounts/${h.account.accountKey}/attributes`)
      .type('form')
      .send({ access_token: token, name: 'department' });
    expect(response.status).toBe(400);
    expect(response.body.invalidParams).toEqual([{ name: 'access_token', reason: expect.any(String) }]);
    expectMatchesOpenApi(response, 'post', '/admin/rest/v1/accounts/{accountKey}/attributes');
    expect((await h.t.repositories.attributes.list(h.account.accountKey, { offset: 0, limit: 10 })).total).toBe(0);
  });

  it('refuses an expired token', async () => {
    const h = await createResourceHarness();
    const token = await h.tokenFor(h.admin);
    h.t.clock.advance(h.t.settings.accessTokenTtlSeconds + 1);
    await refusedAsInvalidToken(await h.http.get(ME).set(bearer(token)));
  });

  it('refuses a token signed by another key, even with our kid and valid claims', async () => {
    const h = await createResourceHarness();
    const genuine = await h.tokenFor(h.admin);
    const { kid } = decodeProtectedHeader(genuine);
    const { privateKey } = await generateKeyPair('ES256');
    const forged = await new SignJWT(decodeJwt(genuine)).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: kid as string }).sign(privateKey);
    await refusedAsInvalidToken(await h.http.get(ME).set(bearer(forged)));
  });

  it('refuses an unsigned token (alg: none)', async () => {
    const h = await createResourceHarness();
    const genuine = await h.tokenFor(h.admin);
    const { kid } = decodeProtectedHeader(genuine);
    const header = base64url.encode(JSON.stringify({ alg: 'none', typ: 'at+jwt', kid }));
    const payload = base64url.encode(JSON.stringify(decodeJwt(genuine)));
    await refusedAsInvalidToken(await h.http.get(ME).set(bearer(`${header}.${payload}.`)));
    // The same token with its signature stripped.
    const [genuineHeader, genuinePayload] = genuine.split('.');
    await refusedAsInvalidToken(await h.http.get(ME).set(bearer(`${genuineHeader}.${genuinePayload}.`)));
  });

  it('refuses a token whose payload was changed after signing', async () => {
    const h = await createResourceHarness();
    const genuine = await h.tokenFor(h.member);
    const [header, , signature] = genuine.split('.');
    const claims = { ...decodeJwt(genuine), sub: h.admin.userKey };
    await refusedAsInvalidToken(await h.http.get(ME).set(bearer(`${header}.${base64url.encode(JSON.stringify(claims))}.${signature}`)));
  });

  it('refuses garbage that is not a JWT', async () => {
    const h = await createResourceHarness();
    await refusedAsInvalidToken(await h.http.get(ME).set(bearer('not-a-jwt')));
  });

  it('refuses a token of a revoked grant at once, though it has not expired', async () => {
    const h = await createResourceHarness();
    const tokens = await h.t.obtainTokens({ client: h.client, user: h.admin });
    expect((await h.http.get(ME).set(bearer(tokens.access_token))).status).toBe(200);
    await h.t.gatehouse.revokeToken({ client: h.client, token: tokens.refresh_token as string, tokenTypeHint: 'refresh_token' });
    await refusedAsInvalidToken(await h.http.get(ME).set(bearer(tokens.access_token)));
  });

  it('refuses a token after a password change revoked the grants', async () => {
    const h = await createResourceHarness();
    const token = await h.tokenFor(h.admin);
    await h.t.product.changePassword({ userKey: h.admin.userKey, newPassword: 'another password' });
    await refusedAsInvalidToken(await h.http.get(ME).set(bearer(token)));
  });

  it('answers 403 insufficient_scope naming the scope needed (§3.1)', async () => {
    const h = await createResourceHarness();
    const token = await h.tokenFor(h.admin, 'messaging.v1.read');
    const response = await h.http
      .post('/messaging/v1/messages')
      .set(bearer(token))
      .send({ ownerPhoneNumber: ADMIN_PHONE, contactPhoneNumbers: ['+15557654321'], body: 'hi' });
    expect(response.status).toBe(403);
    expect(response.headers['www-authenticate']).toBe('Bearer realm="gatehouse", error="insufficient_scope", scope="messaging.v1.send"');
    expect(response.body).toMatchObject({ errorCode: 'AUTHZ_INSUFFICIENT_SCOPE', scope: 'messaging.v1.send', status: 403 });
    expect(response.body.detail).toContain('messaging.v1.send');
    expectMatchesOpenApi(response, 'post', '/messaging/v1/messages');
    expect(h.t.transport.sent).toHaveLength(0);
  });
});
