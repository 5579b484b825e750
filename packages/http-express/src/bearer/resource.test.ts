import { DEFAULT_SCOPES } from '@gatehouse/core';
import { createTestGatehouse } from '@gatehouse/core/testing';
import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { accessTokenOf, bearerAuth, bearerErrorHandler, protectedResourceMetadataRouter, requireScope } from '../index.js';

// bearerAuth(gatehouse, { resource }) for an embedder's resource server (RFC 8707 audience,
// RFC 9728 §5.1 resource_metadata in every challenge; docs/decisions/0111-protected-resource-metadata.md).

const MCP = 'https://mcp.example.com/mcp';
const METADATA = 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp';
const SCOPES = [...DEFAULT_SCOPES, { scope: 'orders.v1.read', description: 'See your orders' }, { scope: 'orders.v1.write', description: 'Change your orders' }];

async function mcpServer() {
  const t = await createTestGatehouse({
    settings: { scopes: SCOPES, resources: [{ resource: MCP, name: 'Orders MCP', scopes: ['orders.v1.read', 'orders.v1.write'] }] },
  });
  const user = await t.seedUser();
  const { client } = await t.seedClient({ scopes: ['orders.v1.read', 'orders.v1.write', 'messaging.v1.read'] });
  const app = express();
  app.use(protectedResourceMetadataRouter(t.gatehouse));
  app.post('/mcp', bearerAuth(t.gatehouse, { resource: MCP, realm: 'mcp' }), requireScope('orders.v1.write'), (_req, res) => {
    res.json({ audience: accessTokenOf(res).audience });
  });
  app.get('/mcp', bearerAuth(t.gatehouse, { resource: 'HTTPS://MCP.example.com/mcp' }), (_req, res) => {
    res.json({ audience: accessTokenOf(res).audience });
  });
  app.get('/api', bearerAuth(t.gatehouse), (_req, res) => {
    res.json({ audience: accessTokenOf(res).audience });
  });
  app.use(bearerErrorHandler());
  const tokenFor = async (scope: string, resource?: string) => (await t.obtainTokens({ client, user, scope, ...(resource === undefined ? {} : { resource }) })).access_token;
  return { t, app, tokenFor };
}

describe('bearerAuth with a resource', () => {
  it('accepts a token for its resource only', async () => {
    const { app, tokenFor } = await mcpServer();
    const forMcp = await tokenFor('orders.v1.read orders.v1.write', MCP);
    expect((await request(app).post('/mcp').set('Authorization', `Bearer ${forMcp}`).expect(200)).body).toEqual({ audience: MCP });
    expect((await request(app).get('/mcp').set('Authorization', `Bearer ${forMcp}`).expect(200)).body).toEqual({ audience: MCP });

    // A token for the default audience (no resource asked) is refused by the resource, and the other way round.
    const plain = await tokenFor('orders.v1.read orders.v1.write');
    const refused = await request(app).get('/mcp').set('Authorization', `Bearer ${plain}`);
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toBe(`Bearer realm="gatehouse", error="invalid_token", resource_metadata="${METADATA}"`);
    expect(refused.body).toMatchObject({ errorCode: 'AUTHN_INVALID_TOKEN', detail: 'The access token was issued for another resource.' });
    expect((await request(app).get('/api').set('Authorization', `Bearer ${forMcp}`)).status).toBe(401);
    expect((await request(app).get('/api').set('Authorization', `Bearer ${plain}`).expect(200)).body).toEqual({ audience: 'http://localhost:3000' });
  });

  it('points every challenge at the resource metadata, and names the scope on 403', async () => {
    const { app, tokenFor } = await mcpServer();
    const none = await request(app).post('/mcp');
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toBe(`Bearer realm="mcp", resource_metadata="${METADATA}"`);
    const malformed = await request(app).post('/mcp').set('Authorization', 'Bearer a b');
    expect(malformed.status).toBe(400);
    expect(malformed.headers['www-authenticate']).toBe(`Bearer realm="mcp", error="invalid_request", resource_metadata="${METADATA}"`);
    const narrow = await request(app).post('/mcp').set('Authorization', `Bearer ${await tokenFor('orders.v1.read', MCP)}`);
    expect(narrow.status).toBe(403);
    expect(narrow.headers['www-authenticate']).toBe(`Bearer realm="mcp", error="insufficient_scope", scope="orders.v1.write", resource_metadata="${METADATA}"`);
    // The metadata the challenge points to is served (RFC 9728 §3.1 path insertion).
    const metadata = await request(app).get(new URL(METADATA).pathname).expect(200);
    expect(metadata.body).toEqual({
      resource: MCP,
      authorization_servers: ['http://localhost:3000'],
      scopes_supported: ['orders.v1.read', 'orders.v1.write'],
      bearer_methods_supported: ['header'],
      resource_name: 'Orders MCP',
    });
  });

  it('refuses at once a token whose grant was revoked', async () => {
    const { t, app } = await mcpServer();
    const user = await t.seedUser();
    const { client } = await t.seedClient({ scopes: ['orders.v1.read', 'orders.v1.write'] });
    const tokens = await t.obtainTokens({ client, user, resource: MCP });
    await request(app).get('/mcp').set('Authorization', `Bearer ${tokens.access_token}`).expect(200);
    await t.gatehouse.revokeToken({ client, token: tokens.refresh_token as string, tokenTypeHint: 'refresh_token' });
    expect((await request(app).get('/mcp').set('Authorization', `Bearer ${tokens.access_token}`)).status).toBe(401);
  });

  it('is a TypeError at once for a resource that is malformed or not configured', async () => {
    const { t } = await mcpServer();
    expect(() => bearerAuth(t.gatehouse, { resource: 'https://other.example.com/mcp' })).toThrow(TypeError);
    expect(() => bearerAuth(t.gatehouse, { resource: '/mcp' })).toThrow('is not a configured resource');
    // Without settings (a host's fake), only the form is checked.
    expect(() => bearerAuth({ verifyAccessToken: t.gatehouse.verifyAccessToken }, { resource: 'https://other.example.com/mcp' })).not.toThrow();
  });
});

describe('bearerAuth without a resource', () => {
  it('keeps its challenges as they were while the default audience is no configured resource', async () => {
    const { app } = await mcpServer();
    expect((await request(app).get('/api')).headers['www-authenticate']).toBe('Bearer realm="gatehouse"');
  });

  it('points to the metadata of the default audience when that is a configured resource', async () => {
    const t = await createTestGatehouse({ settings: { issuer: 'https://auth.example.com', resources: [{ resource: 'https://auth.example.com', name: 'APIs', scopes: ['messaging.v1.read'] }] } });
    const app = express();
    app.get('/api', bearerAuth(t.gatehouse), requireScope('messaging.v1.read'), (_req, res) => {
      res.json({});
    });
    app.use(bearerErrorHandler());
    expect((await request(app).get('/api')).headers['www-authenticate']).toBe('Bearer realm="gatehouse", resource_metadata="https://auth.example.com/.well-known/oauth-protected-resource"');
  });
});
