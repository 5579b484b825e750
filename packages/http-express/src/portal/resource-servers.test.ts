import { DEFAULT_SCOPES } from '@gatehouse/core';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { basicAuth, createTestApp, type TestApp } from '../test-support/index.js';
import { fieldError, scopeFields } from './test-support/portal-helpers.js';

// The portal marks a client as the resource server of configured resources: it may then
// introspect their tokens (RFC 7662 §2.1; docs/decisions/0112-introspection-by-resource-servers.md).

const MCP = 'https://mcp.example.com/mcp';
const SCOPES = [...DEFAULT_SCOPES, { scope: 'orders.v1.read', description: 'See your orders' }];
const RESOURCES = [{ resource: MCP, name: 'Orders MCP', scopes: ['orders.v1.read'] }];

async function signedIn(t: TestApp) {
  const user = await t.seedUser({ email: 'ada@example.com' });
  const browser = await t.signedInBrowser('ada@example.com');
  return { user, browser };
}

const machineFields = { grant_types_offered: 'on', grant_type_client_credentials: 'on', ...scopeFields(['orders.v1.read']) };

describe('portal: resource servers', () => {
  it('offers one box per configured resource, none without resources', async () => {
    const t = await createTestApp({ settings: { scopes: SCOPES, resources: RESOURCES } });
    const { browser } = await signedIn(t);
    const page = await browser.get('/portal/clients/new').expect(200);
    expect(page.text).toContain(`<input type="checkbox" name="resource_server_${MCP}" value="on"><span>Orders MCP<code>${MCP}</code></span>`);
    const plain = await createTestApp();
    const other = await signedIn(plain);
    expect((await other.browser.get('/portal/clients/new').expect(200)).text).not.toContain('resource_server');
  });

  it("never offers Gatehouse's own APIs (the default audience), and refuses them posted anyway: the operator's to mark (docs/decisions/0186)", async () => {
    const OWN = 'http://localhost:3000';
    const t = await createTestApp({ settings: { scopes: SCOPES, resources: [{ resource: OWN, name: 'Gatehouse APIs', scopes: ['messaging.v1.read'] }, ...RESOURCES] } });
    const { user, browser } = await signedIn(t);
    const page = await browser.get('/portal/clients/new').expect(200);
    expect(page.text).toContain(`name="resource_server_${MCP}"`);
    expect(page.text).not.toContain(`name="resource_server_${OWN}"`);
    const posted = await browser.postForm('/portal/clients', { name: 'Snoop', ...machineFields, resource_servers_offered: 'on', [`resource_server_${OWN}`]: 'on' });
    expect(posted.status).toBe(400);
    expect(await t.gatehouse.listClients(user.userKey)).toEqual([]);
    // The operator may.
    const { client } = await t.gatehouse.registerClient({ name: 'Introspector', redirectUris: [], scopes: ['orders.v1.read'], grantTypes: ['client_credentials'], ownerUserKey: null, resourceServerFor: [OWN] });
    expect(client.resourceServerFor).toEqual([OWN]);
  });

  it('registers a resource server that introspects the tokens of its resource, shows it, and keeps it across an edit without the boxes', async () => {
    const t = await createTestApp({ settings: { scopes: SCOPES, resources: RESOURCES } });
    const { user, browser } = await signedIn(t);
    await browser.get('/portal/clients/new').expect(200);
    const created = await browser.postForm('/portal/clients', { name: 'Orders MCP server', ...machineFields, resource_servers_offered: 'on', [`resource_server_${MCP}`]: 'on' });
    expect(created.status, created.text).toBe(303);
    const [server] = await t.gatehouse.listClients(user.userKey);
    expect(server?.resourceServerFor).toEqual([MCP]);
    const secretPage = await browser.get(created.headers.location as string).expect(200);
    const secret = /name="client_secret"[^>]*value="([A-Za-z0-9]+)"/.exec(secretPage.text)?.[1] as string;

    const detail = await browser.get(`/portal/clients/${server?.clientId}`).expect(200);
    expect(detail.text).toContain(`<dt>Resource server of</dt><dd><ul class="plain"><li>Orders MCP <code>${MCP}</code></li></ul>`);
    expect((await browser.get(`/portal/clients/${server?.clientId}/edit`).expect(200)).text).toContain(`name="resource_server_${MCP}" value="on" checked>`);

    // Its secret introspects another client's token for the resource.
    const app = await t.seedClient({ scopes: ['orders.v1.read'] });
    const tokens = await t.obtainTokens({ client: app.client, user, resource: MCP });
    const answer = await request(t.app).post('/oauth/introspect').set('Authorization', basicAuth(server?.clientId as string, secret)).type('form').send({ token: tokens.access_token });
    expect(answer.body).toMatchObject({ active: true, aud: MCP, client_id: app.client.clientId });

    // An edit posted without the boxes (an older form) keeps it; one with the boxes and none ticked clears it.
    const edit = (fields: Record<string, string>) => browser.postForm(`/portal/clients/${server?.clientId}`, { name: 'Orders MCP server', ...machineFields, ...fields });
    expect((await edit({})).status).toBe(303);
    expect((await t.gatehouse.findOwnedClient(user.userKey, server?.clientId as string)).resourceServerFor).toEqual([MCP]);
    expect((await edit({ resource_servers_offered: 'on' })).status).toBe(303);
    expect((await t.gatehouse.findOwnedClient(user.userKey, server?.clientId as string)).resourceServerFor).toBeUndefined();
  });

  it('refuses a public resource server next to the boxes, saving nothing', async () => {
    const t = await createTestApp({ settings: { scopes: SCOPES, resources: RESOURCES } });
    const { user, browser } = await signedIn(t);
    await browser.get('/portal/clients/new').expect(200);
    const res = await browser.postForm('/portal/clients', {
      name: 'SPA',
      client_type: 'public',
      redirect_uris: 'https://spa.example/cb',
      grant_types_offered: 'on',
      grant_type_authorization_code: 'on',
      ...scopeFields(['orders.v1.read']),
      resource_servers_offered: 'on',
      [`resource_server_${MCP}`]: 'on',
    });
    expect(res.status).toBe(400);
    expect(fieldError(res.text, 'resource_servers')).toContain('A public client cannot be a resource server');
    expect(res.text).toContain('href="#resource_servers"');
    expect(await t.gatehouse.listClients(user.userKey)).toEqual([]);
  });
});
