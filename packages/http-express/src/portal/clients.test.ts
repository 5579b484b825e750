import { OAuthError } from '@gatehouse/core';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { authorizePath, createTestApp, formAction, inputValue, type TestApp } from '../test-support/index.js';
import { fieldError, registerThroughPortal, scopeFields } from './test-support/portal-helpers.js';

async function signedIn(t: TestApp, email = 'ada@example.com') {
  const user = await t.seedUser({ email });
  const browser = await t.signedInBrowser(email);
  return { user, browser };
}

describe('portal: sign-in', () => {
  it('/portal goes to /portal/clients, which sends a stranger to the login page and back after sign-in', async () => {
    const t = await createTestApp();
    await t.seedUser({ email: 'ada@example.com' });
    const root = await request(t.app).get('/portal').expect(302);
    expect(root.headers.location).toBe('/portal/clients');
    const list = await request(t.app).get('/portal/clients').expect(303);
    expect(list.headers.location).toBe('/oauth/login?return_to=%2Fportal%2Fclients');
    const create = await request(t.app).get('/portal/clients/new').expect(303);
    expect(create.headers.location).toBe('/oauth/login?return_to=%2Fportal%2Fclients%2Fnew');
    const apps = await request(t.app).get('/portal/authorized-apps').expect(303);
    expect(apps.headers.location).toBe('/oauth/login?return_to=%2Fportal%2Fauthorized-apps');

    const browser = t.browser();
    const signIn = await browser.signIn('ada@example.com', 'password123', '/portal/clients');
    expect(signIn.headers.location).toBe('/portal/clients');
    const page = await browser.get('/portal/clients').expect(200);
    expect(page.text).toContain('<h1>OAuth Clients</h1>');
  });

  it('a form POST from a browser that is not signed in saves nothing and goes to the login page', async () => {
    const t = await createTestApp();
    const browser = t.browser();
    await browser.get('/oauth/login');
    const res = await browser.postForm('/portal/clients', { name: 'X', redirect_uris: 'https://x.example/cb', ...scopeFields(['messaging.v1.send']) });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/oauth/login');
    expect(await t.gatehouse.listClients()).toEqual([]);
  });
});

describe('portal: the clients list', () => {
  it('shows the menu and only the signed-in user’s clients with name, client ID, redirect URIs, scopes and creation time', async () => {
    const t = await createTestApp();
    const { user, browser } = await signedIn(t);
    const bob = await t.seedUser({ email: 'bob@example.com' });
    const { client: mine } = await t.seedClient({ name: 'Ada’s app', ownerUserKey: user.userKey, redirectUris: ['https://ada.example/cb', 'http://127.0.0.1:8080/cb'], scopes: ['messaging.v1.read'] });
    const { client: bobs } = await t.seedClient({ name: 'Bob’s app', ownerUserKey: bob.userKey });
    const { client: unowned } = await t.seedClient({ name: 'CLI client' });

    const page = await browser.get('/portal/clients').expect(200);
    expect(page.text).toContain('<a href="/portal/clients">OAuth Clients</a>');
    expect(page.text).toContain('<a href="/portal/authorized-apps">Authorized apps</a>');
    expect(page.text).toContain('<a href="/oauth/logout">Sign out</a>');
    expect(page.text).toContain('Signed in as ada@example.com');
    expect(page.text).toContain('<a class="button" href="/portal/clients/new">Register a client</a>');
    expect(page.text).toContain(`<a href="/portal/clients/${mine.clientId}">Ada’s app</a>`);
    expect(page.text).toContain(`<code>${mine.clientId}</code>`);
    expect(page.text).toContain('<li><code>https://ada.example/cb</code></li><li><code>http://127.0.0.1:8080/cb</code></li>');
    expect(page.text).toContain('>messaging.v1.read</span>');
    expect(page.text).toContain(`<time datetime="${mine.createdAt.toISOString()}">`);
    for (const other of [bobs, unowned]) {
      expect(page.text).not.toContain(other.clientId);
      expect(page.text).not.toContain(other.name);
    }
  });

  it('says so when there is no client yet', async () => {
    const t = await createTestApp();
    const { browser } = await signedIn(t);
    const page = await browser.get('/portal/clients').expect(200);
    expect(page.text).toContain('You have not registered any client yet.');
    expect(page.text).not.toContain('<table');
  });

  it('escapes what users typed (a hostile client name is text, not markup)', async () => {
    const t = await createTestApp();
    const { user, browser } = await signedIn(t);
    const { client } = await t.seedClient({ name: '<img src=x onerror=alert(1)>"', ownerUserKey: user.userKey });
    for (const path of ['/portal/clients', `/portal/clients/${client.clientId}`, `/portal/clients/${client.clientId}/edit`, `/portal/clients/${client.clientId}/delete`]) {
      const page = await browser.get(path).expect(200);
      expect(page.text, path).not.toContain('<img src=x');
      expect(page.text, path).toContain('&lt;img src=x onerror=alert(1)&gt;&quot;');
    }
  });
});

