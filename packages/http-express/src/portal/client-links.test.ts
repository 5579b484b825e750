import { describe, expect, it } from 'vitest';
import { createTestApp, inputValue, type TestApp } from '../test-support/index.js';
import { fieldError, scopeFields } from './test-support/portal-helpers.js';

// The portal carries what the consent page shows about a client (docs/decisions/0155-who-is-asking-on-the-consent-page.md):
// its home page, logo, privacy policy and terms. The first-party mark is the operator's: never the portal's.

async function signedIn(t: TestApp) {
  const user = await t.seedUser({ email: 'ada@example.com' });
  const browser = await t.signedInBrowser('ada@example.com');
  return { user, browser };
}

const app = { name: 'Billing', redirect_uris: 'https://billing.example/cb', ...scopeFields(['messaging.v1.read']) };
const links = { links_offered: 'on', client_uri: 'https://billing.example/', logo_uri: 'https://cdn.billing.example/logo.png', policy_uri: 'https://billing.example/privacy', tos_uri: '' };

describe('portal: the links of a client', { timeout: 30_000 }, () => {
  it('registers them (a forged first_party field changes nothing), shows them, keeps them across an edit without the fields, empties what an edit leaves empty', async () => {
    const t = await createTestApp();
    const { user, browser } = await signedIn(t);
    const form = await browser.get('/portal/clients/new').expect(200);
    expect(form.text).toContain('<legend>About the app</legend>');
    const created = await browser.postForm('/portal/clients', { ...app, ...links, first_party: 'on', firstParty: 'true' });
    expect(created.status, created.text).toBe(303);
    const [client] = await t.gatehouse.listClients(user.userKey);
    expect(client).toMatchObject({ clientUri: 'https://billing.example/', logoUri: 'https://cdn.billing.example/logo.png', policyUri: 'https://billing.example/privacy' });
    expect(client).not.toHaveProperty('tosUri');
    expect(client).not.toHaveProperty('firstParty');
    const clientId = client?.clientId as string;
    const detail = await browser.get(`/portal/clients/${clientId}`).expect(200);
    expect(detail.text).toContain('<dt>Privacy policy</dt><dd><code>https://billing.example/privacy</code></dd>');
    const edit = await browser.get(`/portal/clients/${clientId}/edit`).expect(200);
    expect(inputValue(edit.text, 'logo_uri')).toBe('https://cdn.billing.example/logo.png');

    expect((await browser.postForm(`/portal/clients/${clientId}`, { ...app, name: 'Renamed' })).status).toBe(303);
    expect(await t.gatehouse.findOwnedClient(user.userKey, clientId)).toMatchObject({ name: 'Renamed', logoUri: 'https://cdn.billing.example/logo.png' });
    expect((await browser.postForm(`/portal/clients/${clientId}`, { ...app, ...links, logo_uri: '', first_party: 'on' })).status).toBe(303);
    const edited = await t.gatehouse.findOwnedClient(user.userKey, clientId);
    expect(edited).not.toHaveProperty('logoUri');
    expect(edited).not.toHaveProperty('firstParty');
    expect(edited.clientUri).toBe('https://billing.example/');
  });

  it('says what is wrong under each field, keeps what was typed, and saves nothing', async () => {
    const t = await createTestApp();
    const { user, browser } = await signedIn(t);
    await browser.get('/portal/clients/new').expect(200);
    const refused = await browser.postForm('/portal/clients', { ...app, ...links, client_uri: 'http://billing.example/', logo_uri: 'http://127.0.0.1/logo.png', tos_uri: 'javascript:alert(1)' });
    expect(refused.status).toBe(400);
    expect(fieldError(refused.text, 'client_uri')).toBe('The home page http://billing.example/ must use https (http is allowed on loopback only).');
    expect(fieldError(refused.text, 'logo_uri')).toBe('The logo http://127.0.0.1/logo.png must use https.');
    expect(fieldError(refused.text, 'tos_uri')).toBe('The terms of service javascript:alert(1) must use https (http is allowed on loopback only).');
    expect(inputValue(refused.text, 'client_uri')).toBe('http://billing.example/');
    expect(refused.text).toContain('<a href="#logo_uri">');
    expect(await t.gatehouse.listClients(user.userKey)).toEqual([]);
  });
});
