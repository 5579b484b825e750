import { describe, expect, it } from 'vitest';
import { ADMIN_PHONE, MEMBER_PHONE, bearer, createResourceHarness, type ResourceHarness } from './test-support/harness.js';
import { expectMatchesOpenApi } from './test-support/openapi.js';

const MESSAGES = '/messaging/v1/messages';
const CONTACT = '+15557654321';

async function send(h: ResourceHarness, token: string, body: string, owner = ADMIN_PHONE) {
  const response = await h.http.post(MESSAGES).set(bearer(token)).send({ ownerPhoneNumber: owner, contactPhoneNumbers: [CONTACT], body });
  expectMatchesOpenApi(response, 'post', MESSAGES);
  return response;
}

async function stored(h: ResourceHarness, owner = ADMIN_PHONE) {
  return h.t.repositories.messages.listByOwner(owner, { limit: 100 });
}

describe('POST /messaging/v1/messages', () => {
  it('sends from one of the user\'s numbers and answers 201 with the message record', async () => {
    const h = await createResourceHarness();
    const token = await h.tokenFor(h.admin, 'messaging.v1.send');
    const response = await h.http
      .post(MESSAGES)
      .set(bearer(token))
      .send({ ownerPhoneNumber: ADMIN_PHONE, contactPhoneNumbers: [CONTACT, '+442071838750'], body: 'Hello from Gatehouse' });
    expect(response.status).toBe(201);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.body).toEqual({
      id: expect.any(String),
      ownerPhoneNumber: ADMIN_PHONE,
      contactPhoneNumbers: [CONTACT, '+442071838750'],
      body: 'Hello from Gatehouse',
      direction: 'OUT',
      authorUserKey: h.admin.userKey,
      timestamp: h.t.clock.now().toISOString(),
      status: 'SENT',
    });
    expectMatchesOpenApi(response, 'post', MESSAGES);
    expect(h.t.transport.sent.map((message) => message.id)).toEqual([response.body.id]);
    expect((await stored(h)).map((message) => message.id)).toEqual([response.body.id]);
  });

  it('refuses a number that is not the user\'s with 403 FORBIDDEN, sending nothing', async () => {
    const h = await createResourceHarness();
    const response = await send(h, await h.tokenFor(h.admin), 'not mine', MEMBER_PHONE);
    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({ errorCode: 'FORBIDDEN', status: 403 });
    expect(response.headers['www-authenticate']).toBeUndefined();
    expect(h.t.transport.sent).toHaveLength(0);
    expect(await stored(h, MEMBER_PHONE)).toHaveLength(0);
  });

  it('names the field at fault for wrong shapes and values, sending nothing', async () => {
    const h = await createResourceHarness();
    const token = await h.tokenFor(h.admin);
    const cases: Array<[unknown, string]> = [
      [{ contactPhoneNumbers: [CONTACT], body: 'x' }, 'ownerPhoneNumber'],
      [{ ownerPhoneNumber: ADMIN_PHONE, contactPhoneNumbers: CONTACT, body: 'x' }, 'contactPhoneNumbers'],
      [{ ownerPhoneNumber: ADMIN_PHONE, contactPhoneNumbers: [CONTACT, 42], body: 'x' }, 'contactPhoneNumbers[1]'],
      [{ ownerPhoneNumber: ADMIN_PHONE, contactPhoneNumbers: [CONTACT, '5551234'], body: 'x' }, 'contactPhoneNumbers[1]'],
      [{ ownerPhoneNumber: ADMIN_PHONE, contactPhoneNumbers: [], body: 'x' }, 'contactPhoneNumbers'],
      [{ ownerPhoneNumber: ADMIN_PHONE, contactPhoneNumbers: Array.from({ length: 11 }, () => CONTACT), body: 'x' }, 'contactPhoneNumbers'],
      [{ ownerPhoneNumber: ADMIN_PHONE, contactPhoneNumbers: [CONTACT], body: '' }, 'body'],
      [{ ownerPhoneNumber: ADMIN_PHONE, contactPhoneNumbers: [CONTACT], body: 'x'.repeat(1601) }, 'body'],
      [{ ownerPhoneNumber: 'not a number', contactPhoneNumbers: [CONTACT], body: 'x' }, 'ownerPhoneNumber'],
      [{ ownerPhoneNumber: ADMIN_PHONE, contactPhoneNumbers: [CONTACT], body: 'x', priority: 'high' }, 'priority'],
      [[], 'body'],
    ];
    for (const [body, field] of cases) {
      const response = await h.http.post(MESSAGES).set(bearer(token)).send(body as object);
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(response.body.errorCode).toBe('INVALID_REQUEST');
      expect(response.body.invalidParams.map((param: { name: string }) => param.name)).toContain(field);
      expectMatchesOpenApi(response, 'post', MESSAGES);
    }
    expect(h.t.transport.sent).toHaveLength(0);
    expect(await stored(h)).toHaveLength(0);
  });

  it('accepts exactly 10 contacts and 1600 characters', async () => {
    const h = await createResourceHarness();
    const response = await h.http
      .post(MESSAGES)
      .set(bearer(await h.tokenFor(h.admin)))
      .send({ ownerPhoneNumber: ADMIN_PHONE, contactPhoneNumbers: Array.from({ length: 10 }, (_, i) => `+1555765432${i}`), body: 'x'.repeat(1600) });
    expect(response.status).toBe(201);
    expectMatchesOpenApi(response, 'post', MESSAGES);
  });
});

