import { describe, expect, it } from 'vitest';
import { createControllableClock, createMemoryRepositories, createTestGatehouse, s256Challenge } from '@gatehouse/core/testing';
import { cachedClientRepository, DEFAULT_CLIENT_CACHE } from '../clients/cached-client-repository.js';
import { sha256 } from '../crypto.js';
import type { Client } from '../domain/model.js';
import type { OAuthError } from '../errors.js';
import type { RegistrationSettings } from '../registration-settings.js';
import { expectOAuthError } from '../test-support/rejections.js';

const AGENT = {
  client_name: 'Agent',
  redirect_uris: ['http://127.0.0.1:33418/callback'],
  token_endpoint_auth_method: 'none',
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
};

const INITIAL_TOKEN = 'initial-access-token-0123456789-abcdefghij';

/** Authorize (with PKCE, as every dynamic client must), consent and exchange: the tokens of `userKey`. */
async function tokensFor(t: Awaited<ReturnType<typeof gatehouseWith>>, client: Client, userKey: string, redirectUri = client.redirectUris[0] as string) {
  const verifier = 'v'.repeat(50);
  const check = await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', redirect_uri: redirectUri, code_challenge: s256Challenge(verifier), code_challenge_method: 'S256' });
  if (check.kind !== 'valid') throw new Error(`refused: ${JSON.stringify(check)}`);
  const { redirectTo } = await t.gatehouse.approveAuthorization({ request: check.request, userKey, sessionId: null });
  const code = new URL(redirectTo).searchParams.get('code') as string;
  return { redirectTo, tokens: await t.gatehouse.exchangeCode({ client, code, redirectUri, codeVerifier: verifier }) };
}

async function gatehouseWith(registration: Partial<RegistrationSettings> = { policy: 'open' }) {
  return createTestGatehouse({ settings: { registration } });
}

/** Registers `metadata` and expects the error `code` naming `field`, with nothing stored. */
async function refused(t: Awaited<ReturnType<typeof gatehouseWith>>, metadata: unknown, code: string, field: string, initialAccessToken?: string): Promise<OAuthError> {
  const before = (await t.repositories.clients.listAll()).length;
  const error = await expectOAuthError(t.gatehouse.registerDynamicClient({ metadata, initialAccessToken }), code as OAuthError['code']);
  expect(error.description.startsWith(`${field}: `)).toBe(true);
  expect((await t.repositories.clients.listAll()).length).toBe(before);
  return error;
}

