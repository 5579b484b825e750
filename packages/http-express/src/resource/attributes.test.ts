import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { bearer, createResourceHarness, type ResourceHarness } from './test-support/harness.js';
import { expectMatchesOpenApi } from './test-support/openapi.js';

const COLLECTION = '/admin/rest/v1/accounts/{accountKey}/attributes';
const ITEM = '/admin/rest/v1/accounts/{accountKey}/attributes/{attributeKey}';
const USER_VALUES = '/admin/rest/v1/accounts/{accountKey}/users/{userKey}/attributes';

const collection = (accountKey: string) => `/admin/rest/v1/accounts/${accountKey}/attributes`;
const item = (accountKey: string, key: string) => `${collection(accountKey)}/${key}`;
const userValues = (accountKey: string, userKey: string) => `/admin/rest/v1/accounts/${accountKey}/users/${userKey}/attributes`;

async function create(h: ResourceHarness, token: string, name: string): Promise<{ key: string; name: string }> {
  const response = await h.http.post(collection(h.account.accountKey)).set(bearer(token)).send({ name });
  expect(response.status, response.text).toBe(201);
  expectMatchesOpenApi(response, 'post', COLLECTION);
  return response.body;
}

async function namesIn(h: ResourceHarness): Promise<string[]> {
  const page = await h.t.repositories.attributes.list(h.account.accountKey, { offset: 0, limit: 1000 });
  return page.results.map((attribute) => attribute.name);
}

