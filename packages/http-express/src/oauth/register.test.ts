import { sha256 } from '@gatehouse/core';
import { createTestGatehouse, s256Challenge } from '@gatehouse/core/testing';
import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { authorizationServerMetadataRouter, createGatehouseRouter } from '../embed/router.js';
import { expectMatchesOpenApi } from '../resource/test-support/openapi.js';
import { createTestApp, formAction } from '../test-support/index.js';

/** Two values of one header: superagent hands an array to Node's setHeader, which sends each on a line of its own. */
const twice = (values: string[]) => values as unknown as string;

const AGENT = {
  client_name: 'Agent',
  redirect_uris: ['http://127.0.0.1:33418/callback'],
  token_endpoint_auth_method: 'none',
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
};

const INITIAL_TOKEN = 'initial-token-0123456789abcdefghijklmnop';
const PKCE = { code_challenge: s256Challenge('v'.repeat(50)), code_challenge_method: 'S256' };

describe('the registration endpoint in the metadata (RFC 8414 §2, RFC 7591 §3)', () => {
  it('is absent while registration is off, and the endpoint answers 404', async () => {
    const t = await createTestApp();
    const metadata = await request(t.app).get('/.well-known/oauth-authorization-server');
    expect(metadata.body).not.toHaveProperty('registration_endpoint');
    expect(metadata.body).not.toHaveProperty('client_id_metadata_document_supported');
    const response = await request(t.app).post('/oauth/register').send(AGENT);
    expect(response.status).toBe(404);
    expect(await t.repositories.clients.listAll()).toEqual([]);
  });

  it('names the endpoint under the issuer when registration is open, and says when metadata documents are accepted', async () => {
    const t = await createTestApp({
      settings: { issuer: 'https://host.example/auth', registration: { policy: 'open' }, clientMetadataDocuments: { enabled: true } },
      clientMetadataDocumentFetcher: { fetchDocument: async () => ({ kind: 'failed', reason: 'unreachable', detail: 'test' }) },
    });
    const metadata = await request(t.app).get('/.well-known/oauth-authorization-server/auth');
    expect(metadata.body).toMatchObject({ registration_endpoint: 'https://host.example/auth/oauth/register', client_id_metadata_document_supported: true });
    expectMatchesOpenApi(metadata, 'get', '/.well-known/oauth-authorization-server');
  });
});