describe('registerDynamicClient (RFC 7591)', () => {
  it('registers a public native client: its id, the registration access token once (a hash stored), PKCE required', async () => {
    const t = await gatehouseWith();
    const { client, information } = await t.gatehouse.registerDynamicClient({ metadata: AGENT, initialAccessToken: undefined });
    expect(information).toEqual({
      client_id: client.clientId,
      client_id_issued_at: Math.floor(t.clock.now().getTime() / 1000),
      client_name: 'Agent',
      redirect_uris: ['http://127.0.0.1:33418/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      scope: 'messaging.v1.send messaging.v1.read admin.v1.attributes.read admin.v1.attributes.write',
      application_type: 'native',
      registration_access_token: expect.stringMatching(/^[A-Za-z0-9]{43}$/),
    });
    const stored = await t.repositories.clients.findById(client.clientId);
    expect(stored).toMatchObject({ clientSecretHash: null, pkceRequired: true, ownerUserKey: null });
    expect(stored?.registration).toEqual({
      kind: 'dynamic',
      registrationAccessTokenHash: sha256(information.registration_access_token as string),
      anonymous: true,
      metadata: { applicationType: 'native', tokenEndpointAuthMethod: 'none' },
      firstUsedAt: null,
    });
    expect(JSON.stringify(stored)).not.toContain(information.registration_access_token as string);
    expect(t.audit.ofType('client.created')).toMatchObject([{ clientId: client.clientId, reason: 'dynamic registration, anonymous' }]);
  });

  it('registers a confidential web client with a secret that does not expire, and echoes the metadata it knows, ignoring the rest', async () => {
    const t = await gatehouseWith();
    const { client, information } = await t.gatehouse.registerDynamicClient({
      metadata: {
        client_name: 'Web app',
        redirect_uris: ['https://app.example/cb'],
        scope: 'messaging.v1.read',
        client_uri: 'https://app.example',
        logo_uri: 'https://app.example/logo.png',
        policy_uri: 'https://app.example/privacy',
        tos_uri: 'https://app.example/terms',
        contacts: ['ops@app.example'],
        software_id: 'web-app',
        software_version: '2.0',
        jwks_uri: 'https://app.example/jwks',
        software_statement: 'eyJ…',
        'client_name#fr': 'Appli web',
        made_up_field: { nested: true },
      },
      initialAccessToken: undefined,
    });
    expect(information).toMatchObject({
      client_secret: expect.stringMatching(/^[A-Za-z0-9]{43}$/),
      client_secret_expires_at: 0,
      token_endpoint_auth_method: 'client_secret_basic',
      grant_types: ['authorization_code'],
      response_types: ['code'],
      scope: 'messaging.v1.read',
      application_type: 'web',
      client_uri: 'https://app.example',
      logo_uri: 'https://app.example/logo.png',
      policy_uri: 'https://app.example/privacy',
      tos_uri: 'https://app.example/terms',
      contacts: ['ops@app.example'],
      software_id: 'web-app',
      software_version: '2.0',
    });
    for (const ignored of ['jwks_uri', 'software_statement', 'client_name#fr', 'made_up_field']) expect(information).not.toHaveProperty(ignored);
    const authenticated = await t.gatehouse.authenticateClient({ clientId: client.clientId, clientSecret: information.client_secret as string });
    expect(authenticated.clientId).toBe(client.clientId);
    expect((await t.repositories.clients.findById(client.clientId))?.pkceRequired).toBe(true);
  });

  it('remembers client_secret_post to echo it, and names an unnamed client', async () => {
    const t = await gatehouseWith();
    const { information } = await t.gatehouse.registerDynamicClient({ metadata: { redirect_uris: ['https://app.example/cb'], token_endpoint_auth_method: 'client_secret_post' }, initialAccessToken: undefined });
    expect(information).toMatchObject({ token_endpoint_auth_method: 'client_secret_post', client_name: 'Unnamed app' });
  });

  it('lets a native client use a private-use scheme, and the code flow runs with PKCE through it', async () => {
    const t = await gatehouseWith();
    const user = await t.seedUser();
    const { client } = await t.gatehouse.registerDynamicClient({ metadata: { ...AGENT, redirect_uris: ['com.example.agent:/callback'], application_type: 'native' }, initialAccessToken: undefined });
    const { redirectTo, tokens } = await tokensFor(t, client, user.userKey);
    expect(redirectTo.startsWith('com.example.agent:/callback?code=')).toBe(true);
    expect(tokens.refresh_token).toBeDefined();
    // Without PKCE, never: every dynamic client must send a challenge. Its error is shown, never
    // sent back: nobody vouches for its redirect URI (docs/decisions/0198).
    const check = await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', redirect_uri: 'com.example.agent:/callback' });
    expect(check).toMatchObject({ kind: 'show-error', error: { code: 'invalid_request' } });
  });

  it('refuses each field that cannot be accepted, naming it, and stores nothing', async () => {
    const t = await gatehouseWith();
    await refused(t, { ...AGENT, redirect_uris: undefined }, 'invalid_redirect_uri', 'redirect_uris');
    await refused(t, { ...AGENT, redirect_uris: 'http://127.0.0.1/cb' }, 'invalid_redirect_uri', 'redirect_uris');
    await refused(t, { ...AGENT, redirect_uris: ['http://app.example/cb'] }, 'invalid_redirect_uri', 'redirect_uris');
    await refused(t, { ...AGENT, redirect_uris: ['https://app.example/cb#x'] }, 'invalid_redirect_uri', 'redirect_uris');
    await refused(t, { ...AGENT, application_type: 'web' }, 'invalid_redirect_uri', 'redirect_uris');
    await refused(t, { ...AGENT, redirect_uris: Array.from({ length: 21 }, (_, i) => `http://127.0.0.1/cb${i}`) }, 'invalid_redirect_uri', 'redirect_uris');
    await refused(t, { ...AGENT, application_type: 'desktop' }, 'invalid_client_metadata', 'application_type');
    await refused(t, { ...AGENT, token_endpoint_auth_method: 'private_key_jwt' }, 'invalid_client_metadata', 'token_endpoint_auth_method');
    await refused(t, { ...AGENT, grant_types: ['password'] }, 'invalid_client_metadata', 'grant_types');
    await refused(t, { ...AGENT, grant_types: ['refresh_token'], response_types: [] }, 'invalid_client_metadata', 'grant_types');
    await refused(t, { ...AGENT, response_types: ['token'] }, 'invalid_client_metadata', 'response_types');
    await refused(t, { ...AGENT, response_types: [] }, 'invalid_client_metadata', 'response_types');
    await refused(t, { ...AGENT, scope: 'messaging.v1.read orders.v1.read' }, 'invalid_client_metadata', 'scope');
    await refused(t, { ...AGENT, scope: 42 }, 'invalid_client_metadata', 'scope');
    await refused(t, { ...AGENT, client_name: 'x'.repeat(101) }, 'invalid_client_metadata', 'client_name');
    await refused(t, { ...AGENT, client_name: 'Bad\u0000name' }, 'invalid_client_metadata', 'client_name');
    await refused(t, { ...AGENT, client_uri: 'javascript:alert(1)' }, 'invalid_client_metadata', 'client_uri');
    await refused(t, { ...AGENT, logo_uri: `https://app.example/${'x'.repeat(1000)}` }, 'invalid_client_metadata', 'logo_uri');
    await refused(t, { ...AGENT, contacts: 'ops@app.example' }, 'invalid_client_metadata', 'contacts');
    await refused(t, { ...AGENT, contacts: Array.from({ length: 11 }, (_, i) => `c${i}@app.example`) }, 'invalid_client_metadata', 'contacts');
    await refused(t, { ...AGENT, software_version: 'v'.repeat(201) }, 'invalid_client_metadata', 'software_version');
    await refused(t, { ...AGENT, token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'client_credentials'] }, 'invalid_client_metadata', 'grant_types');
    for (const body of [null, [], 'text', 7]) {
      await expectOAuthError(t.gatehouse.registerDynamicClient({ metadata: body, initialAccessToken: undefined }), 'invalid_client_metadata');
    }
    expect(await t.repositories.clients.listAll()).toEqual([]);
  });

  it('refuses a redirect URI not written as a URL parser writes it back, HTTPS:// among them, naming the form to write (RFC 7591 §3.2.2, docs/decisions/0197)', async () => {
    const t = await gatehouseWith();
    const loopback = await refused(t, { ...AGENT, redirect_uris: ['http://127.1:33418/callback'] }, 'invalid_redirect_uri', 'redirect_uris');
    expect(loopback.description).toContain('write it as http://127.0.0.1:33418/callback');
    const upper = await refused(t, { ...AGENT, redirect_uris: ['HTTPS://app.example/cb'] }, 'invalid_redirect_uri', 'redirect_uris');
    expect(upper.description).toContain('write it as https://app.example/cb');
  });

  it('keeps an anonymous client within the open limits: the allowed scopes (by default all of them), never client_credentials', async () => {
    const t = await gatehouseWith({ policy: 'open', anonymousScopes: ['messaging.v1.read', 'admin.v1.attributes.read'] });
    const error = await refused(t, { ...AGENT, scope: 'messaging.v1.send' }, 'invalid_client_metadata', 'scope');
    expect(error.description).toBe('scope: messaging.v1.send is not available to clients that register themselves.');
    const machine = { redirect_uris: [], grant_types: ['client_credentials'], response_types: [], token_endpoint_auth_method: 'client_secret_basic' };
    const credentials = await refused(t, machine, 'invalid_client_metadata', 'grant_types');
    expect(credentials.description).toContain('needs an initial access token');
    const { information } = await t.gatehouse.registerDynamicClient({ metadata: AGENT, initialAccessToken: undefined });
    expect(information.scope).toBe('messaging.v1.read admin.v1.attributes.read');
  });

  it('narrows the scope an anonymous client asks for to those it may have, and answers the scope registered; an update too (docs/decisions/0196)', async () => {
    const t = await gatehouseWith({ policy: 'open', anonymousScopes: ['messaging.v1.read', 'admin.v1.attributes.read'] });
    // As the MCP SDK registers: every scope the protected resource lists.
    const every = 'messaging.v1.send messaging.v1.read admin.v1.attributes.read admin.v1.attributes.write';
    const { client, information } = await t.gatehouse.registerDynamicClient({ metadata: { ...AGENT, scope: every }, initialAccessToken: undefined });
    expect(information.scope).toBe('messaging.v1.read admin.v1.attributes.read');
    expect((await t.repositories.clients.findById(client.clientId))?.scopes).toEqual(['messaging.v1.read', 'admin.v1.attributes.read']);
    const updated = await t.gatehouse.updateDynamicClient({
      clientId: client.clientId,
      registrationAccessToken: information.registration_access_token as string,
      metadata: { ...AGENT, client_id: client.clientId, scope: 'messaging.v1.send admin.v1.attributes.read' },
    });
    expect(updated.scope).toBe('admin.v1.attributes.read');
    expect((await t.repositories.clients.findById(client.clientId))?.scopes).toEqual(['admin.v1.attributes.read']);
    // Nothing allowed left: refused, as is a scope the server does not have, allowed ones beside it or not.
    const none = await refused(t, { ...AGENT, scope: 'messaging.v1.send admin.v1.attributes.write' }, 'invalid_client_metadata', 'scope');
    expect(none.description).toBe('scope: none of messaging.v1.send, admin.v1.attributes.write is available to clients that register themselves.');
    const unknown = await refused(t, { ...AGENT, scope: 'messaging.v1.read messaging.v1.send orders.v1.read' }, 'invalid_client_metadata', 'scope');
    expect(unknown.description).toBe('scope: The scope orders.v1.read is not in the catalogue.');
  });

  it('narrows an anonymous client\'s authorization request the same way: its registered scopes of those asked; none of them, invalid_scope; a vouched client is refused a scope it lacks (docs/decisions/0196)', async () => {
    const t = await gatehouseWith({ policy: 'open', anonymousScopes: ['messaging.v1.read'], initialAccessTokenHashes: [sha256(INITIAL_TOKEN)] });
    const every = 'messaging.v1.send messaging.v1.read admin.v1.attributes.read';
    const { client } = await t.gatehouse.registerDynamicClient({ metadata: { ...AGENT, scope: every }, initialAccessToken: undefined });
    const check = (clientId: string, redirectUri: string, scope: string) =>
      t.gatehouse.checkAuthorizationRequest({ client_id: clientId, response_type: 'code', redirect_uri: redirectUri, scope, code_challenge: s256Challenge('v'.repeat(50)), code_challenge_method: 'S256' });
    const narrowed = await check(client.clientId, client.redirectUris[0] as string, every);
    expect(narrowed.kind === 'valid' && narrowed.request.scopes).toEqual(['messaging.v1.read']);
    expect(await check(client.clientId, client.redirectUris[0] as string, 'messaging.v1.send')).toMatchObject({ error: { code: 'invalid_scope' } });
    expect(await check(client.clientId, client.redirectUris[0] as string, 'messaging.v1.read orders.v1.read')).toMatchObject({ error: { code: 'invalid_scope' } });
    const vouched = await t.gatehouse.registerDynamicClient({ metadata: { ...AGENT, scope: 'messaging.v1.read' }, initialAccessToken: INITIAL_TOKEN });
    expect(await check(vouched.client.clientId, vouched.client.redirectUris[0] as string, every)).toMatchObject({ error: { code: 'invalid_scope' } });
  });

  it('is off by default: no one registers', async () => {
    const t = await createTestGatehouse();
    await expectOAuthError(t.gatehouse.registerDynamicClient({ metadata: AGENT, initialAccessToken: undefined }), 'access_denied');
    await expectOAuthError(t.gatehouse.registerDynamicClient({ metadata: AGENT, initialAccessToken: INITIAL_TOKEN }), 'access_denied');
    expect(await t.repositories.clients.listAll()).toEqual([]);
  });

  it('needs a valid initial access token under the token policy, and then lifts the anonymous limits', async () => {
    const t = await gatehouseWith({ policy: 'token', initialAccessTokenHashes: [sha256('another-token'), sha256(INITIAL_TOKEN)], anonymousScopes: ['messaging.v1.read'] });
    await expectOAuthError(t.gatehouse.registerDynamicClient({ metadata: AGENT, initialAccessToken: undefined }), 'invalid_token');
    await expectOAuthError(t.gatehouse.registerDynamicClient({ metadata: AGENT, initialAccessToken: 'wrong' }), 'invalid_token');
    expect(await t.repositories.clients.listAll()).toEqual([]);
    const machine = { client_name: 'Batch', redirect_uris: [], grant_types: ['client_credentials'], response_types: [], scope: 'messaging.v1.send' };
    const { client, information } = await t.gatehouse.registerDynamicClient({ metadata: machine, initialAccessToken: INITIAL_TOKEN });
    expect(information).toMatchObject({ grant_types: ['client_credentials'], response_types: [], scope: 'messaging.v1.send' });
    expect(client.registration).toMatchObject({ kind: 'dynamic', anonymous: false });
    expect(t.audit.ofType('client.created')).toMatchObject([{ reason: 'dynamic registration, initial access token' }]);
  });

  it('under the open policy, takes a valid initial access token as lifting the limits, and refuses an invalid one', async () => {
    const t = await gatehouseWith({ policy: 'open', initialAccessTokenHashes: [sha256(INITIAL_TOKEN)], anonymousScopes: ['messaging.v1.read'] });
    await expectOAuthError(t.gatehouse.registerDynamicClient({ metadata: AGENT, initialAccessToken: 'wrong' }), 'invalid_token');
    const { information } = await t.gatehouse.registerDynamicClient({ metadata: { ...AGENT, scope: 'messaging.v1.send' }, initialAccessToken: INITIAL_TOKEN });
    expect(information.scope).toBe('messaging.v1.send');
  });
});