describe('attribute names', () => {
  it('creates a name: 201, { key, name } and a Location that reads it back', async () => {
    const h = await createResourceHarness();
    const token = await h.tokenFor(h.admin);
    const response = await h.http.post(collection(h.account.accountKey)).set(bearer(token)).send({ name: '  department ' });
    expect(response.status).toBe(201);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.body).toEqual({ key: expect.any(String), name: 'department' });
    expect(response.headers.location).toBe(item(h.account.accountKey, response.body.key));
    expectMatchesOpenApi(response, 'post', COLLECTION);

    const read = await h.http.get(response.headers.location as string).set(bearer(token));
    expect(read.status).toBe(200);
    expect(read.body).toEqual(response.body);
    expectMatchesOpenApi(read, 'get', ITEM);
  });

  it('lists names in creation order with total, offset and pageSize (defaults 0 and 100)', async () => {
    const h = await createResourceHarness();
    const token = await h.tokenFor(h.admin);
    const created = [];
    for (let i = 0; i < 5; i += 1) created.push(await create(h, token, `attribute ${i}`));

    const all = await h.http.get(collection(h.account.accountKey)).set(bearer(token));
    expect(all.status).toBe(200);
    expect(all.body).toEqual({ results: created, total: 5 });
    expectMatchesOpenApi(all, 'get', COLLECTION);

    const page = await h.http.get(collection(h.account.accountKey)).query({ offset: 1, pageSize: 2 }).set(bearer(token));
    expect(page.body).toEqual({ results: created.slice(1, 3), total: 5 });
    expectMatchesOpenApi(page, 'get', COLLECTION);

    const beyond = await h.http.get(collection(h.account.accountKey)).query({ offset: 10 }).set(bearer(token));
    expect(beyond.body).toEqual({ results: [], total: 5 });
    expectMatchesOpenApi(beyond, 'get', COLLECTION);
  });

  it('pages 100 by default and up to 1000', async () => {
    const h = await createResourceHarness();
    const token = await h.tokenFor(h.admin);
    for (let i = 0; i < 120; i += 1) {
      await h.t.repositories.attributes.create(h.account.accountKey, { key: `k${String(i).padStart(3, '0')}`, name: `name ${i}` }, 500);
    }
    const byDefault = await h.http.get(collection(h.account.accountKey)).set(bearer(token));
    expect(byDefault.body.results).toHaveLength(100);
    expect(byDefault.body.total).toBe(120);
    const most = await h.http.get(collection(h.account.accountKey)).query({ pageSize: 1000 }).set(bearer(token));
    expect(most.body.results).toHaveLength(120);
    expectMatchesOpenApi(most, 'get', COLLECTION);
  });

  it('refuses bad paging parameters with 400 naming them', async () => {
    const h = await createResourceHarness();
    const token = await h.tokenFor(h.admin);
    for (const [query, field] of [
      ['pageSize=1001', 'pageSize'],
      ['pageSize=0', 'pageSize'],
      ['pageSize=-1', 'pageSize'],
      ['pageSize=abc', 'pageSize'],
      ['offset=-1', 'offset'],
      ['offset=1e3', 'offset'],
      ['offset=1&offset=2', 'offset'],
    ] as const) {
      const response = await h.http.get(`${collection(h.account.accountKey)}?${query}`).set(bearer(token));
      expect(response.status, query).toBe(400);
      expect(response.body.invalidParams.map((param: { name: string }) => param.name), query).toContain(field);
      expectMatchesOpenApi(response, 'get', COLLECTION);
    }
  });

  it('renames a name (200 { key, name }), keeping its key and values', async () => {
    const h = await createResourceHarness();
    const token = await h.tokenFor(h.admin);
    const department = await create(h, token, 'department');
    await h.t.product.setUserAttributes({ actorUserKey: h.admin.userKey, accountKey: h.account.accountKey, userKey: h.member.userKey, values: [{ key: department.key, value: 'Sales' }] });
    const response = await h.http.put(item(h.account.accountKey, department.key)).set(bearer(token)).send({ name: 'dept' });
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ key: department.key, name: 'dept' });
    expectMatchesOpenApi(response, 'put', ITEM);
    const values = await h.http.get(userValues(h.account.accountKey, h.member.userKey)).set(bearer(token));
    expect(values.body).toEqual([{ key: department.key, name: 'dept', value: 'Sales' }]);
  });

  it('refuses a duplicate name, ignoring case, with 409 on create and on rename', async () => {
    const h = await createResourceHarness();
    const token = await h.tokenFor(h.admin);
    await create(h, token, 'Department');
    const division = await create(h, token, 'division');
    const duplicate = await h.http.post(collection(h.account.accountKey)).set(bearer(token)).send({ name: 'DEPARTMENT' });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body).toMatchObject({ errorCode: 'CONFLICT', status: 409 });
    expectMatchesOpenApi(duplicate, 'post', COLLECTION);
    const rename = await h.http.put(item(h.account.accountKey, division.key)).set(bearer(token)).send({ name: 'department' });
    expect(rename.status).toBe(409);
    expectMatchesOpenApi(rename, 'put', ITEM);
    expect(await namesIn(h)).toEqual(['Department', 'division']);
  });

  it('refuses a name beyond the account limit with 409', async () => {
    const h = await createResourceHarness({ settings: { maxAttributesPerAccount: 2 } });
    const token = await h.tokenFor(h.admin);
    await create(h, token, 'one');
    await create(h, token, 'two');
    const response = await h.http.post(collection(h.account.accountKey)).set(bearer(token)).send({ name: 'three' });
    expect(response.status).toBe(409);
    expect(response.body.errorCode).toBe('CONFLICT');
    expectMatchesOpenApi(response, 'post', COLLECTION);
    expect(await namesIn(h)).toEqual(['one', 'two']);
  });

  it('refuses invalid names with 400 naming the field, writing nothing', async () => {
    const h = await createResourceHarness();
    const token = await h.tokenFor(h.admin);
    for (const body of [{ name: '' }, { name: '   ' }, { name: 'x'.repeat(65) }, { name: 'tab\there' }, { name: 42 }, {}, { name: 'ok', extra: 1 }]) {
      const response = await h.http.post(collection(h.account.accountKey)).set(bearer(token)).send(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.errorCode).toBe('INVALID_REQUEST');
      expect(response.body.invalidParams.map((param: { name: string }) => param.name)).toContain('extra' in body ? 'extra' : 'name');
      expectMatchesOpenApi(response, 'post', COLLECTION);
    }
    expect(await namesIn(h)).toEqual([]);
  });

  it('says why: a missing field is required, an unknown one is not a known field, an array is not the object the body must be', async () => {
    const h = await createResourceHarness();
    const token = await h.tokenFor(h.admin);
    const reasons = async (body: unknown) => {
      const response = await h.http.post(collection(h.account.accountKey)).set(bearer(token)).send(body as object);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expectMatchesOpenApi(response, 'post', COLLECTION);
      return response.body.invalidParams as Array<{ name: string; reason: string }>;
    };
    expect(await reasons({})).toEqual([{ name: 'name', reason: 'is required' }]);
    expect(await reasons({ name: 'ok', extra: 1 })).toEqual([{ name: 'extra', reason: 'is not a known field' }]);
    expect(await reasons([{ name: 'a' }])).toEqual([{ name: 'body', reason: 'must be a JSON object' }]);
    expect(await namesIn(h)).toEqual([]);
  });

  it('a body that is not what its Content-Encoding says is a malformed body, and a real gzip body is read', async () => {
    const h = await createResourceHarness();
    const token = await h.tokenFor(h.admin);
    for (const encoding of ['gzip', 'deflate', 'br']) {
      const response = await h.http.post(collection(h.account.accountKey)).set(bearer(token)).set('Content-Type', 'application/json').set('Content-Encoding', encoding).send('{"name":"department"}');
      expect(response.status, encoding).toBe(400);
      expect(response.body, encoding).toMatchObject({ type: expect.stringMatching(/malformed-body$/), detail: 'The request body could not be decompressed as its Content-Encoding says.' });
    }
    expect(await namesIn(h)).toEqual([]);
    const gzipped = gzipSync(Buffer.from('{"name":"department"}'));
    const response = await h.http.post(collection(h.account.accountKey)).set(bearer(token)).set('Content-Type', 'application/json').set('Content-Encoding', 'gzip').serialize((body: Buffer) => body as unknown as string).send(gzipped);
    expect(response.status, JSON.stringify(response.body)).toBe(201);
  });

  it('accepts a name of exactly 64 characters', async () => {
    const h = await createResourceHarness();
    expect((await create(h, await h.tokenFor(h.admin), 'x'.repeat(64))).name).toHaveLength(64);
  });

  it('deletes a name (204) and the values of it on every user', async () => {
    const h = await createResourceHarness();
    const token = await h.tokenFor(h.admin);
    const department = await create(h, token, 'department');
    const division = await create(h, token, 'division');
    for (const user of [h.admin, h.member]) {
      const set = await h.http
        .put(userValues(h.account.accountKey, user.userKey))
        .set(bearer(token))
        .send([{ key: department.key, value: 'Sales' }, { key: division.key, value: 'North' }]);
      expect(set.status).toBe(204);
    }
    const response = await h.http.delete(item(h.account.accountKey, department.key)).set(bearer(token));
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    expectMatchesOpenApi(response, 'delete', ITEM);

    for (const user of [h.admin, h.member]) {
      expect(await h.t.repositories.attributes.listUserValues(h.account.accountKey, user.userKey)).toEqual([{ key: division.key, name: 'division', value: 'North' }]);
    }
    const gone = await h.http.get(item(h.account.accountKey, department.key)).set(bearer(token));
    expect(gone.status).toBe(404);
    expectMatchesOpenApi(gone, 'get', ITEM);
    const again = await h.http.delete(item(h.account.accountKey, department.key)).set(bearer(token));
    expect(again.status).toBe(404);
    expectMatchesOpenApi(again, 'delete', ITEM);
  });

  it('answers 404 for an unknown attribute key on read, rename and delete', async () => {
    const h = await createResourceHarness();
    const token = await h.tokenFor(h.admin);
    const read = await h.http.get(item(h.account.accountKey, 'nope')).set(bearer(token));
    const rename = await h.http.put(item(h.account.accountKey, 'nope')).set(bearer(token)).send({ name: 'x' });
    for (const [response, method] of [[read, 'get'], [rename, 'put']] as const) {
      expect(response.status).toBe(404);
      expect(response.body.errorCode).toBe('NOT_FOUND');
      expectMatchesOpenApi(response, method, ITEM);
    }
  });
});

