import { describe, expect, it } from 'vitest';
import { createControllableClock, createFastPasswordHasher, createMemoryRepositories, createRecordingTransport, createTestGatehouse } from '@gatehouse/core/testing';
import { createGatehouse } from '../gatehouse.js';
import { createProductApi } from './create-product-api.js';
import { defineSettings } from '../settings.js';
import { expectDomainError } from '../test-support/rejections.js';

const OWN = '+15551234567';
const CONTACT = '+15557654321';

async function setup() {
  const t = await createTestGatehouse();
  const user = await t.seedUser({ phone: OWN });
  const other = await t.seedUser({ phone: '+15550000000' });
  return { t, user, other };
}

describe('sendMessage', () => {
  it('sends through the transport and stores the record with the transport\'s status', async () => {
    const { t, user } = await setup();
    const message = await t.product.sendMessage(user.userKey, { ownerPhoneNumber: OWN, contactPhoneNumbers: [CONTACT], body: 'Hello' });
    expect(message).toEqual({
      id: expect.any(String),
      ownerPhoneNumber: OWN,
      contactPhoneNumbers: [CONTACT],
      body: 'Hello',
      direction: 'OUT',
      authorUserKey: user.userKey,
      timestamp: t.clock.now(),
      status: 'SENT',
    });
    expect(t.transport.sent).toEqual([{ ...message, status: 'QUEUED' }]);
    expect(await t.repositories.messages.listByOwner(OWN, { limit: 10 })).toEqual([message]);
  });

  it('refuses an owner number that is not the user\'s (forbidden) and sends nothing', async () => {
    const { t, user } = await setup();
    await expectDomainError(t.product.sendMessage(user.userKey, { ownerPhoneNumber: '+15550000000', contactPhoneNumbers: [CONTACT], body: 'Hi' }), 'forbidden', 'ownerPhoneNumber');
    expect(t.transport.sent).toEqual([]);
  });

  it('checks E.164 numbers, 1 to 10 contacts and a body of 1 to 1600 characters', async () => {
    const { t, user } = await setup();
    const send = (input: Partial<{ ownerPhoneNumber: string; contactPhoneNumbers: string[]; body: string }>) =>
      t.product.sendMessage(user.userKey, { ownerPhoneNumber: OWN, contactPhoneNumbers: [CONTACT], body: 'Hi', ...input });
    await expectDomainError(send({ ownerPhoneNumber: '5551234567' }), 'invalid', 'ownerPhoneNumber');
    await expectDomainError(send({ contactPhoneNumbers: [] }), 'invalid', 'contactPhoneNumbers');
    const eleven = Array.from({ length: 11 }, (_, i) => `+1555000${String(i).padStart(4, '0')}`);
    await expectDomainError(send({ contactPhoneNumbers: eleven }), 'invalid', 'contactPhoneNumbers');
    await expectDomainError(send({ contactPhoneNumbers: [CONTACT, '+0123'] }), 'invalid', 'contactPhoneNumbers[1]');
    await expectDomainError(send({ body: '' }), 'invalid', 'body');
    await expectDomainError(send({ body: 'x'.repeat(1601) }), 'invalid', 'body');
    expect(t.transport.sent).toEqual([]);

    expect((await send({ contactPhoneNumbers: eleven.slice(0, 10) })).contactPhoneNumbers).toHaveLength(10);
    expect((await send({ body: 'x'.repeat(1600) })).body).toHaveLength(1600);
    expect(t.transport.sent).toHaveLength(2);
    // Characters, not UTF-16 units: 1600 emoji are 1600 characters; a lone surrogate is no text.
    expect([...(await send({ body: '😀'.repeat(1600) })).body]).toHaveLength(1600);
    await expectDomainError(send({ body: '😀'.repeat(1601) }), 'invalid', 'body');
    await expectDomainError(send({ body: 'hi \ud83d' }), 'invalid', 'body');
    expect(t.transport.sent).toHaveLength(3);
  });

  it('refuses a contact listed twice, a body of spaces only and control characters other than line breaks and tabs', async () => {
    const { t, user } = await setup();
    const send = (input: Partial<{ contactPhoneNumbers: string[]; body: string }>) =>
      t.product.sendMessage(user.userKey, { ownerPhoneNumber: OWN, contactPhoneNumbers: [CONTACT], body: 'Hi', ...input });
    await expectDomainError(send({ contactPhoneNumbers: [CONTACT, '+15550001111', CONTACT] }), 'invalid', 'contactPhoneNumbers[2]');
    for (const body of ['   ', '\n\t ', 'a\u0000b', 'bell\u0007', 'del\u007f', 'c1\u0085']) await expectDomainError(send({ body }), 'invalid', 'body');
    expect(t.transport.sent).toEqual([]);
    expect((await send({ body: 'Line one\r\nline two\tend' })).body).toBe('Line one\r\nline two\tend');
    expect(t.transport.sent).toHaveLength(1);
  });

  it('stores the status the transport reports', async () => {
    const transport = createRecordingTransport('FAILED');
    const repositories = createMemoryRepositories();
    const passwords = createFastPasswordHasher();
    const gatehouse = createGatehouse({ repositories, settings: defineSettings({ issuer: 'http://localhost:3000' }), clock: createControllableClock(), passwords });
    const product = createProductApi({ gatehouse, repositories, transport, passwords });
    const user = await product.createUser({ email: 'ada@example.com', password: 'password123' });
    await product.addPhoneNumber({ userKey: user.userKey, phoneNumber: OWN });
    const message = await product.sendMessage(user.userKey, { ownerPhoneNumber: OWN, contactPhoneNumbers: [CONTACT], body: 'Hi' });
    expect(message.status).toBe('FAILED');
    expect(transport.sent).toHaveLength(1);
  });
});

