import { describe, expect, it } from 'vitest';
import { BODY_LIMIT_BYTES } from './body.js';
import { ADMIN_PHONE, bearer, createResourceHarness } from './test-support/harness.js';
import { expectMatchesOpenApi, expectMatchesSchema } from './test-support/openapi.js';

const COLLECTION = '/admin/rest/v1/accounts/{accountKey}/attributes';

describe('request bodies at the edge', () => {
  it('refuses an oversized body with 413 problem+json, writing nothing', async () => {
    const h = await createResourceHarness();
    const token = await h.tokenFor(h.admin);
    const response = await h.http
      .post(`/admin/rest/v1/accounts/${h.account.accountKey}/attributes`)
      .set(bearer(token))
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ name: 'x', padding: 'p'.repeat(BODY_LIMIT_BYTES) }));
    expect(response.status).toBe(413);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.body).toMatchObject({ errorCode: 'INVALID_REQUEST', status: 413, type: 'urn:gatehouse:problem:payload-too-large' });
    expectMatchesOpenApi(response, 'post', COLLECTION);
    expect((await h.t.repositories.attributes.list(h.account.accountKey, { offset: 0, limit: 10 })).total).toBe(0);
  });

  it('refuses an oversized message with 413, sending nothing', async () => {
    const h = await createResourceHarness();
    const response = await h.http
      .post('/messaging/v1/messages')
      .set(bearer(await h.tokenFor(h.admin)))
      .send({ ownerPhoneNumber: ADMIN_PHONE, contactPhoneNumbers: ['+15557654321'], body: 'b'.repeat(BODY_LIMIT_BYTES + 1) });
    expect(response.status).toBe(413);
    expectMatchesOpenApi(response, 'post', '/messaging/v1/messages');
    expect(h.t.transport.sent).toHaveLength(0);
  });

  it('refuses malformed JSON with 400 problem+json that does not echo the input, writing nothing', async () => {
    const h = await createResourceHarness();
    const token = await h.tokenFor(h.admin);
    for (const text of ['{"name": "department"', '{name: department}', '"just a string"', 'null', '']) {
      const response = await h.http
        .post(`/admin/rest/v1/accounts/${h.account.accountKey}/attributes`)
        .set(bearer(token))
        .set('Content-Type', 'application/json')
        .send(text);
      expect(response.status, text).toBe(400);
      expect(response.body.errorCode).toBe('INVALID_REQUEST');
      expect(response.text).not.toContain('department');
      expect(response.text).not.toMatch(/at JSON\.parse|SyntaxError|\n\s+at /);
      expectMatchesOpenApi(response, 'post', COLLECTION);
    }
    expect((await h.t.repositories.attributes.list(h.account.accountKey, { offset: 0, limit: 10 })).total).toBe(0);
  });

  it('refuses a body that names a member twice in one object (400 problem, nothing written), which a parser would have read as its last', async () => {
    const h = await createResourceHarness();
    const token = await h.tokenFor(h.admin);
    const response = await h.http
      .post(`/admin/rest/v1/accounts/${h.account.accountKey}/attributes`)
      .set(bearer(token))
      .set('Content-Type', 'application/json')
      .send('{"name":"department","name":"Department"}');
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ errorCode: 'INVALID_REQUEST', detail: 'The request body names a member twice in one object.' });
    expect(response.text).not.toContain('department');
    expectMatchesOpenApi(response, 'post', COLLECTION);
    expect((await h.t.repositories.attributes.list(h.account.accountKey, { offset: 0, limit: 10 })).total).toBe(0);
  });

  it('authenticates before reading a JSON body: no token and a broken body is still 401', async () => {
    const h = await createResourceHarness();
    const response = await h.http
      .post(`/admin/rest/v1/accounts/${h.account.accountKey}/attributes`)
      .set('Content-Type', 'application/json')
      .send('{"name": ');
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer realm="gatehouse"');
    expectMatchesOpenApi(response, 'post', COLLECTION);
  });

  it('refuses a body that is not JSON with 415, writing nothing', async () => {
    const h = await createResourceHarness();
    const token = await h.tokenFor(h.admin);
    const path = `/admin/rest/v1/accounts/${h.account.accountKey}/attributes`;
    const asText = await h.http.post(path).set(bearer(token)).set('Content-Type', 'text/plain').send('{"name":"department"}');
    const asForm = await h.http.post(path).set(bearer(token)).type('form').send({ name: 'department' });
    const without = await h.http.post(path).set(bearer(token));
    for (const response of [asText, asForm, without]) {
      expect(response.status).toBe(415);
      expect(response.body).toMatchObject({ errorCode: 'INVALID_REQUEST', status: 415 });
      expectMatchesOpenApi(response, 'post', COLLECTION);
    }
    expect((await h.t.repositories.attributes.list(h.account.accountKey, { offset: 0, limit: 10 })).total).toBe(0);
  });

  it('refuses a body in a charset other than UTF-8 with 415', async () => {
    const h = await createResourceHarness();
    const response = await h.http
      .post(`/admin/rest/v1/accounts/${h.account.accountKey}/attributes`)
      .set(bearer(await h.tokenFor(h.admin)))
      .set('Content-Type', 'application/json; charset=latin1')
      .send('{"name":"d"}');
    expect(response.status).toBe(415);
    expectMatchesOpenApi(response, 'post', COLLECTION);
  });

  it('accepts application/json with a UTF-8 charset and a +json type', async () => {
    const h = await createResourceHarness();
    const token = await h.tokenFor(h.admin);
    const path = `/admin/rest/v1/accounts/${h.account.accountKey}/attributes`;
    const utf8 = await h.http.post(path).set(bearer(token)).set('Content-Type', 'application/json; charset=utf-8').send('{"name":"Städte 🏙"}');
    expect(utf8.status).toBe(201);
    expect(utf8.body.name).toBe('Städte 🏙');
    const plusJson = await h.http.post(path).set(bearer(token)).set('Content-Type', 'application/merge-patch+json').send('{"name":"other"}');
    expect(plusJson.status).toBe(201);
  });
});