describe('user attribute values', () => {
  it('sets values (204), reads them back (200 [{ key, name, value }]) and removes one with null', async () => {
    const h = await createResourceHarness();
    const token = await h.tokenFor(h.admin);
    const department = await create(h, token, 'department');
    const division = await create(h, token, 'division');
    const path = userValues(h.account.accountKey, h.member.userKey);

    const set = await h.http.put(path).set(bearer(token)).send([{ key: department.key, value: 'Sales' }, { key: division.key, value: 'North' }]);
    expect(set.status).toBe(204);
    expect(set.text).toBe('');
    expectMatchesOpenApi(set, 'put', USER_VALUES);

    const read = await h.http.get(path).set(bearer(token));
    expect(read.status).toBe(200);
    expect(read.body).toEqual([
      { key: department.key, name: 'department', value: 'Sales' },
      { key: division.key, name: 'division', value: 'North' },
    ]);
    expectMatchesOpenApi(read, 'get', USER_VALUES);

    const remove = await h.http.put(path).set(bearer(token)).send([{ key: department.key, value: null }]);
    expect(remove.status).toBe(204);
    expectMatchesOpenApi(remove, 'put', USER_VALUES);
    const after = await h.http.get(path).set(bearer(token));
    expect(after.body).toEqual([{ key: division.key, name: 'division', value: 'North' }]);
    expectMatchesOpenApi(after, 'get', USER_VALUES);
  });

  it('refuses an unknown key with 400 naming it, writing nothing (all or nothing)', async () => {
    const h = await createResourceHarness();
    const token = await h.tokenFor(h.admin);
    const department = await create(h, token, 'department');
    const path = userValues(h.account.accountKey, h.member.userKey);
    const response = await h.http.put(path).set(bearer(token)).send([{ key: department.key, value: 'Sales' }, { key: 'no-such-key', value: 'x' }]);
    expect(response.status).toBe(400);
    expect(response.body.errorCode).toBe('INVALID_REQUEST');
    expect(response.body.detail).toContain('no-such-key');
    expect(JSON.stringify(response.body.invalidParams)).toContain('no-such-key');
    expectMatchesOpenApi(response, 'put', USER_VALUES);
    expect(await h.t.repositories.attributes.listUserValues(h.account.accountKey, h.member.userKey)).toEqual([]);
  });

  it('refuses wrong shapes and values with 400 naming the entry, writing nothing', async () => {
    const h = await createResourceHarness();
    const token = await h.tokenFor(h.admin);
    const department = await create(h, token, 'department');
    const path = userValues(h.account.accountKey, h.member.userKey);
    const cases: Array<[unknown, string]> = [
      [{ key: department.key, value: 'x' }, 'body'],
      [[{ key: department.key }], '[0].value'],
      [[{ key: department.key, value: 5 }], '[0].value'],
      [[{ value: 'x' }], '[0].key'],
      [[{ key: department.key, value: 'x', extra: true }], '[0].extra'],
      [[{ key: department.key, value: 'x'.repeat(1025) }], '[0].value'],
      [[{ key: department.key, value: 'a' }, { key: department.key, value: 'b' }], '[1].key'],
      [['department'], '[0]'],
    ];
    for (const [body, field] of cases) {
      const response = await h.http.put(path).set(bearer(token)).send(body as object);
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(response.body.invalidParams.map((param: { name: string }) => param.name), JSON.stringify(body).slice(0, 80)).toContain(field);
      expectMatchesOpenApi(response, 'put', USER_VALUES);
    }
    expect(await h.t.repositories.attributes.listUserValues(h.account.accountKey, h.member.userKey)).toEqual([]);
  });

  it('accepts a value of exactly 1024 characters', async () => {
    const h = await createResourceHarness();
    const token = await h.tokenFor(h.admin);
    const department = await create(h, token, 'department');
    const response = await h.http.put(userValues(h.account.accountKey, h.member.userKey)).set(bearer(token)).send([{ key: department.key, value: 'v'.repeat(1024) }]);
    expect(response.status).toBe(204);
  });

  it('answers 404 for a user who is not in the account', async () => {
    const h = await createResourceHarness();
    const token = await h.tokenFor(h.admin);
    const department = await create(h, token, 'department');
    for (const userKey of [h.outsider.userKey, 'no-such-user']) {
      const put = await h.http.put(userValues(h.account.accountKey, userKey)).set(bearer(token)).send([{ key: department.key, value: 'x' }]);
      expect(put.status).toBe(404);
      expectMatchesOpenApi(put, 'put', USER_VALUES);
      const get = await h.http.get(userValues(h.account.accountKey, userKey)).set(bearer(token));
      expect(get.status).toBe(404);
      expectMatchesOpenApi(get, 'get', USER_VALUES);
    }
    expect(await h.t.repositories.attributes.listUserValues(h.account.accountKey, h.outsider.userKey)).toEqual([]);
  });
});

