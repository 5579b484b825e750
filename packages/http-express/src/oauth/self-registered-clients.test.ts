import { s256Challenge } from '@gatehouse/core/testing';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClientMetadataDocumentFetcher } from '../client-metadata/document-fetcher.js';
import { createTestApp, type TestApp } from '../test-support/index.js';
import { makeTestCertificates, startTestHttpsServer, type TestCertificates, type TestHttpsServer } from '../test-support/test-tls.js';

const VERIFIER = 'v'.repeat(50);
const PKCE = { code_challenge: s256Challenge(VERIFIER), code_challenge_method: 'S256' };
const LOOPBACK_WARNING = 'This app receives the answer on your own computer.';

let tls: TestCertificates;
let documents: TestHttpsServer;

beforeAll(async () => {
  tls = makeTestCertificates();
  documents = await startTestHttpsServer(tls);
}, 60_000);

afterAll(async () => {
  await documents.close();
});

/** The metadata document server answers `body` as JSON at every path. */
function serve(body: Record<string, unknown>): void {
  documents.handle((_req, res) => res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=600' }).end(JSON.stringify(body)));
}

async function appWithDocuments(): Promise<TestApp> {
  return createTestApp({
    settings: { registration: { policy: 'open' }, clientMetadataDocuments: { enabled: true } },
    // The test CA, and loopback allowed: the documents are served on 127.0.0.1 (never in production).
    clientMetadataDocumentFetcher: createClientMetadataDocumentFetcher({ ca: tls.ca, allowLoopback: true }),
  });
}

describe('a client that registered itself (RFC 7591) on the consent page and in the portal', () => {
  it('says the app registered itself and warns that its answer stays on this computer; Authorized apps marks it', async () => {
    const t = await appWithDocuments();
    const user = await t.seedUser();
    const registered = await request(t.app)
      .post('/oauth/register')
      .send({ client_name: 'Desk Agent', redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none', logo_uri: 'https://bank.example/logo.png', policy_uri: 'https://desk.example/privacy' });
    const client = { clientId: registered.body.client_id as string, redirectUris: ['http://127.0.0.1:41234/callback'] };
    const browser = await t.signedInBrowser(user.email);
    const consent = await browser.get(`/oauth/authorize?${new URLSearchParams({ client_id: client.clientId, response_type: 'code', redirect_uri: client.redirectUris[0] as string, ...PKCE })}`);
    expect(consent.status).toBe(200);
    expect(consent.text).toContain('Desk Agent wants to access your account');
    expect(consent.text).toContain('This app registered itself.');
    expect(consent.text).toContain(LOOPBACK_WARNING);
    // Its own links, except the logo it claims (any brand's): no image, and the CSP loads none (decision 0174).
    expect(consent.text).toContain('https://desk.example/privacy');
    expect(consent.text).not.toContain('bank.example');
    expect(consent.text).not.toContain('<img');
    expect(consent.headers['content-security-policy']).not.toContain('img-src');

    const { code } = await browser.authorize(client, PKCE);
    const tokens = await request(t.app).post('/oauth/token').type('form').send({ grant_type: 'authorization_code', code, redirect_uri: client.redirectUris[0], client_id: client.clientId, code_verifier: VERIFIER });
    expect(tokens.status).toBe(200);
    // Registered without grant_types: the code flow only (RFC 7591 §2), so no refresh token it could not use (docs/decisions/0188).
    expect(registered.body.grant_types).toEqual(['authorization_code']);
    expect(tokens.body).not.toHaveProperty('refresh_token');
    expect(tokens.body).toMatchObject({ token_type: 'Bearer', access_token: expect.any(String) });
    const apps = await browser.get('/portal/authorized-apps');
    expect(apps.text).toContain('Desk Agent');
    expect(apps.text).toContain('Registered itself');
  });
});

describe('a Client ID Metadata Document client over HTTP, its document served over TLS', () => {
  it('shows the client’s name and the host of its document, warns about loopback redirects, then runs the whole flow', async () => {
    const t = await appWithDocuments();
    const user = await t.seedUser();
    const clientId = `${documents.origin}/agent/client.json`;
    serve({ client_id: clientId, client_name: 'Doc Agent', redirect_uris: ['http://127.0.0.1/callback'], grant_types: ['authorization_code', 'refresh_token'], token_endpoint_auth_method: 'none' });
    const client = { clientId, redirectUris: ['http://127.0.0.1:40001/callback'] };
    const browser = await t.signedInBrowser(user.email);

    const consent = await browser.get(`/oauth/authorize?${new URLSearchParams({ client_id: clientId, response_type: 'code', redirect_uri: client.redirectUris[0] as string, ...PKCE })}`);
    expect(consent.status).toBe(200);
    expect(consent.text).toContain('Doc Agent wants to access your account');
    expect(consent.text).toContain(`in a document at <strong class="mono">127.0.0.1:${documents.port}</strong>`);
    expect(consent.text).toContain(LOOPBACK_WARNING);

    const { code, location } = await browser.authorize(client, PKCE);
    expect(`${location.origin}${location.pathname}`).toBe('http://127.0.0.1:40001/callback');
    const tokens = await request(t.app).post('/oauth/token').type('form').send({ grant_type: 'authorization_code', code, redirect_uri: client.redirectUris[0], client_id: clientId, code_verifier: VERIFIER });
    expect(tokens.status).toBe(200);
    expect(tokens.body.refresh_token).toEqual(expect.any(String));
    expect((await t.gatehouse.verifyAccessToken(tokens.body.access_token as string)).clientId).toBe(clientId);

    // The portal lists it under its host, and withdraws it by its URL.
    const apps = await browser.get('/portal/authorized-apps');
    expect(apps.text).toContain(`From 127.0.0.1:${documents.port}`);
    const revokePath = `/portal/authorized-apps/${encodeURIComponent(clientId)}/revoke`;
    expect((await browser.get(revokePath)).status).toBe(200);
    expect((await browser.postForm(revokePath, {})).status).toBe(303);
    expect(await t.repositories.consents.find(user.userKey, clientId)).toBeUndefined();
  }, 30_000);

  it('asks again once the document changed, though the consent was remembered', async () => {
    const t = await appWithDocuments();
    const user = await t.seedUser();
    const clientId = `${documents.origin}/changing/client.json`;
    const document = { client_id: clientId, client_name: 'Changing Agent', redirect_uris: ['https://agent.example/cb'], token_endpoint_auth_method: 'none' };
    serve(document);
    const client = { clientId, redirectUris: ['https://agent.example/cb'] };
    const browser = await t.signedInBrowser(user.email);
    expect((await browser.authorize(client, PKCE)).consentShown).toBe(true);
    expect((await browser.authorize(client, PKCE)).consentShown).toBe(false);

    serve({ ...document, redirect_uris: ['https://agent.example/cb', 'https://agent.example/other'] });
    t.clock.advance(601);
    const again = await browser.authorize(client, PKCE, 'allow', { expectConsentPage: true });
    expect(again.consentShown).toBe(true);
  }, 30_000);

  it('shows an error page, never a redirect, for a document that names another client_id, is too big, not JSON, or cannot be reached', async () => {
    const t = await appWithDocuments();
    const user = await t.seedUser();
    const browser = await t.signedInBrowser(user.email);
    const clientId = `${documents.origin}/bad/client.json`;
    const open = (id = clientId) =>
      browser.get(`/oauth/authorize?${new URLSearchParams({ client_id: id, response_type: 'code', redirect_uri: 'https://agent.example/cb', ...PKCE })}`);
    const cases: Array<[() => void, string, string?]> = [
      [() => serve({ client_id: 'https://elsewhere.example/client.json', redirect_uris: ['https://agent.example/cb'] }), 'names another client_id'],
      [() => serve({ client_id: clientId, redirect_uris: ['https://agent.example/cb'], padding: 'x'.repeat(6000) }), 'is larger than 5 KiB'],
      [() => documents.handle((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>')), 'is not JSON'],
      [() => documents.handle((_req, res) => res.writeHead(302, { location: 'https://agent.example/cb' }).end()), 'answered with a redirect'],
      [() => undefined, 'could not be fetched', 'https://127.0.0.1:1/unreachable.json'],
    ];
    for (const [arrange, words, id] of cases) {
      arrange();
      const response = await open(id);
      expect({ words, status: response.status, location: response.headers.location }).toEqual({ words, status: 400, location: undefined });
      expect(response.text).toContain(words);
    }
    expect((await t.repositories.clients.listAll()).filter((client) => client.clientId.startsWith('https://'))).toEqual([]);
  }, 30_000);
});
