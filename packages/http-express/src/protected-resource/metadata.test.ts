import { DEFAULT_SCOPES } from '@gatehouse/core';
import { createTestGatehouse } from '@gatehouse/core/testing';
import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createTestApp } from '../test-support/test-app.js';
import { protectedResourceMetadataRouter, protectedResourceMetadataUrl } from './metadata.js';

// RFC 9728 protected resource metadata (docs/decisions/0111-protected-resource-metadata.md).

const SCOPES = [...DEFAULT_SCOPES, { scope: 'orders.v1.read', description: 'See your orders' }];
const RESOURCES = [
  { resource: 'https://mcp.example.com/mcp', name: 'Orders MCP', scopes: ['orders.v1.read'] },
  { resource: 'https://mcp.example.com', name: 'Root API', scopes: ['messaging.v1.read'] },
  { resource: 'https://other.example.com/mcp', name: 'Other MCP', scopes: ['orders.v1.read'] },
];

describe('protectedResourceMetadataUrl (RFC 9728 §3.1)', () => {
  it('inserts the well-known suffix between the host and the path', () => {
    expect(protectedResourceMetadataUrl('https://mcp.example.com/mcp')).toBe('https://mcp.example.com/.well-known/oauth-protected-resource/mcp');
    expect(protectedResourceMetadataUrl('https://mcp.example.com/a/b/')).toBe('https://mcp.example.com/.well-known/oauth-protected-resource/a/b/');
    expect(protectedResourceMetadataUrl('https://mcp.example.com')).toBe('https://mcp.example.com/.well-known/oauth-protected-resource');
    expect(protectedResourceMetadataUrl('http://127.0.0.1:8080/mcp')).toBe('http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp');
  });
});

describe('protectedResourceMetadataRouter', () => {
  async function host(resources?: string[]) {
    const t = await createTestGatehouse({ settings: { issuer: 'https://auth.example.com', scopes: SCOPES, resources: RESOURCES } });
    const app = express();
    app.use(protectedResourceMetadataRouter(t.gatehouse, resources === undefined ? {} : { resources }));
    app.use((_req, res) => {
      res.status(404).send('host 404');
    });
    return app;
  }

  it('serves the metadata of each resource it is given at its path, and lets everything else through', async () => {
    const app = await host(['https://MCP.example.com/mcp', 'https://mcp.example.com/']);
    const mcp = await request(app).get('/.well-known/oauth-protected-resource/mcp').expect(200);
    expect(mcp.headers['content-type']).toMatch(/^application\/json/);
    expect(mcp.headers['cache-control']).toBe('public, max-age=300');
    expect(mcp.headers['x-content-type-options']).toBe('nosniff');
    expect(mcp.body).toEqual({
      resource: 'https://mcp.example.com/mcp',
      authorization_servers: ['https://auth.example.com'],
      scopes_supported: ['orders.v1.read'],
      bearer_methods_supported: ['header'],
      resource_name: 'Orders MCP',
    });
    expect((await request(app).get('/.well-known/oauth-protected-resource').expect(200)).body).toMatchObject({ resource: 'https://mcp.example.com', resource_name: 'Root API' });
    expect((await request(app).head('/.well-known/oauth-protected-resource/mcp')).status).toBe(200);
    for (const path of ['/.well-known/oauth-protected-resource/MCP', '/.well-known/oauth-protected-resource/mcp/', '/.well-known/oauth-protected-resource/other', '/mcp']) {
      expect((await request(app).get(path)).text).toBe('host 404');
    }
    expect((await request(app).post('/.well-known/oauth-protected-resource/mcp')).text).toBe('host 404');
  });

  it('answers the metadata of a resource whose path ends with a slash also without it, where the MCP SDK looks, unless a configured resource has its own there (docs/decisions/0189)', async () => {
    const resources = [
      { resource: 'https://mcp.example.com/mcp/', name: 'Slash MCP', scopes: ['orders.v1.read'] },
      { resource: 'https://mcp.example.com/tools/', name: 'Tools', scopes: ['orders.v1.read'] },
      { resource: 'https://mcp.example.com/tools', name: 'Tools without a slash', scopes: ['orders.v1.read'] },
    ];
    const t = await createTestGatehouse({ settings: { issuer: 'https://auth.example.com', scopes: SCOPES, resources } });
    const app = express();
    // This host serves the two with a slash only: /tools is another configured resource's, served elsewhere.
    app.use(protectedResourceMetadataRouter(t.gatehouse, { resources: ['https://mcp.example.com/mcp/', 'https://mcp.example.com/tools/'] }));
    app.use((_req, res) => {
      res.status(404).send('host 404');
    });
    for (const path of ['/.well-known/oauth-protected-resource/mcp/', '/.well-known/oauth-protected-resource/mcp']) {
      expect((await request(app).get(path).expect(200)).body, path).toMatchObject({ resource: 'https://mcp.example.com/mcp/', resource_name: 'Slash MCP' });
    }
    expect((await request(app).get('/.well-known/oauth-protected-resource/tools/').expect(200)).body).toMatchObject({ resource: 'https://mcp.example.com/tools/' });
    expect((await request(app).get('/.well-known/oauth-protected-resource/tools')).text).toBe('host 404');
  });

  it('refuses at once a resource that is not configured, or two resources sharing a path', async () => {
    await expect(host(['https://unknown.example.com/mcp'])).rejects.toThrow(TypeError);
    await expect(host()).rejects.toThrow('two resources have their metadata at /.well-known/oauth-protected-resource/mcp');
  });
});

describe('the reference app', () => {
  it('serves the metadata of its own APIs when the default audience is a configured resource, and points their challenges to it', async () => {
    const t = await createTestApp({ settings: { resources: [{ resource: 'http://localhost:3000', name: 'Gatehouse APIs', scopes: ['messaging.v1.read', 'messaging.v1.send'] }] } });
    const metadata = await request(t.app).get('/.well-known/oauth-protected-resource').expect(200);
    expect(metadata.body).toMatchObject({ resource: 'http://localhost:3000', authorization_servers: ['http://localhost:3000'], resource_name: 'Gatehouse APIs' });
    const me = await request(t.app).get('/identity/v1/Users/me');
    expect(me.status).toBe(401);
    expect(me.headers['www-authenticate']).toBe('Bearer realm="gatehouse", resource_metadata="http://localhost:3000/.well-known/oauth-protected-resource"');
    // Tokens for the default audience work as before, with or without resource=<the APIs>.
    const user = await t.seedUser({ phone: '+15550000001' });
    const { client } = await t.seedClient();
    for (const resource of [undefined, 'http://localhost:3000']) {
      const tokens = await t.obtainTokens({ client, user, scope: 'messaging.v1.read', ...(resource === undefined ? {} : { resource }) });
      await request(t.app).get('/messaging/v1/messages?ownerPhoneNumber=%2B15550000001').set('Authorization', `Bearer ${tokens.access_token}`).expect(200);
    }
  });

  it('serves no such metadata otherwise', async () => {
    const t = await createTestApp();
    expect((await request(t.app).get('/.well-known/oauth-protected-resource')).status).toBe(404);
  });
});
