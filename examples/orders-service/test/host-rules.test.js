// The orders service's own rules, tested with Gatehouse's test kit (@gatehouse/core/testing):
// an in-memory Gatehouse with a controllable clock, on the service's real user directory and
// scopes. `npm test` (node --test) runs these; no server, no network.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DomainError, OAuthError } from '@gatehouse/core';
import { createTestGatehouse } from '@gatehouse/core/testing';
import { createOrdersApp } from '../src/app.js';
import { openOrdersDatabase } from '../src/database.js';
import { ORDERS_SCOPES } from '../src/gatehouse.js';
import { placeOrder } from '../src/orders.js';
import { checkPassword, createUser, createUserDirectory, deleteUser } from '../src/users.js';

const ISSUER = 'http://127.0.0.1/auth';

async function setup() {
  const db = openOrdersDatabase(':memory:');
  const ada = await createUser(db, { email: 'ada@orders.example', password: 'ada-password', givenName: 'Ada', familyName: 'Lovelace' });
  const bob = await createUser(db, { email: 'bob@orders.example', password: 'bob-password', givenName: 'Bob', familyName: 'Babbage' });
  const t = await createTestGatehouse({ userDirectory: createUserDirectory(db), settings: { issuer: ISSUER, scopes: ORDERS_SCOPES } });
  const { client } = await t.seedClient({ name: 'Orders app', redirectUris: ['https://app.example/callback'], scopes: ['orders.v1.read', 'orders.v1.write'] });
  return { db, ada, bob, t, client };
}

describe('the orders service\'s users in Gatehouse', () => {
  it('gives tokens whose subject is the users table\'s id and whose principal is the e-mail', async () => {
    const { ada, t, client } = await setup();
    const { tokens } = await t.obtainTokensViaHostLogin({ client, userKey: String(ada.id), scope: 'orders.v1.read' });
    assert.equal(tokens.principal, 'ada@orders.example');
    const verified = await t.gatehouse.verifyAccessToken(tokens.access_token);
    assert.equal(verified.userKey, String(ada.id));
    assert.deepEqual(verified.scopes, ['orders.v1.read']);
  });

  it('signs in no one the users table does not know', async () => {
    const { t } = await setup();
    const { loginRequest } = await t.gatehouse.startLogin({ returnTo: '/auth/oauth/authorize?client_id=x' });
    await assert.rejects(t.gatehouse.completeLogin({ loginRequest, userKey: '999', authenticatedAt: t.gatehouse.clock.now() }), (error) => error instanceof DomainError && error.kind === 'unauthenticated');
    await assert.rejects(t.gatehouse.completeLogin({ loginRequest, userKey: 'not-a-number', authenticatedAt: t.gatehouse.clock.now() }), (error) => error instanceof DomainError);
  });

  it('forgets a user it deletes: their access token is refused at once, the other user\'s works', async () => {
    const { db, ada, bob, t, client } = await setup();
    const adas = await t.obtainTokensViaHostLogin({ client, userKey: String(ada.id), scope: 'orders.v1.read' });
    const bobs = await t.obtainTokensViaHostLogin({ client, userKey: String(bob.id), scope: 'orders.v1.read' });
    assert.equal(deleteUser(db, ada.id), true);
    const forgotten = await t.gatehouse.forgetUser(String(ada.id));
    assert.equal(forgotten.grants, 1);
    await assert.rejects(t.gatehouse.verifyAccessToken(adas.tokens.access_token), (error) => error instanceof OAuthError && error.code === 'invalid_token');
    assert.equal((await t.gatehouse.verifyAccessToken(bobs.tokens.access_token)).userKey, String(bob.id));
  });

  it('checks passwords itself (scrypt), whichever of e-mail or password is wrong', async () => {
    const { db, ada } = await setup();
    assert.deepEqual(await checkPassword(db, 'ADA@orders.example', 'ada-password'), ada);
    assert.equal(await checkPassword(db, 'ada@orders.example', 'bob-password'), undefined);
    assert.equal(await checkPassword(db, 'nobody@orders.example', 'ada-password'), undefined);
    const { password_hash: stored } = /** @type {{ password_hash: string }} */ (db.prepare('SELECT password_hash FROM users WHERE id = ?').get(ada.id));
    assert.match(stored, /^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
  });
});

describe('the orders scopes', () => {
  it('grants orders.v1.read only when the client asks for it', async () => {
    const { ada, t, client } = await setup();
    const writeOnly = await t.obtainTokensViaHostLogin({ client, userKey: String(ada.id), scope: 'orders.v1.write' });
    assert.deepEqual((await t.gatehouse.verifyAccessToken(writeOnly.tokens.access_token)).scopes, ['orders.v1.write']);
    // No scope parameter: every scope the client is registered with (docs/decisions/0015).
    const all = await t.obtainTokensViaHostLogin({ client, userKey: String(ada.id) });
    assert.deepEqual((await t.gatehouse.verifyAccessToken(all.tokens.access_token)).scopes.sort(), ['orders.v1.read', 'orders.v1.write']);
  });

  it('refuses orders.v1.read to a client registered without it', async () => {
    const { ada, t } = await setup();
    const { client } = await t.seedClient({ redirectUris: ['https://other.example/callback'], scopes: ['orders.v1.write'] });
    await assert.rejects(t.obtainTokensViaHostLogin({ client, userKey: String(ada.id), scope: 'orders.v1.read' }), (error) => error instanceof OAuthError && error.code === 'invalid_scope');
  });

  it('offers only the service\'s scopes, with the words of the consent page', async () => {
    const { t } = await setup();
    assert.deepEqual(t.settings.scopes, [
      { scope: 'orders.v1.read', description: 'See your orders' },
      { scope: 'orders.v1.write', description: 'Place orders for you' },
    ]);
  });
});

describe('GET /orders', () => {
  it('answers the orders of the token\'s user only, and 403 to a token without orders.v1.read', async () => {
    const { db, ada, bob, t, client } = await setup();
    placeOrder(db, { userId: ada.id, item: 'Green tea', quantity: 2, placedAt: new Date('2026-01-02T03:04:05Z') });
    placeOrder(db, { userId: bob.id, item: 'Gears', quantity: 9 });
    const server = createOrdersApp({ db, gatehouse: t.gatehouse }).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const address = /** @type {import('node:net').AddressInfo} */ (server.address());
      const ordersUrl = `http://127.0.0.1:${address.port}/orders`;
      const read = await t.obtainTokensViaHostLogin({ client, userKey: String(ada.id), scope: 'orders.v1.read' });
      const ok = await fetch(ordersUrl, { headers: { Authorization: `Bearer ${read.tokens.access_token}` } });
      assert.equal(ok.status, 200);
      assert.deepEqual(await ok.json(), { orders: [{ id: 1, item: 'Green tea', quantity: 2, placedAt: '2026-01-02T03:04:05.000Z' }] });

      const write = await t.obtainTokensViaHostLogin({ client, userKey: String(ada.id), scope: 'orders.v1.write' });
      const refused = await fetch(ordersUrl, { headers: { Authorization: `Bearer ${write.tokens.access_token}` } });
      assert.equal(refused.status, 403);
      assert.equal(refused.headers.get('www-authenticate'), 'Bearer realm="orders", error="insufficient_scope", scope="orders.v1.read"');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