describe('managing a dynamic client (RFC 7592)', () => {
  async function registered(metadata: Record<string, unknown> = AGENT, registration: Partial<RegistrationSettings> = { policy: 'open' }) {
    const t = await gatehouseWith(registration);
    const { client, information } = await t.gatehouse.registerDynamicClient({ metadata, initialAccessToken: undefined });
    return { t, client, information, token: information.registration_access_token as string };
  }

  it('reads the registration with its token, never showing the secret again: its expiry (none), and a new registration access token (RFC 7592 §3)', async () => {
    const { t, client, information, token } = await registered({ ...AGENT, token_endpoint_auth_method: 'client_secret_basic' });
    const read = await t.gatehouse.readDynamicClient({ clientId: client.clientId, registrationAccessToken: token });
    const { client_secret: _secret, registration_access_token: _token, ...expected } = information;
    expect(read).toEqual({ ...expected, client_secret_expires_at: 0, registration_access_token: expect.stringMatching(/^[A-Za-z0-9]{43}$/) });
    expect(read.registration_access_token).not.toBe(token);
    expect(read).not.toHaveProperty('client_secret');
    // A public client has no secret, so nothing expires.
    const agent = await registered();
    expect(await agent.t.gatehouse.readDynamicClient({ clientId: agent.client.clientId, registrationAccessToken: agent.token })).not.toHaveProperty('client_secret_expires_at');
  });

  it('issues a new registration access token on every read and update, and keeps only its hash; the one replaced counts only for a retry within the grace', async () => {
    const { t, client, token: first } = await registered({ ...AGENT, token_endpoint_auth_method: 'client_secret_basic', redirect_uris: ['https://app.example/cb'] });
    const clientId = client.clientId;
    const read = (registrationAccessToken: string) => t.gatehouse.readDynamicClient({ clientId, registrationAccessToken });
    const tokenOf = (answer: Record<string, unknown>) => answer.registration_access_token as string;
    const stored = async () => (await t.repositories.clients.findById(clientId))?.registration as Extract<Client['registration'], { kind: 'dynamic' }>;

    const second = tokenOf(await read(first));
    expect(second).not.toBe(first);
    expect(await stored()).toMatchObject({ registrationAccessTokenHash: sha256(second), previousRegistrationAccessToken: { hash: sha256(first), replacedAt: t.clock.now() } });
    expect(JSON.stringify(await t.repositories.clients.findById(clientId))).not.toContain(second);

    // An update answers a new one too, and its metadata is the update's.
    const third = tokenOf(await t.gatehouse.updateDynamicClient({ clientId, registrationAccessToken: second, metadata: { ...AGENT, client_id: clientId, token_endpoint_auth_method: 'client_secret_basic', redirect_uris: ['https://app.example/cb'], client_name: 'Agent 2' } }));
    expect(new Set([first, second, third]).size).toBe(3);
    // The client used the second token, so it got the first's answer: the first counts no more.
    await expectOAuthError(read(first), 'invalid_token');

    // The answer with `fourth` is lost; the client retries with `third` within the grace and gets `fifth`, which replaces `fourth`.
    const fourth = tokenOf(await read(third));
    t.clock.advance(59);
    const fifth = tokenOf(await read(third));
    await expectOAuthError(read(fourth), 'invalid_token');
    // The grace began when `fourth` replaced `third`; the retry did not lengthen it.
    t.clock.advance(1);
    await expectOAuthError(read(third), 'invalid_token');
    const sixth = tokenOf(await read(fifth));
    expect(await stored()).toEqual(expect.objectContaining({ registrationAccessTokenHash: sha256(sixth), previousRegistrationAccessToken: { hash: sha256(fifth), replacedAt: t.clock.now() } }));
  });

  it('lets only one of two requests with the same token get a token that works: the other is invalid_token, as a wrong token is, and changes nothing', async () => {
    const { t, client, token } = await registered();
    const clientId = client.clientId;
    const reads = await Promise.allSettled([t.gatehouse.readDynamicClient({ clientId, registrationAccessToken: token }), t.gatehouse.readDynamicClient({ clientId, registrationAccessToken: token })]);
    expect(reads.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    const won = reads.find((outcome) => outcome.status === 'fulfilled') as PromiseFulfilledResult<Record<string, unknown>>;
    const lost = reads.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
    expect(lost.reason).toMatchObject({ code: 'invalid_token', description: 'The registration access token is not valid for this client.' });
    const next = won.value.registration_access_token as string;
    expect((await t.repositories.clients.findById(clientId))?.registration).toMatchObject({ registrationAccessTokenHash: sha256(next) });

    // Two updates with the same token: one is made, the other refused, with nothing of it stored.
    const update = (name: string) => t.gatehouse.updateDynamicClient({ clientId, registrationAccessToken: next, metadata: { ...AGENT, client_id: clientId, client_name: name } });
    const updates = await Promise.allSettled([update('First'), update('Second')]);
    expect(updates.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected']);
    expect((updates[1] as PromiseRejectedResult).reason).toMatchObject({ code: 'invalid_token' });
    const winner = (updates[0] as PromiseFulfilledResult<Record<string, unknown>>).value;
    expect(await t.repositories.clients.findById(clientId)).toMatchObject({ name: 'First', registration: { registrationAccessTokenHash: sha256(winner.registration_access_token as string) } });
    expect(t.audit.ofType('client.updated')).toHaveLength(1);
  });

  it('takes a token another instance issued a moment ago, whatever the client cache of this one holds', async () => {
    const database = createMemoryRepositories();
    const clock = createControllableClock();
    const instance = async () => createTestGatehouse({ settings: { registration: { policy: 'open' } }, repositories: { ...database, clients: cachedClientRepository(database.clients, clock, DEFAULT_CLIENT_CACHE) } });
    const [here, there] = [await instance(), await instance()];
    const { client, information } = await here.gatehouse.registerDynamicClient({ metadata: AGENT, initialAccessToken: undefined });
    // The other instance reads the client for an authorization request: it keeps it for a few seconds.
    expect((await there.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', redirect_uri: client.redirectUris[0] as string, code_challenge: s256Challenge('v'.repeat(50)), code_challenge_method: 'S256' })).kind).toBe('valid');
    const next = await here.gatehouse.readDynamicClient({ clientId: client.clientId, registrationAccessToken: information.registration_access_token as string });
    const read = await there.gatehouse.readDynamicClient({ clientId: client.clientId, registrationAccessToken: next.registration_access_token as string });
    expect(read.client_id).toBe(client.clientId);
  });

  it('answers invalid_token alike for a wrong token, another client’s token, an unknown client and a static client', async () => {
    const { t, client, token } = await registered();
    const other = await t.gatehouse.registerDynamicClient({ metadata: AGENT, initialAccessToken: undefined });
    const { client: staticClient } = await t.seedClient();
    for (const attempt of [
      { clientId: client.clientId, registrationAccessToken: 'wrong' },
      { clientId: client.clientId, registrationAccessToken: other.information.registration_access_token as string },
      { clientId: 'unknown', registrationAccessToken: token },
      { clientId: staticClient.clientId, registrationAccessToken: token },
    ]) {
      const error = await expectOAuthError(t.gatehouse.readDynamicClient(attempt), 'invalid_token');
      expect(error.description).toBe('The registration access token is not valid for this client.');
      await expectOAuthError(t.gatehouse.deleteDynamicClient(attempt), 'invalid_token');
    }
    expect(await t.repositories.clients.findById(staticClient.clientId)).toBeDefined();
  });

  it('replaces the metadata on update: omitted fields take their defaults again', async () => {
    const { t, client, token } = await registered({ ...AGENT, client_uri: 'https://agent.example', software_version: '1.0' });
    const updated = await t.gatehouse.updateDynamicClient({
      clientId: client.clientId,
      registrationAccessToken: token,
      metadata: { client_id: client.clientId, client_name: 'Agent 2', redirect_uris: ['http://127.0.0.1:40000/callback', 'com.example.agent:/cb'], token_endpoint_auth_method: 'none', software_version: '2.0' },
    });
    expect(updated).toMatchObject({ client_name: 'Agent 2', redirect_uris: ['http://127.0.0.1:40000/callback', 'com.example.agent:/cb'], grant_types: ['authorization_code'], software_version: '2.0' });
    expect(updated).not.toHaveProperty('client_uri');
    const { registration_access_token: next, ...metadata } = updated;
    expect(await t.gatehouse.readDynamicClient({ clientId: client.clientId, registrationAccessToken: next as string })).toEqual({ ...metadata, registration_access_token: expect.any(String) });
    expect(t.audit.ofType('client.updated')).toMatchObject([{ clientId: client.clientId }]);
  });

  it('refuses an update that names another client, a wrong secret, a change of client type or a field out of bounds, and changes nothing', async () => {
    const { t, client, token, information } = await registered({ ...AGENT, token_endpoint_auth_method: 'client_secret_post' }, { policy: 'open', anonymousScopes: ['messaging.v1.read'] });
    const before = await t.repositories.clients.findById(client.clientId);
    const base = { client_id: client.clientId, redirect_uris: ['https://app.example/cb'], token_endpoint_auth_method: 'client_secret_post' };
    const attempts: Array<[Record<string, unknown>, string]> = [
      [{ ...base, client_id: 'other' }, 'invalid_request'],
      [{ ...base, client_id: undefined }, 'invalid_request'],
      [{ ...base, client_secret: 'wrong' }, 'invalid_request'],
      [{ ...base, token_endpoint_auth_method: 'none' }, 'invalid_client_metadata'],
      [{ ...base, scope: 'messaging.v1.send' }, 'invalid_client_metadata'],
      [{ ...base, redirect_uris: ['ftp://app.example/cb'] }, 'invalid_redirect_uri'],
    ];
    for (const [metadata, code] of attempts) {
      await expectOAuthError(t.gatehouse.updateDynamicClient({ clientId: client.clientId, registrationAccessToken: token, metadata }), code as OAuthError['code']);
    }
    expect(await t.repositories.clients.findById(client.clientId)).toEqual(before);
    // The right secret may be sent along (RFC 7592 §2.2).
    const updated = await t.gatehouse.updateDynamicClient({ clientId: client.clientId, registrationAccessToken: token, metadata: { ...base, client_secret: information.client_secret } });
    expect(updated.redirect_uris).toEqual(['https://app.example/cb']);
  });

  it('deletes the client with its grants: its tokens stop working at once', async () => {
    const { t, client, token } = await registered({ ...AGENT, token_endpoint_auth_method: 'client_secret_basic', redirect_uris: ['https://app.example/cb'] });
    const user = await t.seedUser();
    const { tokens } = await tokensFor(t, client, user.userKey);
    await t.gatehouse.verifyAccessToken(tokens.access_token);
    await t.gatehouse.deleteDynamicClient({ clientId: client.clientId, registrationAccessToken: token });
    expect(await t.repositories.clients.findById(client.clientId)).toBeUndefined();
    await expectOAuthError(t.gatehouse.verifyAccessToken(tokens.access_token), 'invalid_token');
    await expectOAuthError(t.gatehouse.readDynamicClient({ clientId: client.clientId, registrationAccessToken: token }), 'invalid_token');
  });
});

describe('an RFC 7592 update and remembered consent (docs/decisions/0195)', () => {
  const ORIGINAL = {
    client_name: 'Original',
    redirect_uris: ['https://d.example/cb', 'https://d.example/other'],
    token_endpoint_auth_method: 'none',
    scope: 'messaging.v1.read messaging.v1.send',
    client_uri: 'https://d.example',
    logo_uri: 'https://d.example/logo.png',
    policy_uri: 'https://d.example/privacy',
    tos_uri: 'https://d.example/terms',
    contacts: ['ops@d.example'],
    software_version: '1.0',
  };

  /** A public client with `https` redirects (whose consent may be remembered), allowed by two users; `update` replaces its metadata with `ORIGINAL` and the changes (RFC 7592 §2.2). */
  async function allowedByTwo() {
    const t = await gatehouseWith();
    const { client, information } = await t.gatehouse.registerDynamicClient({ metadata: ORIGINAL, initialAccessToken: undefined });
    const users = [await t.seedUser({ email: 'ada@example.com' }), await t.seedUser({ email: 'bob@example.com' })];
    const step = async (userKey: string, redirectUri = ORIGINAL.redirect_uris[0] as string) => {
      const check = await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', redirect_uri: redirectUri, scope: 'messaging.v1.read', code_challenge: s256Challenge('v'.repeat(50)), code_challenge_method: 'S256' });
      if (check.kind !== 'valid') throw new Error(`refused: ${JSON.stringify(check)}`);
      return { check, step: await t.gatehouse.nextAuthorizationStep({ request: check.request, user: { userKey, sessionId: 'session-1', authenticatedAt: t.clock.now() }, returnTo: '/oauth/authorize' }) };
    };
    for (const user of users) {
      const { check } = await step(user.userKey);
      await t.gatehouse.approveAuthorization({ request: check.request, userKey: user.userKey, sessionId: 'session-1' });
      expect((await step(user.userKey)).step.kind).toBe('redirect');
    }
    let token = information.registration_access_token as string;
    const update = async (changes: Record<string, unknown>) => {
      const answer = await t.gatehouse.updateDynamicClient({ clientId: client.clientId, registrationAccessToken: token, metadata: { ...ORIGINAL, ...changes, client_id: client.clientId } });
      token = answer.registration_access_token as string;
      return answer;
    };
    return { t, client, users, step, update };
  }

  it('keeps it through an update that changes nothing the users were shown, then forgets every user’s when the name and the redirect URIs change: the next authorization asks again', async () => {
    const { t, client, users, step, update } = await allowedByTwo();
    // Refused updates change nothing, the consents included.
    await expectOAuthError(update({ client_name: 'Other', redirect_uris: ['ftp://x.example/cb'] }), 'invalid_redirect_uri');
    await expectOAuthError(t.gatehouse.updateDynamicClient({ clientId: client.clientId, registrationAccessToken: 'wrong', metadata: { ...ORIGINAL, client_id: client.clientId, client_name: 'Other' } }), 'invalid_token');
    await update({ redirect_uris: ['https://d.example/other', 'https://d.example/cb'], scope: 'messaging.v1.read', contacts: ['someone@else.example'], software_version: '2.0' });
    for (const user of users) expect((await step(user.userKey)).step.kind).toBe('redirect');

    await update({ client_name: 'Totally Different App', redirect_uris: ['https://attacker.example/cb'] });
    for (const user of users) {
      expect(await t.repositories.consents.find(user.userKey, client.clientId)).toBeUndefined();
      expect((await step(user.userKey, 'https://attacker.example/cb')).step).toEqual({ kind: 'consent', newScopes: [] });
    }
    expect(t.audit.ofType('client.updated')).toMatchObject([
      { clientId: client.clientId, reason: 'dynamic registration update' },
      { clientId: client.clientId, reason: 'dynamic registration update, remembered consents forgotten' },
    ]);
  });

  it('forgets it for each change of what the consent page showed or where codes go, and for wider scopes; keeps it for the rest', async () => {
    const cases: Array<[Record<string, unknown>, 'consent' | 'redirect']> = [
      [{ client_name: 'Totally Different App' }, 'consent'],
      [{ redirect_uris: ['https://d.example/cb', 'https://d.example/other', 'https://attacker.example/cb'] }, 'consent'],
      [{ redirect_uris: ['https://d.example/cb'] }, 'consent'],
      [{ client_uri: 'https://attacker.example' }, 'consent'],
      [{ logo_uri: 'https://attacker.example/logo.png' }, 'consent'],
      [{ policy_uri: undefined }, 'consent'],
      [{ tos_uri: 'https://attacker.example/terms' }, 'consent'],
      [{ scope: 'messaging.v1.read messaging.v1.send admin.v1.attributes.read' }, 'consent'],
      [{}, 'redirect'],
      [{ scope: 'messaging.v1.read' }, 'redirect'],
      [{ redirect_uris: ['https://d.example/other', 'https://d.example/cb'] }, 'redirect'],
      [{ contacts: ['someone@else.example'], software_version: '2.0', grant_types: ['authorization_code', 'refresh_token'] }, 'redirect'],
    ];
    for (const [change, expected] of cases) {
      const { users, step, update } = await allowedByTwo();
      await update(change);
      for (const user of users) expect({ change, step: (await step(user.userKey)).step.kind }).toEqual({ change, step: expected });
    }
  });
});

describe('the resources a client nobody vouched for may get tokens for (registration.anonymousResources)', () => {
  const MCP = 'https://mcp.example.com/mcp';
  const OTHER = 'https://other.example.com/api';
  async function withResources(anonymousResources: string[] | null) {
    const t = await createTestGatehouse({
      settings: {
        resources: [
          { resource: MCP, name: 'Notes MCP', scopes: ['messaging.v1.read'] },
          { resource: OTHER, name: 'Other API', scopes: ['messaging.v1.read'] },
        ],
        registration: { policy: 'open', initialAccessTokenHashes: [sha256(INITIAL_TOKEN)], anonymousResources },
      },
    });
    const check = (client: Client, resource: string | undefined) =>
      t.gatehouse.checkAuthorizationRequest({
        client_id: client.clientId,
        response_type: 'code',
        redirect_uri: client.redirectUris[0],
        scope: 'messaging.v1.read',
        code_challenge: s256Challenge('v'.repeat(50)),
        code_challenge_method: 'S256',
        ...(resource === undefined ? {} : { resource }),
      });
    return { t, check };
  }
  const errorOf = (check: Awaited<ReturnType<Awaited<ReturnType<typeof withResources>>['check']>>) => (check.kind === 'valid' ? check.kind : check.error.code);

  it('limits an anonymous dynamic client to the offered resources, named at authorization', async () => {
    const { t, check } = await withResources(['https://MCP.example.com/mcp']);
    expect(t.gatehouse.settings.registration.anonymousResources).toEqual([MCP]);
    const { client } = await t.gatehouse.registerDynamicClient({ metadata: AGENT, initialAccessToken: undefined });
    expect((await check(client, MCP)).kind).toBe('valid');
    expect(errorOf(await check(client, OTHER))).toBe('invalid_target');
    expect(errorOf(await check(client, undefined))).toBe('invalid_target');
  });

  it('leaves a client registered with an initial access token, and every client without the setting, unlimited', async () => {
    const limited = await withResources([MCP]);
    const vouched = await limited.t.gatehouse.registerDynamicClient({ metadata: AGENT, initialAccessToken: INITIAL_TOKEN });
    expect((await limited.check(vouched.client, OTHER)).kind).toBe('valid');
    expect((await limited.check(vouched.client, undefined)).kind).toBe('valid');
    const open = await withResources(null);
    const anonymous = await open.t.gatehouse.registerDynamicClient({ metadata: AGENT, initialAccessToken: undefined });
    expect((await open.check(anonymous.client, OTHER)).kind).toBe('valid');
  });

  it('refuses a setting that names a resource not configured', async () => {
    await expect(createTestGatehouse({ settings: { registration: { anonymousResources: ['https://nowhere.example/x'] } } })).rejects.toThrow(/not a configured resource/);
  });
});

describe('a resource server that registers itself (resource_server_for, RFC 7662 §2.1)', () => {
  const MCP = 'https://mcp.example.com/mcp';
  const SERVER = { client_name: 'MCP server', grant_types: ['client_credentials'], response_types: [], token_endpoint_auth_method: 'client_secret_basic', resource_server_for: ['https://MCP.example.com/mcp'] };
  const gatehouse = () =>
    createTestGatehouse({ settings: { resources: [{ resource: MCP, name: 'MCP', scopes: ['messaging.v1.read'] }], registration: { policy: 'open', initialAccessTokenHashes: [sha256(INITIAL_TOKEN)] } } });

  it('is marked the resource server of a configured resource when it registers with an initial access token, and says so', async () => {
    const t = await gatehouse();
    const { client, information } = await t.gatehouse.registerDynamicClient({ metadata: SERVER, initialAccessToken: INITIAL_TOKEN });
    expect(client.resourceServerFor).toEqual([MCP]);
    expect(information.resource_server_for).toEqual([MCP]);
    // RFC 7592: an update without the field serves nothing any more.
    const { resource_server_for: _served, ...rest } = SERVER;
    const updated = await t.gatehouse.updateDynamicClient({ clientId: client.clientId, registrationAccessToken: information.registration_access_token as string, metadata: { ...rest, client_id: client.clientId } });
    expect(updated.resource_server_for).toBeUndefined();
    expect((await t.repositories.clients.findById(client.clientId))?.resourceServerFor).toBeUndefined();
  });

  it('is refused without an initial access token, for a public client, and for a resource not configured', async () => {
    const t = await gatehouse();
    await refused(t, { ...SERVER, grant_types: ['authorization_code'], response_types: ['code'], redirect_uris: ['https://app.example/cb'] }, 'invalid_client_metadata', 'resource_server_for');
    await refused(t, { ...AGENT, resource_server_for: [MCP] }, 'invalid_client_metadata', 'resource_server_for', INITIAL_TOKEN);
    await refused(t, { ...SERVER, resource_server_for: ['https://elsewhere.example/api'] }, 'invalid_client_metadata', 'resource_server_for', INITIAL_TOKEN);
  });
});
