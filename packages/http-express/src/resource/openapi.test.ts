import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { OPENAPI_FILE } from './openapi.js';
import { documentedOperations, expectMatchesOpenApi, openApi } from './test-support/openapi.js';
import { createResourceHarness } from './test-support/harness.js';

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