describe('POST /oauth/register (RFC 7591) and the management of a registration (RFC 7592)', () => {
  it('registers, then reads, replaces and deletes the registration with its token', async () => {
    const t = await createTestApp({ settings: { registration: { policy: 'open' } } });
    const created = await request(t.app).post('/oauth/register').send(AGENT);
    expect(created.status).toBe(201);
    expect(created.headers['cache-control']).toBe('no-store');
    expectMatchesOpenApi(created, 'post', '/oauth/register');
    const clientId = created.body.client_id as string;
    const token = created.body.registration_access_token as string;
    expect(created.body).toMatchObject({ ...AGENT, registration_client_uri: `http://localhost:3000/oauth/register/${clientId}`, application_type: 'native' });
    expect(created.body).not.toHaveProperty('client_secret');

    const path = `/oauth/register/${clientId}`;
    const read = await request(t.app).get(path).set('Authorization', `Bearer ${token}`);
    expect(read.status).toBe(200);
    expect(read.headers['cache-control']).toBe('no-store');
    expectMatchesOpenApi(read, 'get', '/oauth/register/{clientId}');
    // RFC 7592 §3: the answer carries a registration access token, a new one (docs/decisions/0185).
    expect(read.body).toMatchObject({ client_id: clientId, client_name: 'Agent', registration_client_uri: created.body.registration_client_uri, registration_access_token: expect.any(String) });
    const afterRead = read.body.registration_access_token as string;
    expect(afterRead).not.toBe(token);

    const replaced = await request(t.app).put(path).set('Authorization', `Bearer ${afterRead}`).send({ ...AGENT, client_id: clientId, client_name: 'Agent 2' });
    expect(replaced.status).toBe(200);
    expectMatchesOpenApi(replaced, 'put', '/oauth/register/{clientId}');
    expect(replaced.body.client_name).toBe('Agent 2');
    const afterUpdate = replaced.body.registration_access_token as string;
    expect([token, afterRead]).not.toContain(afterUpdate);

    const deleted = await request(t.app).delete(path).set('Authorization', `Bearer ${afterUpdate}`);
    expect(deleted.status).toBe(204);
    expectMatchesOpenApi(deleted, 'delete', '/oauth/register/{clientId}');
    const gone = await request(t.app).get(path).set('Authorization', `Bearer ${afterUpdate}`);
    expect(gone.status).toBe(401);
    expect(gone.headers['www-authenticate']).toMatch(/^Bearer realm="gatehouse", error="invalid_token"/);
    expectMatchesOpenApi(gone, 'get', '/oauth/register/{clientId}');
  });

  it('answers a confidential client’s read and update with its secret’s expiry (none), never the secret, and each with a new token: the one replaced is then 401', async () => {
    const t = await createTestApp({ settings: { registration: { policy: 'open' } } });
    const web = { ...AGENT, token_endpoint_auth_method: 'client_secret_basic', redirect_uris: ['https://app.example/cb'] };
    const created = await request(t.app).post('/oauth/register').send(web);
    const path = `/oauth/register/${created.body.client_id as string}`;
    const read = await request(t.app).get(path).set('Authorization', `Bearer ${created.body.registration_access_token as string}`);
    expect(read.status).toBe(200);
    expectMatchesOpenApi(read, 'get', '/oauth/register/{clientId}');
    expect(read.body.client_secret_expires_at).toBe(0);
    expect(read.body).not.toHaveProperty('client_secret');
    const replaced = await request(t.app).put(path).set('Authorization', `Bearer ${read.body.registration_access_token as string}`).send({ ...web, client_id: created.body.client_id });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ client_secret_expires_at: 0, registration_access_token: expect.any(String) });
    expect(replaced.body).not.toHaveProperty('client_secret');
    // The client used the read's token: the registration's first one counts no more, grace or not.
    const stale = await request(t.app).get(path).set('Authorization', `Bearer ${created.body.registration_access_token as string}`);
    expect(stale.status).toBe(401);
    expect(stale.headers['www-authenticate']).toMatch(/^Bearer realm="gatehouse", error="invalid_token"/);
    expect((await request(t.app).get(path).set('Authorization', `Bearer ${replaced.body.registration_access_token as string}`)).status).toBe(200);
  });

  it('asks for consent again after a PUT that changes the name and the redirect URIs: the remembered consent is forgotten (docs/decisions/0195)', async () => {
    const t = await createTestApp({ settings: { registration: { policy: 'open' } } });
    const user = await t.seedUser();
    const original = { client_name: 'Original', redirect_uris: ['https://d.example/cb'], token_endpoint_auth_method: 'none' };
    const created = await request(t.app).post('/oauth/register').send(original);
    const clientId = created.body.client_id as string;
    const authorize = (redirectUri: string) => `/oauth/authorize?${new URLSearchParams({ client_id: clientId, response_type: 'code', redirect_uri: redirectUri, ...PKCE })}`;
    const browser = await t.signedInBrowser(user.email);
    const consent = await browser.get(authorize('https://d.example/cb'));
    expect(consent.status).toBe(200);
    expect(consent.text).toContain('Original wants to access your account');
    const allowed = await browser.postForm(formAction(consent.text, '/oauth/authorize/decision') as string, { decision: 'allow' });
    expect(allowed.headers.location).toMatch(/^https:\/\/d\.example\/cb\?code=/);
    // Remembered: the next authorization is a code at once.
    expect((await browser.get(authorize('https://d.example/cb'))).headers.location).toMatch(/^https:\/\/d\.example\/cb\?code=/);

    const replaced = await request(t.app)
      .put(`/oauth/register/${clientId}`)
      .set('Authorization', `Bearer ${created.body.registration_access_token as string}`)
      .send({ ...original, client_id: clientId, client_name: 'Totally Different App', redirect_uris: ['https://attacker.example/cb'] });
    expect(replaced.status).toBe(200);
    const asked = await browser.get(authorize('https://attacker.example/cb'));
    expect(asked.status).toBe(200);
    expect(asked.headers.location).toBeUndefined();
    expect(asked.text).toContain('Totally Different App wants to access your account');
    expect(formAction(asked.text, '/oauth/authorize/decision')).toBeDefined();
  });

  it('registers and updates an anonymous client with the scopes it may have out of those it asks for, and says so; refuses one left with none, or naming a scope the server does not have (docs/decisions/0196)', async () => {
    const t = await createTestApp({ settings: { registration: { policy: 'open', anonymousScopes: ['messaging.v1.read'] } } });
    const every = 'messaging.v1.send messaging.v1.read admin.v1.attributes.read admin.v1.attributes.write';
    const created = await request(t.app).post('/oauth/register').send({ ...AGENT, scope: every });
    expect(created.status).toBe(201);
    expectMatchesOpenApi(created, 'post', '/oauth/register');
    // RFC 7591 §3.2.1: the answer's scope is the one registered.
    expect(created.body.scope).toBe('messaging.v1.read');
    const clientId = created.body.client_id as string;
    expect((await t.repositories.clients.findById(clientId))?.scopes).toEqual(['messaging.v1.read']);
    const replaced = await request(t.app)
      .put(`/oauth/register/${clientId}`)
      .set('Authorization', `Bearer ${created.body.registration_access_token as string}`)
      .send({ ...AGENT, client_id: clientId, scope: every });
    expect(replaced.status).toBe(200);
    expect(replaced.body.scope).toBe('messaging.v1.read');

    const cases: Array<[string, RegExp]> = [
      ['messaging.v1.send', /^scope: messaging\.v1\.send is not available to clients that register themselves\.$/],
      ['messaging.v1.send admin.v1.attributes.read', /^scope: none of messaging\.v1\.send, admin\.v1\.attributes\.read is available to clients that register themselves\.$/],
      ['messaging.v1.read orders.v1.read', /^scope: The scope orders\.v1\.read is not in the catalogue\.$/],
    ];
    for (const [scope, description] of cases) {
      const response = await request(t.app).post('/oauth/register').send({ ...AGENT, scope });
      expect({ scope, status: response.status, error: response.body.error }).toEqual({ scope, status: 400, error: 'invalid_client_metadata' });
      expect(response.body.error_description).toMatch(description);
    }
    expect(await t.repositories.clients.listAll()).toHaveLength(1);
  });

  it('answers 401 with a Bearer challenge for a wrong, missing or malformed registration access token, and changes nothing', async () => {
    const t = await createTestApp({ settings: { registration: { policy: 'open' } } });
    const created = await request(t.app).post('/oauth/register').send(AGENT);
    const path = `/oauth/register/${created.body.client_id as string}`;
    for (const authorization of [undefined, 'Bearer wrong', 'Basic YTpi', `Bearer ${created.body.registration_access_token as string} extra`]) {
      const call = request(t.app).delete(path);
      const response = await (authorization === undefined ? call : call.set('Authorization', authorization));
      expect({ authorization, status: response.status, error: response.body.error }).toEqual({ authorization, status: 401, error: 'invalid_token' });
      expectMatchesOpenApi(response, 'delete', '/oauth/register/{clientId}');
    }
    // The header twice, the right token in either place: refused as well.
    const right = `Bearer ${created.body.registration_access_token as string}`;
    for (const pair of [[right, 'Bearer wrong'], ['Bearer wrong', right]]) {
      const response = await request(t.app).delete(path).set('Authorization', twice(pair));
      expect({ status: response.status, error: response.body.error, description: response.body.error_description }).toEqual({ status: 401, error: 'invalid_token', description: 'The Authorization header must be sent once.' });
    }
    expect(await t.repositories.clients.findById(created.body.client_id as string)).toBeDefined();
  });

  it('refuses bad input with a clear RFC 7591 error and stores nothing', async () => {
    const t = await createTestApp({ settings: { registration: { policy: 'open' } }, registrationLimits: { maxPerIp: 1000, bodyLimitBytes: 4096 } });
    const cases: Array<[request.Test, number, string, RegExp]> = [
      [request(t.app).post('/oauth/register').type('json').send('{"client_name": '), 400, 'invalid_client_metadata', /^The body is not valid JSON\.$/],
      [request(t.app).post('/oauth/register').type('json').send('{"client_name":"Agent","redirect_uris":["https://a.example/cb"],"redirect_uris":["https://evil.example/cb"]}'), 400, 'invalid_client_metadata', /^The body names a member twice in one object\.$/],
      [request(t.app).post('/oauth/register').type('form').send({ client_name: 'x' }), 400, 'invalid_client_metadata', /Content-Type: application\/json/],
      [request(t.app).post('/oauth/register').type('json').send('[1, 2]'), 400, 'invalid_client_metadata', /must be a JSON object/],
      [request(t.app).post('/oauth/register').send({ ...AGENT, padding: 'x'.repeat(5000) }), 413, 'invalid_client_metadata', /larger than 4096 bytes/],
      [request(t.app).post('/oauth/register').send({ ...AGENT, redirect_uris: ['http://evil.example/cb'] }), 400, 'invalid_redirect_uri', /^redirect_uris: The redirect URI http:\/\/evil\.example\/cb must use https/],
      [request(t.app).post('/oauth/register').send({ ...AGENT, grant_types: ['client_credentials'], response_types: [] }), 400, 'invalid_client_metadata', /^grant_types: /],
      [request(t.app).post('/oauth/register').send({ ...AGENT, client_uri: 42 }), 400, 'invalid_client_metadata', /^client_uri: must be a string\.$/],
    ];
    for (const [call, status, error, description] of cases) {
      const response = await call;
      expect({ status: response.status, error: response.body.error }).toEqual({ status, error });
      expect(response.body.error_description).toMatch(description);
      expect(response.headers['cache-control']).toBe('no-store');
      expectMatchesOpenApi(response, 'post', '/oauth/register');
    }
    expect(await t.repositories.clients.listAll()).toEqual([]);
  });

  it('ignores fields it does not know', async () => {
    const t = await createTestApp({ settings: { registration: { policy: 'open' } } });
    const created = await request(t.app).post('/oauth/register').send({ ...AGENT, jwks: { keys: [] }, software_statement: 'eyJ', 'client_name#ja-Jpan-JP': 'エージェント', made_up: [1] });
    expect(created.status).toBe(201);
    for (const ignored of ['jwks', 'software_statement', 'client_name#ja-Jpan-JP', 'made_up']) expect(created.body).not.toHaveProperty(ignored);
  });

  it('needs an initial access token under the token policy: 401 with a Bearer challenge without a valid one', async () => {
    const t = await createTestApp({ settings: { registration: { policy: 'token', initialAccessTokenHashes: [sha256(INITIAL_TOKEN)] } } });
    for (const authorization of [undefined, 'Bearer not-the-token']) {
      const call = request(t.app).post('/oauth/register');
      const response = await (authorization === undefined ? call : call.set('Authorization', authorization)).send(AGENT);
      expect(response.status).toBe(401);
      expect(response.body.error).toBe('invalid_token');
      expect(response.headers['www-authenticate']).toMatch(/^Bearer realm="gatehouse", error="invalid_token"/);
      expectMatchesOpenApi(response, 'post', '/oauth/register');
    }
    expect(await t.repositories.clients.listAll()).toEqual([]);
    const created = await request(t.app).post('/oauth/register').set('Authorization', `Bearer ${INITIAL_TOKEN}`).send(AGENT);
    expect(created.status).toBe(201);
  });

  it('counts registrations per client IP address: past the limit 429 with Retry-After, nothing stored', async () => {
    const t = await createTestApp({ settings: { registration: { policy: 'open' } }, registrationLimits: { maxPerIp: 2, windowSeconds: 600 } });
    expect((await request(t.app).post('/oauth/register').send(AGENT)).status).toBe(201);
    expect((await request(t.app).post('/oauth/register').send({ ...AGENT, redirect_uris: ['nope'] })).status).toBe(400);
    const limited = await request(t.app).post('/oauth/register').send(AGENT);
    expect(limited.status).toBe(429);
    expect(limited.body.error).toBe('temporarily_unavailable');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expectMatchesOpenApi(limited, 'post', '/oauth/register');
    expect(await t.repositories.clients.listAll()).toHaveLength(1);
    t.clock.advance(601);
    expect((await request(t.app).post('/oauth/register').send(AGENT)).status).toBe(201);
  });

  it('takes POST only at the endpoint, and GET, PUT, DELETE at a registration', async () => {
    const t = await createTestApp({ settings: { registration: { policy: 'open' } } });
    const get = await request(t.app).get('/oauth/register');
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');
    const patch = await request(t.app).patch('/oauth/register/abc').send({});
    expect(patch.status).toBe(405);
    expect(patch.headers.allow).toBe('GET, PUT, DELETE');
  });

  it('works behind the host’s own JSON parser, in a router under the issuer’s path', async () => {
    const t = await createTestGatehouse({ settings: { issuer: 'http://localhost:3000/auth', registration: { policy: 'open' } } });
    const app = express();
    app.use(express.json());
    app.use(authorizationServerMetadataRouter(t.gatehouse));
    app.use('/auth', createGatehouseRouter({ gatehouse: t.gatehouse }));
    const metadata = await request(app).get('/.well-known/oauth-authorization-server/auth');
    expect(metadata.body.registration_endpoint).toBe('http://localhost:3000/auth/oauth/register');
    const created = await request(app).post('/auth/oauth/register').send(AGENT);
    expect(created.status).toBe(201);
    expect(created.body.registration_client_uri).toBe(`http://localhost:3000/auth/oauth/register/${created.body.client_id as string}`);
    const read = await request(app).get(`/auth/oauth/register/${created.body.client_id as string}`).set('Authorization', `Bearer ${created.body.registration_access_token as string}`);
    expect(read.status).toBe(200);
    const tooBig = await request(app).post('/auth/oauth/register').send({ ...AGENT, padding: 'x'.repeat(20_000) });
    expect(tooBig.status).toBe(413);
  });
});
