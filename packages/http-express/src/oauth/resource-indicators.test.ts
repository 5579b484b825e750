import { DEFAULT_SCOPES } from '@gatehouse/core';
import { decodeJwt } from 'jose';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createTestApp } from '../test-support/test-app.js';
import { basicAuth, formAction } from '../test-support/oauth-client.js';

// RFC 8707 resource indicators over HTTP (docs/decisions/0110-resource-indicators.md): `resource`
// at authorize (an invalid_target redirect), at the token endpoint (a 400 JSON invalid_target),
// the token's aud, introspection, and what a bad request leaves behind (nothing).

const MCP = 'https://mcp.example.com/mcp';
const REPORTS = 'https://reports.example.com';
const SCOPES = [...DEFAULT_SCOPES, { scope: 'orders.v1.read', description: 'See your orders' }, { scope: 'reports.v1.read', description: 'See your reports' }];
const RESOURCES = [
  { resource: MCP, name: 'Orders MCP', scopes: ['orders.v1.read'], accessTokenTtlSeconds: 900 },
  { resource: REPORTS, name: 'Reports', scopes: ['reports.v1.read'] },
];

async function setup() {
  const t = await createTestApp({ settings: { scopes: SCOPES, resources: RESOURCES } });
  const user = await t.seedUser();
  const { client, clientSecret } = await t.seedClient({ scopes: ['orders.v1.read', 'reports.v1.read', 'messaging.v1.read'] });
  const browser = await t.signedInBrowser(user.email);
  return { t, user, client, clientSecret, browser };
}

type Setup = Awaited<ReturnType<typeof setup>>;

/** Authorize with these query parameters (repeats allowed), Allow on the consent page; the consent page's text and the code. */
async function authorize({ browser, client }: Setup, params: Array<[string, string]>) {
  const query = new URLSearchParams([['client_id', client.clientId], ['response_type', 'code'], ['redirect_uri', client.redirectUris[0] as string], ['prompt', 'consent'], ...params]);
  const page = await browser.get(`/oauth/authorize?${query.toString()}`);
  expect(page.status).toBe(200);
  const answer = await browser.postForm(formAction(page.text, '/oauth/authorize/decision') as string, { decision: 'allow' });
  return { page: page.text, code: new URL(answer.headers.location as string).searchParams.get('code') as string };
}

function token({ t, client, clientSecret }: Setup, fields: Record<string, string> | string) {
  return request(t.app).post('/oauth/token').set('Authorization', basicAuth(client.clientId, clientSecret)).type('form').send(fields);
}

describe('resource at authorize', () => {
  it('names the resources on the consent page', async () => {
    const s = await setup();
    const { page } = await authorize(s, [['scope', 'orders.v1.read reports.v1.read'], ['resource', MCP], ['resource', REPORTS]]);
    expect(page).toContain('<strong>Orders MCP</strong> <span class="mono">https://mcp.example.com/mcp</span>');
    expect(page).toContain('<strong>Reports</strong>');
  });

  it('an unknown or malformed resource goes back to the client as invalid_target, with state and iss', async () => {
    const s = await setup();
    for (const resource of ['https://unknown.example.com', '/mcp', `${MCP}#tools`]) {
      const query = new URLSearchParams({ client_id: s.client.clientId, response_type: 'code', redirect_uri: s.client.redirectUris[0] as string, state: 'xyz', resource });
      const res = await s.browser.get(`/oauth/authorize?${query.toString()}`);
      expect(res.status).toBe(302);
      const location = new URL(res.headers.location as string);
      expect(`${location.origin}${location.pathname}`).toBe(s.client.redirectUris[0]);
      expect(Object.fromEntries(location.searchParams)).toMatchObject({ error: 'invalid_target', state: 'xyz', iss: s.t.settings.issuer });
    }
    expect(await s.t.repositories.grants.listActiveByUser(s.user.userKey)).toEqual([]);
  });
});

