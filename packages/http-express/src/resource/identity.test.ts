import { describe, expect, it } from 'vitest';
import { bearer, createResourceHarness } from './test-support/harness.js';
import { expectMatchesOpenApi, expectMatchesSchema } from './test-support/openapi.js';

const ME = '/identity/v1/Users/me';

describe('GET /identity/v1/Users/me', () => {
  it('answers HEAD with the headers of GET, its length and no body', async () => {
    const h = await createResourceHarness();
    const token = await h.tokenFor(h.admin, 'messaging.v1.read');
    const got = await h.http.get(ME).set(bearer(token));
    const head = await h.http.head(ME).set(bearer(token));
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(head.headers['cache-control']).toBe('no-store');
    expect(head.headers['content-length']).toBe(String(Buffer.byteLength(JSON.stringify(got.body))));
    expect(head.text).toBeUndefined();
  });

  it('answers the SCIM-style user of the API reference with the accounts and roles', async () => {
    const h = await createResourceHarness();
    const other = await h.t.seedAccount('Beta');
    await h.t.product.setMembership({ accountKey: other.accountKey, userKey: h.admin.userKey, role: 'member' });
    // Any scope will do: the route needs a valid token only.
    const response = await h.http.get(ME).set(bearer(await h.tokenFor(h.admin, 'messaging.v1.read'))).set('Accept', 'application/json');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.body).toEqual({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User', 'urn:gatehouse:scim:schemas:extension:accounts:1.0'],
      id: h.admin.userKey,
      userName: 'ada@example.com',
      name: { givenName: 'Ada', familyName: 'Lovelace' },
      displayName: 'Ada Lovelace',
      emails: [{ value: 'ada@example.com', primary: true }],
      locale: 'en-US',
      'urn:gatehouse:scim:schemas:extension:accounts:1.0': {
        accounts: expect.arrayContaining([
          { value: h.account.accountKey, display: 'Acme', roles: ['admin'] },
          { value: other.accountKey, display: 'Beta', roles: ['member'] },
        ]),
      },
    });
    expect(response.body['urn:gatehouse:scim:schemas:extension:accounts:1.0'].accounts).toHaveLength(2);
    expect(JSON.stringify(response.body)).not.toContain('password');
    expectMatchesOpenApi(response, 'get', ME);
  });

  it('shows a user of no account with an empty account list, and the e-mail as display name without a name', async () => {
    const h = await createResourceHarness();
    const nameless = await h.t.seedUser({ email: 'nobody@example.com', givenName: '', familyName: '' });
    const response = await h.http.get(ME).set(bearer(await h.tokenFor(nameless)));
    expect(response.status).toBe(200);
    expect(response.body.displayName).toBe('nobody@example.com');
    expect(response.body['urn:gatehouse:scim:schemas:extension:accounts:1.0']).toEqual({ accounts: [] });
    expectMatchesOpenApi(response, 'get', ME);
  });

  it('answers application/scim+json when the client asks for it (RFC 7644 §3.1)', async () => {
    const h = await createResourceHarness();
    const response = await h.http.get(ME).set(bearer(await h.tokenFor(h.member))).set('Accept', 'application/scim+json');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/scim+json; charset=utf-8');
    expect(response.headers.vary).toMatch(/\bAccept\b/);
    expect(JSON.parse(response.text).id).toBe(h.member.userKey);
    expectMatchesOpenApi(response, 'get', ME);
  });

  it('answers another method with 405 and Allow', async () => {
    const h = await createResourceHarness();
    const response = await h.http.delete(ME).set(bearer(await h.tokenFor(h.member)));
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe('GET, HEAD');
    expect(response.body).toMatchObject({ errorCode: 'INVALID_REQUEST', status: 405 });
    expectMatchesSchema(response.body, 'Problem');
  });
});
