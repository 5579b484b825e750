import { describe, expect, it } from 'vitest';
import { createTestGatehouse } from '@gatehouse/core/testing';
import { DEFAULT_SCOPES } from '../domain/scopes.js';
import { expectDomainError } from '../test-support/rejections.js';

// RFC 7662 §2.1: a client marked as the resource server of configured resources introspects the
// access tokens of those resources, whoever they were issued to
// (docs/decisions/0112-introspection-by-resource-servers.md).

const MCP = 'https://mcp.example.com/mcp';
const REPORTS = 'https://reports.example.com';
const SCOPES = [...DEFAULT_SCOPES, { scope: 'orders.v1.read', description: 'See your orders' }, { scope: 'reports.v1.read', description: 'See your reports' }];
const RESOURCES = [
  { resource: MCP, name: 'Orders MCP', scopes: ['orders.v1.read'] },
  { resource: REPORTS, name: 'Reports', scopes: ['reports.v1.read'] },
];

async function setup() {
  const t = await createTestGatehouse({ settings: { scopes: SCOPES, resources: RESOURCES } });
  const user = await t.seedUser();
  const { client: app } = await t.seedClient({ name: 'Agent', scopes: ['orders.v1.read', 'reports.v1.read', 'messaging.v1.read'] });
  const { client: server } = await t.seedClient({ name: 'Orders MCP server', redirectUris: [], grantTypes: ['client_credentials'], scopes: ['orders.v1.read'], resourceServerFor: ['HTTPS://mcp.example.com/mcp'] });
  return { t, user, app, server };
}

describe('introspection by a resource server', () => {
  it('sees the access tokens of its resource as active, with their claims', async () => {
    const { t, user, app, server } = await setup();
    expect(server.resourceServerFor).toEqual([MCP]);
    const tokens = await t.obtainTokens({ client: app, user, scope: 'orders.v1.read', resource: MCP });
    const answer = await t.gatehouse.introspectToken({ client: server, token: tokens.access_token, tokenTypeHint: undefined });
    expect(answer).toMatchObject({ active: true, aud: MCP, client_id: app.clientId, sub: user.userKey, username: user.email, scope: 'orders.v1.read', token_type: 'Bearer' });
  });

  it('sees the tokens of other audiences, and other clients\' refresh tokens, as inactive', async () => {
    const { t, user, app, server } = await setup();
    const reports = await t.obtainTokens({ client: app, user, scope: 'reports.v1.read', resource: REPORTS });
    const plain = await t.obtainTokens({ client: app, user, scope: 'messaging.v1.read' });
    const mcp = await t.obtainTokens({ client: app, user, scope: 'orders.v1.read', resource: MCP });
    for (const token of [reports.access_token, plain.access_token, mcp.refresh_token as string]) {
      expect(await t.gatehouse.introspectToken({ client: server, token, tokenTypeHint: undefined })).toEqual({ active: false });
    }
    // A client that serves no resource sees only its own tokens, as before.
    const { client: stranger } = await t.seedClient({ name: 'Stranger' });
    expect(await t.gatehouse.introspectToken({ client: stranger, token: mcp.access_token, tokenTypeHint: 'access_token' })).toEqual({ active: false });
  });

  it('sees a revoked token as inactive at once', async () => {
    const { t, user, app, server } = await setup();
    const tokens = await t.obtainTokens({ client: app, user, scope: 'orders.v1.read', resource: MCP });
    expect((await t.gatehouse.introspectToken({ client: server, token: tokens.access_token, tokenTypeHint: 'access_token' })).active).toBe(true);
    await t.gatehouse.revokeToken({ client: app, token: tokens.refresh_token as string, tokenTypeHint: 'refresh_token' });
    expect(await t.gatehouse.introspectToken({ client: server, token: tokens.access_token, tokenTypeHint: 'access_token' })).toEqual({ active: false });
  });

  it('cannot revoke the tokens it may introspect', async () => {
    const { t, user, app, server } = await setup();
    const tokens = await t.obtainTokens({ client: app, user, scope: 'orders.v1.read', resource: MCP });
    await t.gatehouse.revokeToken({ client: server, token: tokens.access_token, tokenTypeHint: 'access_token' });
    expect((await t.gatehouse.introspectToken({ client: app, token: tokens.access_token, tokenTypeHint: 'access_token' })).active).toBe(true);
  });

  it('stops seeing a resource that is no longer configured', async () => {
    const { t, user, app, server } = await setup();
    const tokens = await t.obtainTokens({ client: app, user, scope: 'orders.v1.read', resource: MCP });
    const reconfigured = await createTestGatehouse({ repositories: t.repositories, settings: { scopes: SCOPES, resources: [RESOURCES[1]!, { ...RESOURCES[0]!, resource: 'https://mcp.example.com/v2' }] } });
    expect(await reconfigured.gatehouse.introspectToken({ client: server, token: tokens.access_token, tokenTypeHint: 'access_token' })).toEqual({ active: false });
  });
});

describe('marking a client as a resource server', () => {
  it('takes configured resources only, confidential clients only, and changes nothing otherwise', async () => {
    const { t } = await setup();
    const base = { name: 'RS', redirectUris: [], grantTypes: ['client_credentials'], scopes: ['orders.v1.read'] };
    await expectDomainError(t.gatehouse.registerClient({ ...base, resourceServerFor: ['https://unknown.example.com'] }), 'invalid', 'resourceServerFor');
    await expectDomainError(t.gatehouse.registerClient({ ...base, resourceServerFor: [`${MCP}#x`] }), 'invalid', 'resourceServerFor');
    await expectDomainError(
      t.gatehouse.registerClient({ name: 'SPA', public: true, redirectUris: ['https://spa.example/cb'], scopes: ['orders.v1.read'], resourceServerFor: [MCP] }),
      'invalid',
      'resourceServerFor',
    );
    expect((await t.gatehouse.listClients()).map((client) => client.name)).toEqual(['Agent', 'Orders MCP server']);
    const { client } = await t.gatehouse.registerClient({ ...base, resourceServerFor: [MCP, 'https://MCP.example.com/mcp', REPORTS] });
    expect(client.resourceServerFor).toEqual([MCP, REPORTS]);
    expect((await t.repositories.clients.findById(client.clientId))?.resourceServerFor).toEqual([MCP, REPORTS]);
  });

  it('is kept by an edit that does not name it, changed or cleared by one that does', async () => {
    const { t, server } = await setup();
    const edit = (resourceServerFor?: string[]) =>
      t.gatehouse.updateClient({ ownerUserKey: null, clientId: server.clientId, name: server.name, redirectUris: [], scopes: server.scopes, ...(resourceServerFor === undefined ? {} : { resourceServerFor }) });
    expect((await edit()).resourceServerFor).toEqual([MCP]);
    expect((await t.repositories.clients.findById(server.clientId))?.resourceServerFor).toEqual([MCP]);
    expect((await edit([REPORTS])).resourceServerFor).toEqual([REPORTS]);
    await expectDomainError(edit(['https://unknown.example.com']), 'invalid', 'resourceServerFor');
    expect((await t.repositories.clients.findById(server.clientId))?.resourceServerFor).toEqual([REPORTS]);
    const cleared = await edit([]);
    expect(cleared.resourceServerFor).toBeUndefined();
    expect((await t.repositories.clients.findById(server.clientId))?.resourceServerFor).toBeUndefined();
  });
});
