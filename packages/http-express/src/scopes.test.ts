import { DEFAULT_SCOPES } from '@gatehouse/core';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { fieldError, registerThroughPortal, scopeFields } from './portal/test-support/portal-helpers.js';
import { authorizePath, createTestApp } from './test-support/index.js';

/** An embedder's own scope beside the built-in four (docs/decisions/0015-scopes-are-configuration.md). */
const ORDERS = { scope: 'orders.v1.read', description: 'See the orders you placed & their status' };

async function ordersApp() {
  const t = await createTestApp({ settings: { scopes: [...DEFAULT_SCOPES, ORDERS] } });
  await t.seedUser({ email: 'ada@example.com' });
  return t;
}

describe('a configured scope catalogue over HTTP', () => {
  it('the metadata lists the configured scopes in scopes_supported', async () => {
    const t = await ordersApp();
    const { body } = await request(t.app).get('/.well-known/oauth-authorization-server').expect(200);
    expect(body.scopes_supported).toEqual([...DEFAULT_SCOPES.map((entry) => entry.scope), 'orders.v1.read']);
  });

  it('the metadata of a catalogue without the built-in scopes lists only its own', async () => {
    const t = await createTestApp({ settings: { scopes: [ORDERS] } });
    const { body } = await request(t.app).get('/.well-known/oauth-authorization-server').expect(200);
    expect(body.scopes_supported).toEqual(['orders.v1.read']);
  });

  it('the consent page shows the configured description of a custom scope', async () => {
    const t = await ordersApp();
    const { client } = await t.seedClient({ name: 'Orders app', scopes: ['orders.v1.read'] });
    const browser = await t.signedInBrowser('ada@example.com');
    const res = await browser.get(authorizePath(client, { scope: 'orders.v1.read', state: 'abc' })).expect(200);
    expect(res.text).toContain('<li>See the orders you placed &amp; their status<code>orders.v1.read</code></li>');
    const { code } = await browser.authorize(client, { scope: 'orders.v1.read' });
    expect(code).toBeDefined();
  });

  it('authorize refuses a scope outside the configured catalogue with invalid_scope', async () => {
    const t = await createTestApp({ settings: { scopes: [ORDERS] } });
    const { client } = await t.seedClient({ scopes: ['orders.v1.read'] });
    const browser = await t.signedInBrowser((await t.seedUser()).email);
    const res = await browser.get(authorizePath(client, { scope: 'messaging.v1.send', state: 'abc' })).expect(302);
    expect(new URL(res.headers.location as string).searchParams.get('error')).toBe('invalid_scope');
  });

  it('the portal offers the custom scope with its words, registers a client with it and describes it', async () => {
    const t = await ordersApp();
    const browser = await t.signedInBrowser('ada@example.com');
    const form = await browser.get('/portal/clients/new').expect(200);
    expect(form.text).toContain('<input type="checkbox" name="scope_orders.v1.read" value="on"><span>See the orders you placed &amp; their status<code>orders.v1.read</code></span>');
    const { clientId } = await registerThroughPortal(browser, { name: 'Orders app', scopes: ['orders.v1.read'] });
    expect((await t.gatehouse.listClients()).find((client) => client.clientId === clientId)?.scopes).toEqual(['orders.v1.read']);
    const detail = await browser.get(`/portal/clients/${clientId}`).expect(200);
    expect(detail.text).toContain('<li>See the orders you placed &amp; their status <span class="tag">orders.v1.read</span></li>');
    const list = await browser.get('/portal/clients').expect(200);
    expect(list.text).toContain('<span class="tag" title="See the orders you placed &amp; their status">orders.v1.read</span>');
  });

  it('the portal form of a catalogue without the built-in scopes offers only its own, and refuses the others', async () => {
    const t = await createTestApp({ settings: { scopes: [ORDERS] } });
    await t.seedUser({ email: 'ada@example.com' });
    const browser = await t.signedInBrowser('ada@example.com');
    const form = await browser.get('/portal/clients/new').expect(200);
    expect(form.text).toContain('name="scope_orders.v1.read"');
    expect(form.text).not.toContain('name="scope_messaging.v1.send"');
    const refused = await browser.postForm('/portal/clients', { name: 'X', redirect_uris: 'https://x.example/cb', ...scopeFields(['messaging.v1.send']) });
    expect(refused.status).toBe(400);
    expect(fieldError(refused.text, 'scopes')).toBe('The scope messaging.v1.send is not in the catalogue.');
    expect(await t.gatehouse.listClients()).toEqual([]);
  });

  it('authorized apps describe a custom scope in its configured words', async () => {
    const t = await ordersApp();
    const { client, clientSecret } = await t.seedClient({ name: 'Orders app', scopes: ['orders.v1.read'] });
    const { browser } = await t.tokensOverHttp({ client, clientSecret, email: 'ada@example.com' });
    const page = await browser.get('/portal/authorized-apps').expect(200);
    expect(page.text).toContain('<li>See the orders you placed &amp; their status</li>');
  });
});
