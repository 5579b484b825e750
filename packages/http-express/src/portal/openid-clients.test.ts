import { describe, expect, it } from 'vitest';
import { createTestApp, inputValue, type TestApp } from '../test-support/index.js';
import { fieldError, scopeFields } from './test-support/portal-helpers.js';

// The portal carries a client's OpenID Connect metadata for an OpenID Provider
// (docs/decisions/0136-openid-client-metadata.md): ID token algorithm, post-logout redirect URIs,
// default max age, require_auth_time.

async function signedIn(t: TestApp) {
  const user = await t.seedUser({ email: 'ada@example.com' });
  const browser = await t.signedInBrowser('ada@example.com');
  return { user, browser };
}

const site = { name: 'Sign-in site', redirect_uris: 'https://site.example/cb', ...scopeFields(['openid', 'profile']) };

describe('portal: OpenID Connect metadata of a client', { timeout: 30_000 }, () => {
  it('has the fields only on an OpenID Provider', async () => {
    const t = await createTestApp({ settings: { openid: true } });
    const { browser } = await signedIn(t);
    const page = await browser.get('/portal/clients/new').expect(200);
    expect(page.text).toContain('<legend>Sign-in with OpenID Connect</legend>');
    expect(page.text).toMatch(/<option value="RS256" selected>/);
    const plain = await createTestApp();
    const other = await signedIn(plain);
    expect((await other.browser.get('/portal/clients/new').expect(200)).text).not.toContain('openid_offered');
  });

  it('registers them, shows them, keeps them across an edit without the fields, and an edit with them changes or removes them', async () => {
    const t = await createTestApp({ settings: { openid: true } });
    const { user, browser } = await signedIn(t);
    await browser.get('/portal/clients/new').expect(200);
    const created = await browser.postForm('/portal/clients', {
      ...site,
      openid_offered: 'on',
      id_token_signed_response_alg: 'ES256',
      post_logout_redirect_uris: 'https://site.example/bye\nhttps://site.example/again',
      default_max_age: '3600',
      require_auth_time: 'on',
    });
    expect(created.status, created.text).toBe(303);
    const [client] = await t.gatehouse.listClients(user.userKey);
    expect(client).toMatchObject({ idTokenSignedResponseAlg: 'ES256', postLogoutRedirectUris: ['https://site.example/bye', 'https://site.example/again'], defaultMaxAge: 3600, requireAuthTime: true });
    const clientId = client?.clientId as string;
    const detail = await browser.get(`/portal/clients/${clientId}`).expect(200);
    expect(detail.text).toContain('<dt>ID token signature</dt><dd>ES256</dd>');
    expect(detail.text).toContain('<li><code>https://site.example/bye</code></li>');
    const form = await browser.get(`/portal/clients/${clientId}/edit`).expect(200);
    expect(inputValue(form.text, 'default_max_age')).toBe('3600');

    // An edit that did not have the fields (an older form) keeps them.
    expect((await browser.postForm(`/portal/clients/${clientId}`, { ...site, name: 'Renamed' })).status).toBe(303);
    expect((await t.gatehouse.findOwnedClient(user.userKey, clientId)).postLogoutRedirectUris).toEqual(['https://site.example/bye', 'https://site.example/again']);
    // One with them empties what it leaves empty.
    expect((await browser.postForm(`/portal/clients/${clientId}`, { ...site, openid_offered: 'on', id_token_signed_response_alg: 'RS256', post_logout_redirect_uris: '', default_max_age: '' })).status).toBe(303);
    const cleared = await t.gatehouse.findOwnedClient(user.userKey, clientId);
    expect(cleared).toMatchObject({ idTokenSignedResponseAlg: 'RS256' });
    expect(cleared).not.toHaveProperty('postLogoutRedirectUris');
    expect(cleared).not.toHaveProperty('defaultMaxAge');
    expect(cleared).not.toHaveProperty('requireAuthTime');
  });

  it('says what is wrong under each field, keeps what was typed, and saves nothing', async () => {
    const t = await createTestApp({ settings: { openid: true } });
    const { user, browser } = await signedIn(t);
    await browser.get('/portal/clients/new').expect(200);
    const refused = await browser.postForm('/portal/clients', {
      ...site,
      openid_offered: 'on',
      id_token_signed_response_alg: 'HS256',
      post_logout_redirect_uris: 'http://site.example/bye',
      default_max_age: 'soon',
    });
    expect(refused.status).toBe(400);
    expect(fieldError(refused.text, 'id_token_signed_response_alg')).toBe('The ID token algorithm must be RS256 or ES256.');
    expect(fieldError(refused.text, 'post_logout_redirect_uris')).toBe('The post-logout redirect URI http://site.example/bye must use https (http is allowed on loopback only).');
    expect(fieldError(refused.text, 'default_max_age')).toBe('The default max age must be a whole number of seconds (0 or more).');
    expect(refused.text).toContain('>http://site.example/bye</textarea>');
    expect(refused.text).toContain('<a href="#post_logout_redirect_uris">');
    expect(await t.gatehouse.listClients(user.userKey)).toEqual([]);
  });
});