describe('who may administer attributes', () => {
  type Call = { method: 'get' | 'post' | 'put' | 'delete'; template: string; path: (accountKey: string, key: string, userKey: string) => string; body?: unknown };
  const calls: Call[] = [
    { method: 'post', template: COLLECTION, path: (a) => collection(a), body: { name: 'new name' } },
    { method: 'get', template: COLLECTION, path: (a) => collection(a) },
    { method: 'get', template: ITEM, path: (a, k) => item(a, k) },
    { method: 'put', template: ITEM, path: (a, k) => item(a, k), body: { name: 'renamed' } },
    { method: 'delete', template: ITEM, path: (a, k) => item(a, k) },
    { method: 'put', template: USER_VALUES, path: (a, k, u) => userValues(a, u), body: [] },
    { method: 'get', template: USER_VALUES, path: (a, k, u) => userValues(a, u) },
  ];

  async function seeded() {
    const h = await createResourceHarness();
    const attribute = await create(h, await h.tokenFor(h.admin), 'department');
    return { h, attribute };
  }

  it('gives a member of the account 403 FORBIDDEN on all seven routes, changing nothing', async () => {
    const { h, attribute } = await seeded();
    const token = await h.tokenFor(h.member);
    for (const call of calls) {
      const request = h.http[call.method](call.path(h.account.accountKey, attribute.key, h.member.userKey)).set(bearer(token));
      const response = call.body === undefined ? await request : await request.send(call.body as object);
      expect(response.status, `${call.method} ${call.template}`).toBe(403);
      expect(response.body.errorCode).toBe('FORBIDDEN');
      expect(response.headers['www-authenticate']).toBeUndefined();
      expectMatchesOpenApi(response, call.method, call.template);
    }
    expect(await namesIn(h)).toEqual(['department']);
  });

  it('gives a non-member and an unknown account the same 404 on all seven routes', async () => {
    const { h, attribute } = await seeded();
    const outsiderToken = await h.tokenFor(h.outsider);
    const adminToken = await h.tokenFor(h.admin);
    const attempts: Array<[string, string]> = [
      [outsiderToken, h.account.accountKey],
      [adminToken, 'no-such-account'],
    ];
    const bodies = new Set<string>();
    for (const [token, accountKey] of attempts) {
      for (const call of calls) {
        const request = h.http[call.method](call.path(accountKey, attribute.key, h.member.userKey)).set(bearer(token));
        const response = call.body === undefined ? await request : await request.send(call.body as object);
        expect(response.status, `${call.method} ${call.template} on ${accountKey}`).toBe(404);
        expect(response.body.errorCode).toBe('NOT_FOUND');
        expectMatchesOpenApi(response, call.method, call.template);
        bodies.add(`${call.method} ${call.template} ${JSON.stringify(response.body)}`);
      }
    }
    // No existence leak: an existing account the user is not in reads exactly like an unknown one.
    expect(bodies.size).toBe(calls.length);
    expect(await namesIn(h)).toEqual(['department']);
  });

  it('needs admin.v1.attributes.read to read and admin.v1.attributes.write to write (write does not imply read)', async () => {
    const { h, attribute } = await seeded();
    const readOnly = await h.tokenFor(h.admin, 'admin.v1.attributes.read');
    const writeOnly = await h.tokenFor(h.admin, 'admin.v1.attributes.write');
    for (const call of calls) {
      const needed = call.method === 'get' ? 'admin.v1.attributes.read' : 'admin.v1.attributes.write';
      const token = needed === 'admin.v1.attributes.read' ? writeOnly : readOnly;
      const request = h.http[call.method](call.path(h.account.accountKey, attribute.key, h.member.userKey)).set(bearer(token));
      const response = call.body === undefined ? await request : await request.send(call.body as object);
      expect(response.status, `${call.method} ${call.template}`).toBe(403);
      expect(response.body).toMatchObject({ errorCode: 'AUTHZ_INSUFFICIENT_SCOPE', scope: needed });
      expect(response.headers['www-authenticate']).toBe(`Bearer realm="gatehouse", error="insufficient_scope", scope="${needed}"`);
      expectMatchesOpenApi(response, call.method, call.template);
    }
    expect(await namesIn(h)).toEqual(['department']);
  });

  it('refuses a request without a token on all seven routes with 401', async () => {
    const { h, attribute } = await seeded();
    for (const call of calls) {
      const request = h.http[call.method](call.path(h.account.accountKey, attribute.key, h.member.userKey));
      const response = call.body === undefined ? await request : await request.send(call.body as object);
      expect(response.status).toBe(401);
      expect(response.headers['www-authenticate']).toBe('Bearer realm="gatehouse"');
      expectMatchesOpenApi(response, call.method, call.template);
    }
  });
});