describe('resource at the token endpoint', () => {
  it('gives a token whose aud is the resource, with its scopes and lifetime; introspection shows aud', async () => {
    const s = await setup();
    const { code } = await authorize(s, [['scope', 'orders.v1.read messaging.v1.read'], ['resource', MCP]]);
    const res = await token(s, { grant_type: 'authorization_code', code, redirect_uri: s.client.redirectUris[0] as string, resource: MCP });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ scope: 'orders.v1.read', expires_in: 900 });
    expect(decodeJwt(res.body.access_token as string)).toMatchObject({ aud: MCP, scope: 'orders.v1.read' });
    const introspected = await request(s.t.app)
      .post('/oauth/introspect')
      .set('Authorization', basicAuth(s.client.clientId, s.clientSecret))
      .type('form')
      .send({ token: res.body.access_token as string });
    expect(introspected.body).toMatchObject({ active: true, aud: MCP, scope: 'orders.v1.read' });
  });

  it('refuses an unknown, malformed, not granted or repeated resource with a 400 invalid_target, consuming nothing', async () => {
    const s = await setup();
    const { code } = await authorize(s, [['scope', 'orders.v1.read reports.v1.read'], ['resource', MCP]]);
    const base = `grant_type=authorization_code&code=${encodeURIComponent(code)}&redirect_uri=${encodeURIComponent(s.client.redirectUris[0] as string)}`;
    for (const resource of ['https://unknown.example.com', 'mcp', `${MCP}#x`, REPORTS]) {
      const res = await token(s, `${base}&resource=${encodeURIComponent(resource)}`);
      expect(res.status).toBe(400);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toEqual({ error: 'invalid_target', error_description: expect.any(String) });
      expect(res.body.error_description).toMatch(/^[\x20\x21\x23-\x5B\x5D-\x7E]+$/);
    }
    const repeated = await token(s, `${base}&resource=${encodeURIComponent(MCP)}&resource=${encodeURIComponent(REPORTS)}`);
    expect(repeated.status).toBe(400);
    expect(repeated.body).toEqual({ error: 'invalid_target', error_description: 'Send one resource parameter: an access token is for one resource.' });
    // Other repeated parameters stay invalid_request.
    expect((await token(s, `${base}&scope=a&scope=b`)).body.error).toBe('invalid_request');

    const good = await token(s, base);
    expect(good.status).toBe(200);
    expect(decodeJwt(good.body.access_token as string).aud).toBe(MCP);
  });

  it('a refresh narrows to a granted resource and never widens', async () => {
    const s = await setup();
    const { code } = await authorize(s, [['scope', 'orders.v1.read reports.v1.read'], ['resource', MCP], ['resource', REPORTS]]);
    const first = await token(s, { grant_type: 'authorization_code', code, redirect_uri: s.client.redirectUris[0] as string, resource: REPORTS });
    expect(decodeJwt(first.body.access_token as string)).toMatchObject({ aud: REPORTS, scope: 'reports.v1.read' });
    const refresh = (resource?: string) => token(s, { grant_type: 'refresh_token', refresh_token: first.body.refresh_token as string, ...(resource === undefined ? {} : { resource }) });
    const narrowed = await refresh(MCP);
    expect(narrowed.status).toBe(200);
    expect(decodeJwt(narrowed.body.access_token as string)).toMatchObject({ aud: MCP, scope: 'orders.v1.read' });
    expect((await refresh()).body.error).toBe('invalid_target');
    expect((await refresh('https://other.example.com')).body.error).toBe('invalid_target');
  });

  it('client credentials for a configured resource', async () => {
    const t = await createTestApp({ settings: { scopes: SCOPES, resources: RESOURCES } });
    const { client, clientSecret } = await t.seedClient({ redirectUris: [], grantTypes: ['client_credentials'], scopes: ['reports.v1.read'] });
    const send = (fields: Record<string, string>) => request(t.app).post('/oauth/token').set('Authorization', basicAuth(client.clientId, clientSecret)).type('form').send({ grant_type: 'client_credentials', ...fields });
    const res = await send({ resource: REPORTS });
    expect(res.status).toBe(200);
    expect(decodeJwt(res.body.access_token as string)).toMatchObject({ aud: REPORTS, sub: client.clientId, scope: 'reports.v1.read' });
    expect((await send({ resource: MCP })).body.error).toBe('invalid_target');
  });
});