describe('GET /messaging/v1/messages', () => {
  it('lists the messages of one of the user\'s numbers, newest first, page by page', async () => {
    const h = await createResourceHarness();
    const token = await h.tokenFor(h.admin);
    for (const body of ['one', 'two', 'three']) {
      expect((await send(h, token, body)).status).toBe(201);
      h.t.clock.advance(1);
    }
    const first = await h.http.get(MESSAGES).query({ ownerPhoneNumber: ADMIN_PHONE, pageSize: 2 }).set(bearer(token));
    expect(first.status).toBe(200);
    expect(first.headers['cache-control']).toBe('no-store');
    expect(first.body.items.map((message: { body: string }) => message.body)).toEqual(['three', 'two']);
    expect(first.body.nextPageMarker).toEqual(expect.any(String));
    expectMatchesOpenApi(first, 'get', MESSAGES);

    const second = await h.http.get(MESSAGES).query({ ownerPhoneNumber: ADMIN_PHONE, pageSize: 2, pageMarker: first.body.nextPageMarker }).set(bearer(token));
    expect(second.status).toBe(200);
    expect(second.body.items.map((message: { body: string }) => message.body)).toEqual(['one']);
    expect(second.body.nextPageMarker).toBeNull();
    expectMatchesOpenApi(second, 'get', MESSAGES);
  });

  it('needs messaging.v1.read', async () => {
    const h = await createResourceHarness();
    const response = await h.http.get(MESSAGES).query({ ownerPhoneNumber: ADMIN_PHONE }).set(bearer(await h.tokenFor(h.admin, 'messaging.v1.send')));
    expect(response.status).toBe(403);
    expect(response.headers['www-authenticate']).toBe('Bearer realm="gatehouse", error="insufficient_scope", scope="messaging.v1.read"');
    expect(response.body).toMatchObject({ errorCode: 'AUTHZ_INSUFFICIENT_SCOPE', scope: 'messaging.v1.read' });
    expectMatchesOpenApi(response, 'get', MESSAGES);
  });

  it('refuses another user\'s number with 403 FORBIDDEN', async () => {
    const h = await createResourceHarness();
    await send(h, await h.tokenFor(h.member), 'private', MEMBER_PHONE);
    const response = await h.http.get(MESSAGES).query({ ownerPhoneNumber: MEMBER_PHONE }).set(bearer(await h.tokenFor(h.admin)));
    expect(response.status).toBe(403);
    expect(response.body.errorCode).toBe('FORBIDDEN');
    expect(response.text).not.toContain('private');
    expectMatchesOpenApi(response, 'get', MESSAGES);
  });

  it('validates the query: required owner, whole-number page size in range, known markers, no repeats', async () => {
    const h = await createResourceHarness();
    const token = await h.tokenFor(h.admin);
    const cases: Array<[string, string]> = [
      ['', 'ownerPhoneNumber'],
      [`ownerPhoneNumber=${encodeURIComponent(ADMIN_PHONE)}&pageSize=0`, 'pageSize'],
      [`ownerPhoneNumber=${encodeURIComponent(ADMIN_PHONE)}&pageSize=101`, 'pageSize'],
      [`ownerPhoneNumber=${encodeURIComponent(ADMIN_PHONE)}&pageSize=1.5`, 'pageSize'],
      [`ownerPhoneNumber=${encodeURIComponent(ADMIN_PHONE)}&pageSize=ten`, 'pageSize'],
      [`ownerPhoneNumber=${encodeURIComponent(ADMIN_PHONE)}&pageSize=1&pageSize=2`, 'pageSize'],
      [`ownerPhoneNumber=${encodeURIComponent(ADMIN_PHONE)}&pageMarker=bogus!`, 'pageMarker'],
      [`ownerPhoneNumber=${encodeURIComponent(ADMIN_PHONE)}&ownerPhoneNumber=${encodeURIComponent(MEMBER_PHONE)}`, 'ownerPhoneNumber'],
    ];
    for (const [query, field] of cases) {
      const response = await h.http.get(`${MESSAGES}?${query}`).set(bearer(token));
      expect(response.status, query).toBe(400);
      expect(response.body.invalidParams.map((param: { name: string }) => param.name), query).toContain(field);
      expectMatchesOpenApi(response, 'get', MESSAGES);
    }
  });
});
