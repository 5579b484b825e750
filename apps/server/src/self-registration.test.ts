import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createControllableClock } from '@gatehouse/core/testing';
import { discoverAuthorizationServerMetadata, discoverOAuthProtectedResourceMetadata, registerClient, startAuthorization } from '@modelcontextprotocol/sdk/client/auth.js';
import request from 'supertest';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';
import { createContainer, resolve, TOKENS } from './container.js';

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-self-registration-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let databases = 0;

const AGENT = { client_name: 'Agent', redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none' };

async function withServer(env: Record<string, string>, body: (services: Awaited<ReturnType<typeof createContainer>>, clock: ReturnType<typeof createControllableClock>) => Promise<void>): Promise<void> {
  const clock = createControllableClock();
  const config = loadConfig({ GATEHOUSE_DB: join(dir, `server${(databases += 1)}.db`), GATEHOUSE_LOG_LEVEL: 'silent', GATEHOUSE_DEMO: 'false', ...env });
  const services = await createContainer(config, { logDestination: { write: () => undefined }, clock });
  try {
    await body(services, clock);
  } finally {
    await resolve(services, TOKENS.storage).close();
  }
}

/** `withServer` listening on a free loopback port: `fetchAt` fetches the issuer's URLs (`http://localhost:3000`) from it. */
async function withListeningServer(env: Record<string, string>, body: (fetchAt: typeof fetch) => Promise<void>): Promise<void> {
  await withServer(env, async (services) => {
    const server = resolve(services, TOKENS.httpApp).listen(0, '127.0.0.1');
    await new Promise<void>((done) => server.once('listening', done));
    const local = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const fetchAt: typeof fetch = (input, init) => fetch(String(input instanceof Request ? input.url : input).replace('http://localhost:3000', local), init);
    try {
      await body(fetchAt);
    } finally {
      await new Promise<void>((done) => server.close(() => done()));
    }
  });
}

describe('the reference server with GATEHOUSE_REGISTRATION and GATEHOUSE_CLIENT_METADATA_DOCUMENTS', () => {
  it('serves nothing of either by default', async () => {
    await withServer({}, async (services) => {
      const app = resolve(services, TOKENS.httpApp);
      const metadata = await request(app).get('/.well-known/oauth-authorization-server');
      expect(metadata.body).not.toHaveProperty('registration_endpoint');
      expect(metadata.body).not.toHaveProperty('client_id_metadata_document_supported');
      expect((await request(app).post('/oauth/register').send(AGENT)).status).toBe(404);
      const authorize = await request(app).get(`/oauth/authorize?${new URLSearchParams({ client_id: 'https://127.0.0.1:1/client.json', response_type: 'code' })}`);
      expect(authorize.status).toBe(400);
      expect(authorize.text).toContain('The client is not known.');
    });
  });

  it('opens registration with its per-IP limit, fetches metadata documents, and purges clients never used', async () => {
    const env = { GATEHOUSE_REGISTRATION: 'open', GATEHOUSE_REGISTRATION_RATE_LIMIT: '2', GATEHOUSE_CLIENT_METADATA_DOCUMENTS: 'on', GATEHOUSE_CLIENT_METADATA_DOCUMENT_ALLOW_PRIVATE: 'true' };
    await withServer(env, async (services, clock) => {
      const app = resolve(services, TOKENS.httpApp);
      const gatehouse = resolve(services, TOKENS.gatehouse);
      const metadata = await request(app).get('/.well-known/oauth-authorization-server');
      expect(metadata.body).toMatchObject({ registration_endpoint: 'http://localhost:3000/oauth/register', client_id_metadata_document_supported: true });

      const first = await request(app).post('/oauth/register').send(AGENT);
      expect(first.status).toBe(201);
      expect((await request(app).post('/oauth/register').send(AGENT)).status).toBe(201);
      expect((await request(app).post('/oauth/register').send(AGENT)).status).toBe(429);

      // The document fetcher is wired: a document that cannot be reached is explained, never redirected to.
      const authorize = await request(app).get(`/oauth/authorize?${new URLSearchParams({ client_id: 'https://127.0.0.1:1/client.json', response_type: 'code', redirect_uri: 'http://127.0.0.1/cb' })}`);
      expect(authorize.status).toBe(400);
      expect(authorize.text).toContain('could not be fetched');

      clock.advance(7 * 86400 + 1);
      expect(await gatehouse.purgeExpired()).toMatchObject({ unusedClients: 2 });
      expect(await gatehouse.listClients()).toEqual([]);
      const gone = await request(app).get(`/oauth/register/${first.body.client_id as string}`).set('Authorization', `Bearer ${first.body.registration_access_token as string}`);
      expect(gone.status).toBe(401);
    });
  });

  it('registers the MCP SDK’s client, which asks for every scope the protected resource lists, with the scopes GATEHOUSE_REGISTRATION_SCOPES allows (docs/decisions/0196)', async () => {
    await withListeningServer({ GATEHOUSE_REGISTRATION: 'open', GATEHOUSE_REGISTRATION_SCOPES: 'messaging.v1.read' }, async (fetchAt) => {
      const resource = await discoverOAuthProtectedResourceMetadata('http://localhost:3000', undefined, fetchAt);
      expect(resource.scopes_supported).toEqual(expect.arrayContaining(['messaging.v1.read', 'messaging.v1.send', 'admin.v1.attributes.read']));
      const metadata = await discoverAuthorizationServerMetadata(resource.authorization_servers?.[0] as string, { fetchFn: fetchAt });
      // What the SDK's auth() registers with (SEP-835): the scopes the resource metadata lists.
      const information = await registerClient('http://localhost:3000', {
        metadata,
        clientMetadata: { client_name: 'MCP agent', redirect_uris: ['http://127.0.0.1:33418/callback'], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' },
        scope: resource.scopes_supported?.join(' '),
        fetchFn: fetchAt,
      });
      expect(information).toMatchObject({ client_id: expect.any(String), scope: 'messaging.v1.read' });
      // Its authorization request asks for the same scopes again: narrowed the same way, a valid
      // request that goes on to sign in (not the error page).
      const { authorizationUrl } = await startAuthorization('http://localhost:3000', {
        metadata,
        clientInformation: information,
        redirectUrl: 'http://127.0.0.1:33418/callback',
        scope: resource.scopes_supported?.join(' '),
        resource: new URL(resource.resource),
      });
      const authorize = await fetchAt(authorizationUrl, { redirect: 'manual' });
      expect(authorize.status).toBe(302);
      expect(authorize.headers.get('location')).toMatch(/^\/oauth\/login\?/);
    });
  });
});