describe('listMessages', () => {
  it('pages newest first with nextPageMarker until the end', async () => {
    const { t, user } = await setup();
    const sent = [];
    for (let i = 0; i < 5; i += 1) {
      sent.push(await t.product.sendMessage(user.userKey, { ownerPhoneNumber: OWN, contactPhoneNumbers: [CONTACT], body: `m${i}` }));
      // Two messages share each instant: the marker must still order them.
      if (i % 2 === 1) t.clock.advance(1);
    }
    const newestFirst = [...sent].reverse().map((message) => message.body);

    const seen: string[] = [];
    let marker: string | undefined;
    let pages = 0;
    do {
      const page = await t.product.listMessages(user.userKey, { ownerPhoneNumber: OWN, pageSize: 2, ...(marker ? { pageMarker: marker } : {}) });
      seen.push(...page.items.map((message) => message.body));
      marker = page.nextPageMarker ?? undefined;
      if (marker !== undefined) expect(marker).toMatch(/^[A-Za-z0-9_-]+$/);
      pages += 1;
    } while (marker !== undefined && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toEqual(newestFirst);
  });

  it('gives a null marker when everything fits, and the default page size is 50', async () => {
    const { t, user } = await setup();
    await t.product.sendMessage(user.userKey, { ownerPhoneNumber: OWN, contactPhoneNumbers: [CONTACT], body: 'only' });
    expect(await t.product.listMessages(user.userKey, { ownerPhoneNumber: OWN })).toEqual({ items: [expect.objectContaining({ body: 'only' })], nextPageMarker: null });
  });

  it('lists only the messages of the number asked for', async () => {
    const { t, user } = await setup();
    await t.product.addPhoneNumber({ userKey: user.userKey, phoneNumber: '+15559999999' });
    await t.product.sendMessage(user.userKey, { ownerPhoneNumber: OWN, contactPhoneNumbers: [CONTACT], body: 'from the first' });
    await t.product.sendMessage(user.userKey, { ownerPhoneNumber: '+15559999999', contactPhoneNumbers: [CONTACT], body: 'from the second' });
    expect((await t.product.listMessages(user.userKey, { ownerPhoneNumber: '+15559999999' })).items.map((message) => message.body)).toEqual(['from the second']);
  });

  it('refuses a bad marker, a bad page size, a malformed number and someone else\'s number', async () => {
    const { t, user } = await setup();
    const list = (input: { ownerPhoneNumber?: string; pageSize?: number; pageMarker?: string }) =>
      t.product.listMessages(user.userKey, { ownerPhoneNumber: OWN, ...input });
    for (const pageMarker of ['', 'not base64!', Buffer.from('12:../etc').toString('base64url'), Buffer.from('abc:id1').toString('base64url'), 'x'.repeat(300)]) {
      await expectDomainError(list({ pageMarker }), 'invalid', 'pageMarker');
    }
    await expectDomainError(list({ pageSize: 0 }), 'invalid', 'pageSize');
    await expectDomainError(list({ pageSize: 101 }), 'invalid', 'pageSize');
    await expectDomainError(list({ pageSize: 2.5 }), 'invalid', 'pageSize');
    await expectDomainError(list({ ownerPhoneNumber: 'abc' }), 'invalid', 'ownerPhoneNumber');
    await expectDomainError(list({ ownerPhoneNumber: '+15550000000' }), 'forbidden', 'ownerPhoneNumber');
  });
});