describe('routes under the API prefixes', () => {
  it('answers an unknown route under /identity, /messaging and /admin with a 404 problem', async () => {
    const h = await createResourceHarness();
    const token = await h.tokenFor(h.admin);
    for (const path of ['/identity/v1/Users/someone', '/identity/v2/Users/me', '/messaging/v1/nothing', '/admin/rest/v1/accounts', '/admin']) {
      for (const response of [await h.http.get(path), await h.http.get(path).set(bearer(token))]) {
        expect(response.status, path).toBe(404);
        expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(response.body).toMatchObject({ errorCode: 'NOT_FOUND', status: 404 });
        expectMatchesSchema(response.body, 'Problem');
      }
    }
  });

  it('answers a known path with another method with 405 and Allow', async () => {
    const h = await createResourceHarness();
    const token = await h.tokenFor(h.admin);
    const cases: Array<[string, string]> = [
      [`/admin/rest/v1/accounts/${h.account.accountKey}/attributes`, 'GET, HEAD, POST'],
      [`/admin/rest/v1/accounts/${h.account.accountKey}/attributes/k1`, 'GET, HEAD, PUT, DELETE'],
      [`/admin/rest/v1/accounts/${h.account.accountKey}/users/${h.member.userKey}/attributes`, 'GET, HEAD, PUT'],
      ['/messaging/v1/messages', 'GET, HEAD, POST'],
    ];
    for (const [path, allow] of cases) {
      const response = await h.http.patch(path).set(bearer(token)).send({});
      expect(response.status, path).toBe(405);
      expect(response.headers.allow).toBe(allow);
      expectMatchesSchema(response.body, 'Problem');
      // Every method Allow names is answered otherwise than 405 (HEAD with GET's headers).
      for (const method of allow.split(', ')) expect((await h.http[method.toLowerCase() as 'get'](path).set(bearer(token)).send(method === 'GET' || method === 'HEAD' ? undefined : {})).status, `${method} ${path}`).not.toBe(405);
    }
  });

  it('leaves paths outside its prefixes to the rest of the app', async () => {
    const h = await createResourceHarness();
    const response = await h.http.get('/.well-known/oauth-authorization-server');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
  });
});