describe('portal: registering a client', () => {
  it('refuses a user a client beyond their bound with the form again, saying so under the name (docs/decisions/0192)', async () => {
    const t = await createTestApp({ settings: { maxClientsPerUser: 1 } });
    const { user, browser } = await signedIn(t);
    const fields = { name: 'First', redirect_uris: 'https://x.example/cb', ...scopeFields(['messaging.v1.send']) };
    expect((await browser.postForm('/portal/clients', fields)).status).toBe(303);
    const refused = await browser.postForm('/portal/clients', { ...fields, name: 'Second' });
    expect(refused.status).toBe(400);
    expect(fieldError(refused.text, 'name')).toBe('You have 1 client, the most one user may register: delete one first.');
    expect((await t.gatehouse.listClients(user.userKey)).map((client) => client.name)).toEqual(['First']);
  });

  it('the form offers name, redirect URIs, every catalogue scope with its words, PKCE, and a CSRF token', async () => {
    const t = await createTestApp();
    const { browser } = await signedIn(t);
    const page = await browser.get('/portal/clients/new').expect(200);
    expect(page.text).toContain('<form method="post" action="/portal/clients" novalidate class="client-form">');
    expect(inputValue(page.text, 'csrf_token')).toBe(browser.csrfToken());
    expect(page.text).toMatch(/<input id="name" name="name" type="text"/);
    expect(page.text).toMatch(/<textarea id="redirect_uris" name="redirect_uris"/);
    expect(page.text).toContain('<input type="checkbox" name="scope_messaging.v1.send" value="on"><span>Send text messages from your phone numbers<code>messaging.v1.send</code></span>');
    for (const scope of ['messaging.v1.read', 'admin.v1.attributes.read', 'admin.v1.attributes.write']) expect(page.text).toContain(`name="scope_${scope}"`);
    expect(page.text).toContain('<input type="checkbox" name="pkce_required" value="on">');
  });

  it('creates the client for the user and shows its ID and secret once (the secret works; a reload does not show it)', async () => {
    const t = await createTestApp();
    const { user, browser } = await signedIn(t);
    await browser.get('/portal/clients/new').expect(200);
    const created = await browser.postForm('/portal/clients', {
      name: '  Billing app ',
      redirect_uris: 'https://billing.example/callback\r\n\r\nhttp://localhost:5173/cb\n',
      ...scopeFields(['messaging.v1.send', 'admin.v1.attributes.read']),
      pkce_required: 'on',
    });
    expect(created.status).toBe(303);
    expect(created.headers['cache-control']).toBe('no-store');
    const [client] = await t.gatehouse.listClients(user.userKey);
    expect(client).toMatchObject({
      name: 'Billing app',
      redirectUris: ['https://billing.example/callback', 'http://localhost:5173/cb'],
      scopes: ['messaging.v1.send', 'admin.v1.attributes.read'],
      pkceRequired: true,
      ownerUserKey: user.userKey,
    });
    const clientId = client?.clientId as string;
    expect(created.headers.location).toBe(`/portal/clients/${clientId}/secret`);
    const cookie = (created.headers['set-cookie'] as unknown as string[]).find((line) => line.startsWith('gatehouse_new_secret='));
    expect(cookie).toMatch(new RegExp(`Path=/portal/clients/${clientId}/secret`));
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Max-Age=300/);

    const page = await browser.get(created.headers.location as string).expect(200);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['content-security-policy']).not.toContain('unsafe-inline');
    expect(page.text).toContain('Store the client secret now — it will not be shown again.');
    expect(page.text).toContain('<script src="/portal/assets/copy.js" defer></script>');
    expect(page.text).toMatch(/<button type="button" class="secondary small" data-copy="client_secret" hidden>Copy<\/button>/);
    expect(inputValue(page.text, 'client_id')).toBe(clientId);
    const secret = inputValue(page.text, 'client_secret') as string;
    expect(secret).toMatch(/^[A-Za-z0-9]{43,}$/);
    await expect(t.gatehouse.authenticateClient({ clientId, clientSecret: secret })).resolves.toMatchObject({ clientId });

    const again = await browser.get(created.headers.location as string).expect(200);
    expect(again.text).toContain('The secret is no longer shown');
    expect(again.text).not.toContain(secret);
    expect(again.headers['content-security-policy']).toContain("script-src 'none'");
    const list = await browser.get('/portal/clients').expect(200);
    expect(list.text).not.toContain(secret);
    expect(t.logger.text()).not.toContain(secret);
    expect(t.audit.ofType('client.created')).toHaveLength(1);
  });

  it.each([
    ['a relative URI', '/callback', '“/callback” is not a full address: start it with https://'],
    ['http on a host that is not loopback', 'http://app.example/callback', 'Use https:// in “http://app.example/callback” (http:// only on localhost, 127.0.0.1 or [::1])'],
    ['a fragment', 'https://app.example/callback#top', 'Remove the # part from “https://app.example/callback#top”'],
    ['one bad line among good ones', 'https://app.example/ok\nftp://app.example/cb', 'Use https:// in “ftp://app.example/cb”'],
    ['another spelling of a loopback URI (docs/decisions/0197)', 'http://127.1/callback', 'Write “http://127.1/callback” as “http://127.0.0.1/callback”'],
    ['a wildcard host', 'https://*.app.example/callback', 'Name one host in “https://*.app.example/callback”: redirect URIs are compared exactly, so * matches nothing'],
    ['a URI over 1000 characters', `https://app.example/${'x'.repeat(1000)}`, `Shorten “https://app.example/${'x'.repeat(40)}…”: a redirect URI has at most 1000 characters`],
  ])('refuses %s: the error sits under the redirect URIs field, the form keeps what was typed, nothing is saved', async (_label, uris, message) => {
    const t = await createTestApp();
    const { browser } = await signedIn(t);
    await browser.get('/portal/clients/new').expect(200);
    const res = await browser.postForm('/portal/clients', { name: 'My <app>', redirect_uris: uris, ...scopeFields(['messaging.v1.read']), pkce_required: 'on' });
    expect(res.status).toBe(400);
    expect(res.text).toContain('Nothing was saved');
    const error = fieldError(res.text, 'redirect_uris');
    expect(error).toContain(message);
    expect(fieldError(res.text, 'name')).toBeUndefined();
    expect(fieldError(res.text, 'scopes')).toBeUndefined();
    // Right after its field, and the field points at it.
    expect(res.text).toMatch(/<textarea id="redirect_uris"[^>]* aria-invalid="true" aria-describedby="redirect_uris-hint redirect_uris-error"[^>]*>[^<]*<\/textarea>\n<p class="field-error" id="redirect_uris-error"/);
    expect(res.text).toContain(`>${uris.replace(/&/g, '&amp;')}</textarea>`);
    expect(res.text).toContain('value="My &lt;app&gt;"');
    expect(res.text).toContain('name="scope_messaging.v1.read" value="on" checked');
    expect(res.text).toContain('name="pkce_required" value="on" checked');
    expect(await t.gatehouse.listClients()).toEqual([]);
    expect(t.audit.ofType('client.created')).toHaveLength(0);
  });

  it('shows every wrong field at once: empty name, no redirect URI, no scope', async () => {
    const t = await createTestApp();
    const { browser } = await signedIn(t);
    await browser.get('/portal/clients/new').expect(200);
    const res = await browser.postForm('/portal/clients', { name: '   ' });
    expect(res.status).toBe(400);
    expect(fieldError(res.text, 'name')).toBe('Enter a client name');
    expect(fieldError(res.text, 'redirect_uris')).toBe('Enter at least one redirect URI');
    expect(fieldError(res.text, 'scopes')).toBe('Choose at least one scope');
    expect(res.text).toContain('<fieldset id="scopes" class="invalid" aria-describedby="scopes-error">');
    expect(await t.gatehouse.listClients()).toEqual([]);
  });

  it('reports every invalid redirect URI, not only the first, and an error summary linking to the fields', async () => {
    const t = await createTestApp();
    const { browser } = await signedIn(t);
    await browser.get('/portal/clients/new').expect(200);
    const res = await browser.postForm('/portal/clients', { name: '', redirect_uris: 'ftp://a.example/cb\nhttps://ok.example/cb\n/relative', ...scopeFields(['messaging.v1.read']) });
    expect(res.status).toBe(400);
    // One message per wrong redirect URI, under the field and in the summary (docs/decisions/0157).
    const ftp = 'Use https:// in “ftp://a.example/cb” (http:// only on localhost, 127.0.0.1 or [::1])';
    const relative = '“/relative” is not a full address: start it with https://';
    expect(res.text).toContain(`<ul class="field-error" id="redirect_uris-error" role="alert"><li>${ftp}</li><li>${relative}</li></ul>`);
    expect(res.text).toContain('<div class="error-summary" role="alert" tabindex="-1" autofocus aria-labelledby="error-summary-title">');
    expect(res.text).toContain('<li><a href="#name">Enter a client name</a></li>');
    expect(res.text).toContain(`<li><a href="#redirect_uris">${ftp}</a></li><li><a href="#redirect_uris">${relative}</a></li>`);
    expect(res.text).not.toContain('href="#scopes"');
  });

  it('a forged scope outside the catalogue is refused by the core’s rule', async () => {
    const t = await createTestApp();
    const { browser } = await signedIn(t);
    await browser.get('/portal/clients/new').expect(200);
    const res = await browser.postForm('/portal/clients', { name: 'X', redirect_uris: 'https://x.example/cb', 'scope_root.all': 'on' });
    expect(res.status).toBe(400);
    expect(fieldError(res.text, 'scopes')).toBe('The scope root.all is not in the catalogue.');
    expect(await t.gatehouse.listClients()).toEqual([]);
  });

  it('without the CSRF token: 403 and nothing saved', async () => {
    const t = await createTestApp();
    const { browser } = await signedIn(t);
    await browser.get('/portal/clients/new').expect(200);
    const fields = { name: 'X', redirect_uris: 'https://x.example/cb', ...scopeFields(['messaging.v1.send']) };
    const missing = await browser.postForm('/portal/clients', fields, { csrf: false });
    expect(missing.status).toBe(403);
    expect(missing.text).toContain('The form has expired');
    const wrong = await browser.postForm('/portal/clients', { ...fields, csrf_token: 'A'.repeat(43) });
    expect(wrong.status).toBe(403);
    expect(await t.gatehouse.listClients()).toEqual([]);
  });
});

