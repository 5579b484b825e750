import { describe, expect, it } from 'vitest';
import { createTestGatehouse } from '@gatehouse/core/testing';
import { expectOAuthError } from '../test-support/rejections.js';

// Dynamic Client Registration carries a client's OpenID Connect metadata (OIDC Dynamic Client
// Registration 1.0 §2, RP-Initiated Logout 1.0 §3.1; docs/decisions/0136-openid-client-metadata.md).

const SITE = {
  client_name: 'Site',
  redirect_uris: ['https://site.example/cb'],
  token_endpoint_auth_method: 'client_secret_basic',
  grant_types: ['authorization_code', 'refresh_token'],
  scope: 'openid profile',
};

const OPENID = { id_token_signed_response_alg: 'ES256', post_logout_redirect_uris: ['https://site.example/bye'], default_max_age: 900, require_auth_time: true };

describe('Dynamic Client Registration with OpenID Connect metadata', () => {
  async function setup() {
    return createTestGatehouse({ settings: { openid: true, registration: { policy: 'open' } } });
  }

  it('registers it, echoes it, stores it, and reads it back (RFC 7592)', async () => {
    const t = await setup();
    const { client, information } = await t.gatehouse.registerDynamicClient({ metadata: { ...SITE, ...OPENID }, initialAccessToken: undefined });
    expect(information).toMatchObject(OPENID);
    expect(await t.repositories.clients.findById(client.clientId)).toMatchObject({ idTokenSignedResponseAlg: 'ES256', postLogoutRedirectUris: ['https://site.example/bye'], defaultMaxAge: 900, requireAuthTime: true });
    const read = await t.gatehouse.readDynamicClient({ clientId: client.clientId, registrationAccessToken: information.registration_access_token as string });
    expect(read).toMatchObject(OPENID);
  });

  it('a registration without it has none, and echoes none', async () => {
    const t = await setup();
    const { client, information } = await t.gatehouse.registerDynamicClient({ metadata: SITE, initialAccessToken: undefined });
    for (const field of Object.keys(OPENID)) expect(information).not.toHaveProperty(field);
    expect(await t.repositories.clients.findById(client.clientId)).not.toHaveProperty('idTokenSignedResponseAlg');
  });

  it('refuses a field that cannot be accepted, naming it (invalid_client_metadata), storing nothing', async () => {
    const t = await setup();
    for (const [field, value] of [
      ['id_token_signed_response_alg', 'none'],
      ['id_token_signed_response_alg', 7],
      ['post_logout_redirect_uris', ['http://site.example/bye']],
      ['post_logout_redirect_uris', 'https://site.example/bye'],
      ['default_max_age', -1],
      ['default_max_age', '60'],
      ['require_auth_time', 'yes'],
    ] as const) {
      const error = await expectOAuthError(t.gatehouse.registerDynamicClient({ metadata: { ...SITE, [field]: value }, initialAccessToken: undefined }), 'invalid_client_metadata');
      expect(error.description.startsWith(`${field}: `)).toBe(true);
    }
    expect(await t.repositories.clients.listAll()).toEqual([]);
  });

  it('an update (RFC 7592 §2.2) replaces it: an omitted field takes its default again', async () => {
    const t = await setup();
    const { client, information } = await t.gatehouse.registerDynamicClient({ metadata: { ...SITE, ...OPENID }, initialAccessToken: undefined });
    const registrationAccessToken = information.registration_access_token as string;
    const updated = await t.gatehouse.updateDynamicClient({
      clientId: client.clientId,
      registrationAccessToken,
      metadata: { ...SITE, client_id: client.clientId, post_logout_redirect_uris: ['https://site.example/signed-out'] },
    });
    expect(updated).toMatchObject({ post_logout_redirect_uris: ['https://site.example/signed-out'] });
    for (const field of ['id_token_signed_response_alg', 'default_max_age', 'require_auth_time']) expect(updated).not.toHaveProperty(field);
    const stored = await t.repositories.clients.findById(client.clientId);
    expect(stored?.postLogoutRedirectUris).toEqual(['https://site.example/signed-out']);
    expect(stored).not.toHaveProperty('idTokenSignedResponseAlg');
    expect(stored).not.toHaveProperty('defaultMaxAge');
    expect(stored).not.toHaveProperty('requireAuthTime');
    // The read answers what the update did, with the token the update issued (and a new one of its own).
    const { registration_access_token: next, ...metadata } = updated;
    expect(await t.gatehouse.readDynamicClient({ clientId: client.clientId, registrationAccessToken: next as string })).toEqual({ ...metadata, registration_access_token: expect.any(String) });
  });
});

describe('a Client ID Metadata Document with OpenID Connect metadata', () => {
  const URL_ID = 'https://agent.example/oauth/client.json';
  const document = (extra: Record<string, unknown>) => ({ client_id: URL_ID, client_name: 'Agent', redirect_uris: ['https://agent.example/cb'], token_endpoint_auth_method: 'none', ...extra });
  const fetcherOf = (body: Record<string, unknown>) => ({
    fetchDocument: async () => ({ kind: 'fetched' as const, status: 200, headers: { 'content-type': 'application/json' }, body: new TextEncoder().encode(JSON.stringify(body)) }),
  });
  const authorize = (t: Awaited<ReturnType<typeof createTestGatehouse>>) =>
    t.gatehouse.checkAuthorizationRequest({ client_id: URL_ID, response_type: 'code', redirect_uri: 'https://agent.example/cb', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' });

  it("takes the document's ID token algorithm, post-logout redirect URIs, default max age and require_auth_time", async () => {
    const t = await createTestGatehouse({ settings: { openid: true, clientMetadataDocuments: { enabled: true } }, clientMetadataDocumentFetcher: fetcherOf(document(OPENID)) });
    const check = await authorize(t);
    expect(check).toMatchObject({ kind: 'valid', client: { idTokenSignedResponseAlg: 'ES256', postLogoutRedirectUris: ['https://site.example/bye'], defaultMaxAge: 900, requireAuthTime: true } });
  });

  it('refuses a document whose OpenID Connect metadata cannot be used (an error page, never a redirect)', async () => {
    const t = await createTestGatehouse({ settings: { openid: true, clientMetadataDocuments: { enabled: true } }, clientMetadataDocumentFetcher: fetcherOf(document({ post_logout_redirect_uris: ['javascript:alert(1)'] })) });
    const check = await authorize(t);
    expect(check.kind).toBe('show-error');
    expect(await t.repositories.clients.findById(URL_ID)).toBeUndefined();
  });
});
