// The orders service's own rules, tested with Gatehouse's test kit (@gatehouse/core/testing):
// an in-memory Gatehouse with a controllable clock, on the service's real user directory and
// scopes. `npm test` (node --test) runs these; no server, no network.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createGatehouse, DomainError, OAuthError } from '@gatehouse/core';
import { createTestGatehouse } from '@gatehouse/core/testing';
import { createGatehouseRouter, GatehouseSetupError, startMaintenance } from '@gatehouse/http-express';
import { openSqliteStorage, UserTablesOffError } from '@gatehouse/storage-sqlite';
import { createOrdersApp } from '../src/app.js';
import { openOrdersDatabase } from '../src/database.js';
import { createOrdersGatehouse, openOrdersStorage, ORDERS_SCOPES, ordersSettings } from '../src/gatehouse.js';
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

// Issue #30, points 3 and 6: the production wiring the packages give a host.
describe("Gatehouse's storage in the service's database", () => {
  it('keeps only the authorization server\'s tables, prefixed gh_, beside the service\'s users and sessions', async () => {
    const db = openOrdersDatabase(':memory:');
    const storage = await openOrdersStorage(db, undefined);
    await storage.migrate();
    const tables = /** @type {Array<{ name: string }>} */ (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all()).map((row) => row.name);
    assert.deepEqual(tables.filter((name) => !name.startsWith('gh_')), ['orders', 'sessions', 'users']);
    assert.ok(tables.includes('gh_clients') && tables.includes('gh_sessions'));
    assert.ok(!tables.includes('gh_users') && !tables.includes('gh_accounts') && !tables.includes('gh_messages'));
    await assert.rejects(storage.repositories.users.findByKey('1'), (error) => error instanceof UserTablesOffError);
    await storage.close();
  });

  it('stores the signing keys encrypted under ORDERS_KEY_SECRET', async () => {
    const db = openOrdersDatabase(':memory:');
    const { gatehouse, storage } = await createOrdersGatehouse({ db, issuer: ISSUER, keySecret: 'an orders key secret of 32+ characters' });
    await gatehouse.currentSigningKeyId();
    const rows = /** @type {Array<{ private_jwk: string }>} */ (db.prepare('SELECT private_jwk FROM gh_signing_keys').all());
    assert.ok(rows.length > 0);
    for (const row of rows) {
      assert.match(row.private_jwk, /gatehouse-aes-256-gcm-v1/);
      assert.doesNotMatch(row.private_jwk, /"d"/);
    }
    await storage.close();
  });

  it("refuses to start Gatehouse's router on a storage several instances share without a csrfKey", async () => {
    const db = openOrdersDatabase(':memory:');
    const storage = await openSqliteStorage({ database: db, sharedByInstances: true });
    const gatehouse = createGatehouse({ repositories: storage.repositories, settings: ordersSettings(ISSUER), clock: { now: () => new Date() }, userDirectory: createUserDirectory(db) });
    assert.throws(() => createGatehouseRouter({ gatehouse, storage }), (error) => error instanceof GatehouseSetupError && /no csrfKey was given/.test(error.message));
    await storage.close();
  });

  it('purges on the maintenance runner, and a failed purge is logged, not thrown', async () => {
    /** @type {string[]} */
    const logged = [];
    /** @type {(value?: unknown) => void} */
    let twice = () => undefined;
    const done = new Promise((resolve) => (twice = resolve));
    let runs = 0;
    const maintenance = startMaintenance({
      intervalMs: 5,
      logger: { info: (_obj, msg) => void logged.push(String(msg)), warn: () => undefined, error: (_obj, msg) => void logged.push(String(msg)) },
      purge: async () => {
        runs += 1;
        if (runs === 2) twice();
        if (runs === 1) throw new Error('database is down');
        return { codes: 0 };
      },
    });
    // The runner's timer is unref'd (it never keeps a process alive): this deadline keeps the test's.
    const deadline = setTimeout(() => twice(), 30_000);
    await done;
    clearTimeout(deadline);
    await maintenance.stop();
    assert.ok(runs >= 2);
    assert.equal(logged[0], 'purge failed');
  });
});