describe('portal: one client', () => {
  it('the detail page shows the client without its secret, with Edit, Rotate secret and Delete', async () => {
    const t = await createTestApp();
    const { browser } = await signedIn(t);
    const { clientId, clientSecret } = await registerThroughPortal(browser, { scopes: ['messaging.v1.send', 'messaging.v1.read'] });
    const page = await browser.get(`/portal/clients/${clientId}`).expect(200);
    expect(page.text).toContain('<h1>Billing app</h1>');
    expect(inputValue(page.text, 'client_id')).toBe(clientId);
    expect(page.text).toContain('<button type="button" class="secondary small" data-copy="client_id" hidden>Copy</button>');
    expect(inputValue(page.text, 'token_url')).toBe('http://localhost:3000/oauth/token');
    expect(page.text).toContain('Read the messages sent from your phone numbers');
    expect(page.text).not.toContain(clientSecret);
    expect(page.text).toContain(`href="/portal/clients/${clientId}/edit">Edit</a>`);
    expect(page.text).toContain(`href="/portal/clients/${clientId}/rotate-secret">Rotate secret</a>`);
    expect(page.text).toContain(`href="/portal/clients/${clientId}/delete">Delete</a>`);
  });

  it('edit: the form starts with the client’s values and saves changes', async () => {
    const t = await createTestApp();
    const { user, browser } = await signedIn(t);
    const { clientId } = await registerThroughPortal(browser);
    const form = await browser.get(`/portal/clients/${clientId}/edit`).expect(200);
    expect(form.text).toContain(`<form method="post" action="/portal/clients/${clientId}" novalidate class="client-form">`);
    expect(form.text).toContain('value="Billing app"');
    expect(form.text).toContain('>https://billing.example/callback</textarea>');
    expect(form.text).toContain('name="scope_messaging.v1.send" value="on" checked');
    const saved = await browser.postForm(`/portal/clients/${clientId}`, {
      name: 'Billing app v2',
      redirect_uris: 'https://billing.example/callback\nhttps://billing.example/other',
      ...scopeFields(['messaging.v1.read']),
      pkce_required: 'on',
    });
    expect(saved.status).toBe(303);
    expect(saved.headers.location).toBe(`/portal/clients/${clientId}?done=updated`);
    expect(await t.gatehouse.findOwnedClient(user.userKey, clientId)).toMatchObject({
      name: 'Billing app v2',
      redirectUris: ['https://billing.example/callback', 'https://billing.example/other'],
      scopes: ['messaging.v1.read'],
      pkceRequired: true,
    });
    const page = await browser.get(saved.headers.location as string).expect(200);
    expect(page.text).toContain('<p class="notice ok" role="status">Your changes to “Billing app v2” were saved.</p>');
    // Unchecking PKCE turns it off again.
    await browser.postForm(`/portal/clients/${clientId}`, { name: 'Billing app v2', redirect_uris: 'https://billing.example/callback', ...scopeFields(['messaging.v1.read']) }).expect(303);
    expect((await t.gatehouse.findOwnedClient(user.userKey, clientId)).pkceRequired).toBe(false);
  });

  it('edit that moves the redirect URI and renames the client: a user who allowed it is asked again, never sent a code at once (docs/decisions/0195)', async () => {
    const t = await createTestApp();
    const { user, browser } = await signedIn(t);
    const { clientId } = await registerThroughPortal(browser, { scopes: ['messaging.v1.read'] });
    await t.seedUser({ email: 'bob@example.com' });
    const bob = await t.signedInBrowser('bob@example.com');
    const before = await t.gatehouse.findOwnedClient(user.userKey, clientId);
    const consent = await bob.get(authorizePath(before, { scope: 'messaging.v1.read', state: 's' })).expect(200);
    const allowed = await bob.postForm(formAction(consent.text, '/oauth/authorize/decision') as string, { decision: 'allow' });
    expect(allowed.status).toBe(302);
    // Remembered: the next request gets a code at once.
    expect((await bob.get(authorizePath(before, { scope: 'messaging.v1.read', state: 's' }))).status).toBe(302);

    await browser.postForm(`/portal/clients/${clientId}`, { name: 'Totally Different App', redirect_uris: 'https://attacker.example/steal', ...scopeFields(['messaging.v1.read', 'messaging.v1.send']) }).expect(303);
    const after = await t.gatehouse.findOwnedClient(user.userKey, clientId);
    const asked = await bob.get(authorizePath(after, { scope: 'messaging.v1.read', state: 's' }));
    expect(asked.status).toBe(200);
    expect(asked.text).toContain('Totally Different App');
    const silent = await bob.get(authorizePath(after, { scope: 'messaging.v1.read', state: 's', prompt: 'none' }));
    expect(new URL(silent.headers.location as string).searchParams.get('error')).toBe('consent_required');
  });

  it('edit with a bad redirect URI shows the error next to the field and changes nothing', async () => {
    const t = await createTestApp();
    const { user, browser } = await signedIn(t);
    const { clientId } = await registerThroughPortal(browser);
    await browser.get(`/portal/clients/${clientId}/edit`).expect(200);
    const before = await t.gatehouse.findOwnedClient(user.userKey, clientId);
    const res = await browser.postForm(`/portal/clients/${clientId}`, { name: 'Renamed', redirect_uris: 'http://evil.example/cb', ...scopeFields(['messaging.v1.read']) });
    expect(res.status).toBe(400);
    expect(fieldError(res.text, 'redirect_uris')).toContain('Use https:// in “http://evil.example/cb”');
    expect(res.text).toContain('value="Renamed"');
    expect(await t.gatehouse.findOwnedClient(user.userKey, clientId)).toEqual(before);
    expect(t.audit.ofType('client.updated')).toHaveLength(0);
  });

  it('rotate: asks first, then shows a new secret once; the old secret is refused and the new one accepted', async () => {
    const t = await createTestApp();
    const { browser } = await signedIn(t);
    const { clientId, clientSecret: oldSecret } = await registerThroughPortal(browser);
    const confirm = await browser.get(`/portal/clients/${clientId}/rotate-secret`).expect(200);
    expect(confirm.text).toContain(`<form method="post" action="/portal/clients/${clientId}/rotate-secret">`);
    expect(inputValue(confirm.text, 'csrf_token')).toBe(browser.csrfToken());
    expect(confirm.text).toContain('The current secret stops working at once');
    const rotated = await browser.postForm(`/portal/clients/${clientId}/rotate-secret`, {});
    expect(rotated.status).toBe(303);
    expect(rotated.headers.location).toBe(`/portal/clients/${clientId}/secret`);
    const page = await browser.get(rotated.headers.location as string).expect(200);
    expect(page.text).toContain('New secret for');
    expect(page.text).toContain('The previous secret no longer works.');
    const newSecret = inputValue(page.text, 'client_secret') as string;
    expect(newSecret).toMatch(/^[A-Za-z0-9]{43,}$/);
    expect(newSecret).not.toBe(oldSecret);
    await expect(t.gatehouse.authenticateClient({ clientId, clientSecret: oldSecret })).rejects.toSatisfy(
      (error: unknown) => error instanceof OAuthError && error.code === 'invalid_client',
    );
    await expect(t.gatehouse.authenticateClient({ clientId, clientSecret: newSecret })).resolves.toMatchObject({ clientId });
    expect((await browser.get(rotated.headers.location as string)).text).not.toContain(newSecret);
    expect(t.logger.text()).not.toContain(newSecret);
    expect(t.audit.ofType('client.secret_rotated')).toHaveLength(1);
  });

  it('a secret cookie that is not the client’s current secret shows nothing', async () => {
    const t = await createTestApp();
    const { browser } = await signedIn(t);
    const { clientId } = await registerThroughPortal(browser);
    const forged = await browser.get(`/portal/clients/${clientId}/secret`).set('Cookie', `gatehouse_new_secret=created.${'B'.repeat(43)}`).expect(200);
    expect(forged.text).toContain('The secret is no longer shown');
    expect(forged.text).not.toContain('B'.repeat(43));
  });

  it('delete: asks first, then removes the client; its tokens are refused', async () => {
    const t = await createTestApp();
    const { user, browser } = await signedIn(t);
    const { clientId, clientSecret } = await registerThroughPortal(browser, { scopes: ['messaging.v1.read'] });
    const client = await t.gatehouse.findOwnedClient(user.userKey, clientId);
    const { body } = await t.tokensOverHttp({ client, clientSecret, email: 'ada@example.com' });
    await request(t.app).get('/identity/v1/Users/me').set('Authorization', `Bearer ${body.access_token as string}`).expect(200);

    const confirm = await browser.get(`/portal/clients/${clientId}/delete`).expect(200);
    expect(confirm.text).toContain(`<form method="post" action="/portal/clients/${clientId}/delete">`);
    expect(confirm.text).toContain('<button type="submit" class="danger">Delete client</button>');
    const deleted = await browser.postForm(`/portal/clients/${clientId}/delete`, {});
    expect(deleted.status).toBe(303);
    expect(deleted.headers.location).toBe('/portal/clients?done=deleted');
    expect(await t.gatehouse.listClients(user.userKey)).toEqual([]);
    const list = await browser.get('/portal/clients?done=deleted').expect(200);
    expect(list.text).toContain('<p class="notice ok" role="status">“Billing app” was deleted. Its tokens no longer work.</p>');
    const again = await browser.get('/portal/clients?done=deleted').expect(200);
    expect(again.text).toContain('The client was deleted.');
    expect(list.text).not.toContain(clientId);
    const me = await request(t.app).get('/identity/v1/Users/me').set('Authorization', `Bearer ${body.access_token as string}`);
    expect(me.status).toBe(401);
    expect(me.headers['www-authenticate']).toContain('error="invalid_token"');
    expect((await browser.get(`/portal/clients/${clientId}`)).status).toBe(404);
  });

  it('rotate, edit and delete without the CSRF token: 403 and nothing changes', async () => {
    const t = await createTestApp();
    const { user, browser } = await signedIn(t);
    const { clientId, clientSecret } = await registerThroughPortal(browser);
    const before = await t.gatehouse.findOwnedClient(user.userKey, clientId);
    for (const path of [`/portal/clients/${clientId}/rotate-secret`, `/portal/clients/${clientId}/delete`, `/portal/clients/${clientId}`]) {
      const res = await browser.postForm(path, { name: 'Changed', redirect_uris: 'https://x.example/cb', ...scopeFields(['messaging.v1.read']) }, { csrf: false });
      expect(res.status, path).toBe(403);
    }
    expect(await t.gatehouse.findOwnedClient(user.userKey, clientId)).toEqual(before);
    await expect(t.gatehouse.authenticateClient({ clientId, clientSecret })).resolves.toBeDefined();
  });

  it('another user’s client is a 404 for view, edit, rotate, delete and the secret page, and stays untouched', async () => {
    const t = await createTestApp();
    const bob = await t.seedUser({ email: 'bob@example.com' });
    const { client, clientSecret } = await t.seedClient({ name: 'Bob’s app', ownerUserKey: bob.userKey });
    const { browser } = await signedIn(t);
    await browser.get('/portal/clients').expect(200);
    const id = client.clientId;
    const gets = [`/portal/clients/${id}`, `/portal/clients/${id}/edit`, `/portal/clients/${id}/rotate-secret`, `/portal/clients/${id}/delete`, `/portal/clients/${id}/secret`, '/portal/clients/no-such-id!', '/portal/clients/unknown1'];
    for (const path of gets) {
      const res = await browser.get(path);
      expect(res.status, path).toBe(404);
      expect(res.text, path).toContain('There is no such client among yours.');
      expect(res.text, path).not.toContain('Bob’s app');
      expect(res.text, path).toContain('<a href="/portal/clients">OAuth Clients</a>');
    }
    const posts: Array<[string, Record<string, string>]> = [
      [`/portal/clients/${id}`, { name: 'Hijacked', redirect_uris: 'https://evil.example/cb', ...scopeFields(['messaging.v1.read']) }],
      [`/portal/clients/${id}/rotate-secret`, {}],
      [`/portal/clients/${id}/delete`, {}],
    ];
    for (const [path, fields] of posts) {
      const res = await browser.postForm(path, fields);
      expect(res.status, path).toBe(404);
    }
    expect(await t.gatehouse.findOwnedClient(bob.userKey, id)).toEqual(client);
    await expect(t.gatehouse.authenticateClient({ clientId: id, clientSecret })).resolves.toBeDefined();
  });
});
