import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { basicAuth, createTestApp, inputValue, type TestApp } from '../test-support/index.js';
import { fieldError, registerThroughPortal, scopeFields } from './test-support/portal-helpers.js';

async function signedIn(t: TestApp, email = 'ada@example.com') {
  const user = await t.seedUser({ email });
  const browser = await t.signedInBrowser(email);
  return { user, browser };
}

const grantTypeFields = (grantTypes: readonly string[]) => ({ grant_types_offered: 'on', ...Object.fromEntries(grantTypes.map((grantType) => [`grant_type_${grantType}`, 'on'])) });

describe('portal: client types and grant types', () => {
  it('the form offers the client type and the grant types, the code flow checked by default', async () => {
    const t = await createTestApp();
    const { browser } = await signedIn(t);
    const page = await browser.get('/portal/clients/new').expect(200);
    expect(page.text).toContain('<input type="radio" name="client_type" value="confidential" checked>');
    expect(page.text).toContain('<input type="radio" name="client_type" value="public">');
    expect(page.text).toContain('Public client — no secret');
    expect(page.text).toContain('<input type="checkbox" name="grant_type_authorization_code" value="on" checked>');
    expect(page.text).toContain('<input type="checkbox" name="grant_type_refresh_token" value="on" checked>');
    expect(page.text).toContain('<input type="checkbox" name="grant_type_client_credentials" value="on">');
  });

  it('registers a public client: no secret page, its page says public and offers no rotation', async () => {
    const t = await createTestApp();
    const { user, browser } = await signedIn(t);
    await browser.get('/portal/clients/new').expect(200);
    const created = await browser.postForm('/portal/clients', {
      name: 'Phone app',
      client_type: 'public',
      redirect_uris: 'http://127.0.0.1/callback',
      ...scopeFields(['messaging.v1.read']),
      ...grantTypeFields(['authorization_code', 'refresh_token']),
    });
    expect(created.status, created.text).toBe(303);
    const location = created.headers.location as string;
    expect(location).toMatch(/^\/portal\/clients\/[A-Za-z0-9]+\?done=created$/);
    const [client] = await t.gatehouse.listClients(user.userKey);
    expect(client).toMatchObject({ name: 'Phone app', clientSecretHash: null, pkceRequired: true, grantTypes: ['authorization_code', 'refresh_token'] });
    expect(created.headers['set-cookie'] ?? []).toEqual([]);
    const page = await browser.get(location).expect(200);
    expect(page.text).toContain('<dt>Type</dt><dd>Public (no secret)</dd>');
    expect(page.text).toContain('The public client “Phone app” was registered.');
    expect(page.text).not.toContain('/rotate-secret');
    await browser.get(`/portal/clients/${client?.clientId}/rotate-secret`).expect(404);
    // The words are the public client's: a link with ?done=created to a confidential client shows none.
    const { clientId: confidential } = await registerThroughPortal(browser, { name: 'Web app' });
    expect((await browser.get(`/portal/clients/${confidential}?done=created`).expect(200)).text).not.toContain('was registered');
    const rotate = await browser.postForm(`/portal/clients/${client?.clientId}/rotate-secret`, {});
    expect(rotate.status).toBe(404);
    expect((await t.gatehouse.findOwnedClient(user.userKey, client?.clientId as string)).clientSecretHash).toBeNull();
  });

  it('a public client with client_credentials is refused next to the grant types', async () => {
    const t = await createTestApp();
    const { user, browser } = await signedIn(t);
    await browser.get('/portal/clients/new').expect(200);
    const res = await browser.postForm('/portal/clients', {
      name: 'Bad',
      client_type: 'public',
      redirect_uris: 'https://a.example/cb',
      ...scopeFields(['messaging.v1.read']),
      ...grantTypeFields(['authorization_code', 'client_credentials']),
    });
    expect(res.status).toBe(400);
    expect(fieldError(res.text, 'grant_types')).toContain('confidential clients only');
    // The error summary links to the fieldset, whose id it is.
    expect(res.text).toContain('<fieldset id="grant_types"');
    expect(res.text).toMatch(/<li><a href="#grant_types">[^<]*confidential clients only/);
    expect(await t.gatehouse.listClients(user.userKey)).toEqual([]);
  });

  it('registers a client-credentials client without redirect URIs, whose secret gets a token', async () => {
    const t = await createTestApp();
    const { browser } = await signedIn(t);
    const { clientId, clientSecret } = await registerThroughPortalWith(browser, { redirect_uris: '', ...grantTypeFields(['client_credentials']) });
    const res = await request(t.app).post('/oauth/token').set('Authorization', basicAuth(clientId, clientSecret)).type('form').send({ grant_type: 'client_credentials' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.refresh_token).toBeUndefined();
    const page = await browser.get(`/portal/clients/${clientId}`).expect(200);
    expect(page.text).toContain('<span class="tag">client_credentials</span>');
    expect(page.text).toContain('<dt>Redirect URIs</dt><dd><span class="muted">None</span></dd>');
  });

  it('no grant type chosen, or the code flow without a redirect URI, is refused with the field errors', async () => {
    const t = await createTestApp();
    const { browser } = await signedIn(t);
    await browser.get('/portal/clients/new').expect(200);
    const none = await browser.postForm('/portal/clients', { name: 'X', redirect_uris: 'https://x.example/cb', ...scopeFields(['messaging.v1.read']), ...grantTypeFields([]) });
    expect(none.status).toBe(400);
    expect(fieldError(none.text, 'grant_types')).toBe('Choose at least one grant type.');
    const noUri = await browser.postForm('/portal/clients', { name: 'X', redirect_uris: '', ...scopeFields(['messaging.v1.read']), ...grantTypeFields(['authorization_code']) });
    expect(fieldError(noUri.text, 'redirect_uris')).toBe('Enter at least one redirect URI'); // plain words (decision 0097)
  });

  it('edits the grant types; the type stays as registered', async () => {
    const t = await createTestApp();
    const { user, browser } = await signedIn(t);
    const { clientId } = await registerThroughPortal(browser);
    const form = await browser.get(`/portal/clients/${clientId}/edit`).expect(200);
    expect(form.text).toContain('Type: <strong>Confidential</strong>');
    expect(form.text).not.toContain('name="client_type"');
    await browser
      .postForm(`/portal/clients/${clientId}`, {
        name: 'Billing app',
        client_type: 'public',
        redirect_uris: 'https://billing.example/callback',
        ...scopeFields(['messaging.v1.send']),
        ...grantTypeFields(['authorization_code', 'refresh_token', 'client_credentials']),
      })
      .expect(303);
    const client = await t.gatehouse.findOwnedClient(user.userKey, clientId);
    expect(client.grantTypes).toEqual(['authorization_code', 'refresh_token', 'client_credentials']);
    expect(client.clientSecretHash).not.toBeNull();
    // A post without the grant type boxes (a script written before them) keeps them.
    await browser.postForm(`/portal/clients/${clientId}`, { name: 'Billing app 2', redirect_uris: 'https://billing.example/callback', ...scopeFields(['messaging.v1.send']) }).expect(303);
    expect((await t.gatehouse.findOwnedClient(user.userKey, clientId)).grantTypes).toEqual(['authorization_code', 'refresh_token', 'client_credentials']);
  });

  it('the list shows each client’s type and grant types', async () => {
    const t = await createTestApp();
    const { user, browser } = await signedIn(t);
    await t.gatehouse.registerClient({ name: 'SPA', public: true, redirectUris: ['https://spa.example/cb'], scopes: ['messaging.v1.read'], ownerUserKey: user.userKey });
    const page = await browser.get('/portal/clients').expect(200);
    expect(page.text).toContain('<th>Type</th><th>Grant types</th>');
    expect(page.text).toContain('<td data-label="Type">Public (no secret)</td>');
  });
});

async function registerThroughPortalWith(browser: Awaited<ReturnType<typeof signedIn>>['browser'], fields: Record<string, string>) {
  await browser.get('/portal/clients/new').expect(200);
  const created = await browser.postForm('/portal/clients', { name: 'Nightly job', ...scopeFields(['messaging.v1.read']), ...fields });
  expect(created.status, created.text).toBe(303);
  const location = created.headers.location as string;
  const clientId = /^\/portal\/clients\/([A-Za-z0-9]+)\/secret$/.exec(location)?.[1] as string;
  const page = await browser.get(location).expect(200);
  const clientSecret = inputValue(page.text, 'client_secret');
  expect(clientSecret).toMatch(/^[A-Za-z0-9]{43,}$/);
  return { clientId, clientSecret: clientSecret as string };
}
