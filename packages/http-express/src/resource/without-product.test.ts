import { createTestGatehouse } from '@gatehouse/core/testing';
import supertest from 'supertest';
import { describe, expect, it } from 'vitest';
import { createGatehouseApp } from '../app.js';

// The resource APIs are the product part's (docs/decisions/0161): an app given no product facade
// mounts none of them, and their paths answer the 404 problem of any unknown path there.
describe('the resource APIs without a product facade', () => {
  it('answers 404 problems under their paths and still serves the OpenAPI document and the OAuth endpoints', async () => {
    const t = await createTestGatehouse();
    const http = supertest(createGatehouseApp({ gatehouse: t.gatehouse }));
    for (const path of ['/identity/v1/Users/me', '/messaging/v1/messages', '/admin/rest/v1/accounts/a1/attributes']) {
      const response = await http.get(path).set('Authorization', 'Bearer x');
      expect(response.status, path).toBe(404);
      expect(response.headers['content-type'], path).toMatch(/^application\/problem\+json/);
    }
    expect((await http.get('/openapi.json')).status).toBe(200);
    expect((await http.get('/.well-known/oauth-authorization-server')).status).toBe(200);
  });
});
