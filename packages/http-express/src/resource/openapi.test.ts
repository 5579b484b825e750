import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { OPENAPI_FILE } from './openapi.js';
import { documentedOperations, expectMatchesOpenApi, openApi } from './test-support/openapi.js';
import { createResourceHarness } from './test-support/harness.js';
import request from 'supertest';
import { createTestApp } from '../test-support/index.js';

describe('GET /openapi.json', () => {
  it('serves openapi.yaml as JSON, without authentication', async () => {
    const { http } = await createResourceHarness();
    const response = await http.get('/openapi.json');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.body).toEqual(parse(readFileSync(OPENAPI_FILE, 'utf8')));
    expect(response.body.openapi).toBe('3.1.0');
    expectMatchesOpenApi(response, 'get', '/openapi.json');
  });
});

describe('GET /openapi.json under an issuer with a path', () => {
  it('names the issuer\'s path as its server, where the OAuth endpoints and the APIs are (docs/decisions/0183); the probes keep the root', async () => {
    const t = await createTestApp({ settings: { issuer: 'http://localhost:3000/auth' } });
    const response = await request(t.app).get('/auth/openapi.json').expect(200);
    const document = response.body as { servers: Array<{ url: string }>; paths: Record<string, { servers?: Array<{ url: string }> }> };
    expect(document.servers.map((server) => server.url)).toEqual(['/auth']);
    expect(document.paths['/healthz']?.servers?.map((server) => server.url)).toEqual(['/']);
    // Joined as a client joins them, the server and a path reach the route.
    expect((await request(t.app).get(`${document.servers[0]?.url}/oauth/jwks`)).status).toBe(200);
    expect((await request(t.app).get(`${document.servers[0]?.url}/identity/v1/Users/me`)).status).toBe(401);
    // At the root, unchanged.
    const root = await createTestApp();
    expect((await request(root.app).get('/openapi.json').expect(200)).body.servers).toEqual(parse(readFileSync(OPENAPI_FILE, 'utf8')).servers);
  });
});

describe('openapi.yaml', () => {
  it('has schemas that compile as strict JSON Schema 2020-12', () => {
    const { document } = openApi();
    const schemas = (document.components as { schemas: Record<string, unknown> }).schemas;
    // Strict mode refuses unknown keywords (a typo such as `additionalProperty`), so the schemas become $defs of one schema.
    const $defs = JSON.parse(JSON.stringify(schemas).replaceAll('#/components/schemas/', '#/$defs/')) as Record<string, unknown>;
    const ajv = new Ajv2020({ strict: true, strictTypes: false, allErrors: true });
    ajv.addFormat('uri-reference', true).addFormat('uri', true).addFormat('email', true).addFormat('date-time', true);
    ajv.addSchema({ $id: 'https://gatehouse.invalid/components.json', $defs });
    for (const name of Object.keys(schemas)) {
      expect(() => ajv.getSchema(`https://gatehouse.invalid/components.json#/$defs/${name}`), name).not.toThrow();
      expect(ajv.getSchema(`https://gatehouse.invalid/components.json#/$defs/${name}`), name).toBeTypeOf('function');
    }
  });

  it('describes every route of the service, OAuth ones included', () => {
    expect(documentedOperations().sort()).toEqual(
      [
        'GET /oauth/authorize',
        'POST /oauth/authorize',
        'POST /oauth/token',
        'POST /oauth/revoke',
        'POST /oauth/introspect',
        'GET /.well-known/oauth-authorization-server',
        'GET /.well-known/oauth-protected-resource',
        'GET /oauth/jwks',
        'GET /.well-known/openid-configuration',
        'GET /oauth/userinfo',
        'POST /oauth/userinfo',
        'GET /oauth/logout',
        'POST /oauth/register',
        'GET /oauth/register/{clientId}',
        'PUT /oauth/register/{clientId}',
        'DELETE /oauth/register/{clientId}',
        'GET /identity/v1/Users/me',
        'POST /messaging/v1/messages',
        'GET /messaging/v1/messages',
        'POST /admin/rest/v1/accounts/{accountKey}/attributes',
        'GET /admin/rest/v1/accounts/{accountKey}/attributes',
        'GET /admin/rest/v1/accounts/{accountKey}/attributes/{attributeKey}',
        'PUT /admin/rest/v1/accounts/{accountKey}/attributes/{attributeKey}',
        'DELETE /admin/rest/v1/accounts/{accountKey}/attributes/{attributeKey}',
        'PUT /admin/rest/v1/accounts/{accountKey}/users/{userKey}/attributes',
        'GET /admin/rest/v1/accounts/{accountKey}/users/{userKey}/attributes',
        'GET /openapi.json',
        'GET /healthz',
        'GET /readyz',
      ].sort(),
    );
  });
});
