import { REAUTHENTICATION_PARAMETER } from '@gatehouse/core';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { authorizePath, createTestApp, formAction, type TestBrowser } from '../test-support/index.js';

// Remembered consent and prompt (docs/decisions/0095-remembered-consent.md, 0096-prompt-login-marker.md).

const REDIRECT = 'https://client.example/callback';

async function setup() {
  const t = await createTestApp();
  const ada = await t.seedUser({ email: 'ada@example.com' });
  await t.seedUser({ email: 'bob@example.com' });
  const { client, clientSecret } = await t.seedClient({ name: 'Demo App', scopes: ['messaging.v1.send', 'messaging.v1.read'], ownerUserKey: ada.userKey });
  return { t, ada, client, clientSecret };
}

function clientRedirect(res: request.Response): URLSearchParams {
  expect(res.status).toBe(302);
  expect(res.headers['cache-control']).toBe('no-store');
  const location = new URL(res.headers.location as string);
  expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
  return location.searchParams;
}

function expectConsentPage(res: request.Response): void {
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/html/);
  expect(formAction(res.text, '/oauth/authorize/decision')).toBeDefined();
}

/** A signed-out browser asks with prompt=login and signs in as Ada; the marked request it comes back to. */
async function signedInForPromptLogin(t: Awaited<ReturnType<typeof setup>>['t'], client: Awaited<ReturnType<typeof setup>>['client']) {
  const browser = t.browser();
  const first = await browser.get(authorizePath(client, { prompt: 'login' }));
  const returnTo = new URL(first.headers.location as string, 'http://x').searchParams.get('return_to') as string;
  t.clock.advance(1);
  expect((await browser.signIn('ada@example.com', 'password123', returnTo)).status).toBe(303);
  return { browser, returnTo };
}

async function allow(browser: TestBrowser, path: string): Promise<URLSearchParams> {
  const page = await browser.get(path);
  expectConsentPage(page);
  const answer = await browser.postForm(formAction(page.text, '/oauth/authorize/decision') as string, { decision: 'allow' });
  return clientRedirect(answer);
}

describe('remembered consent', () => {
  it('after Allow, a second request for the same or fewer scopes gets a code at once, without the page', async () => {
    const { t, client, clientSecret } = await setup();
    const browser = await t.signedInBrowser('ada@example.com');
    expect((await allow(browser, authorizePath(client, { scope: 'messaging.v1.send messaging.v1.read', state: 'one' }))).get('code')).toBeTruthy();

    const again = await browser.get(authorizePath(client, { scope: 'messaging.v1.read messaging.v1.send', state: 'two' }));
    const params = clientRedirect(again);
    expect(params.get('state')).toBe('two');
    expect(params.get('iss')).toBe('http://localhost:3000');
    const code = params.get('code') as string;
    const tokens = await request(t.app).post('/oauth/token').auth(client.clientId, clientSecret).type('form').send({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT }).expect(200);
    expect(tokens.body).toMatchObject({ scope: 'messaging.v1.read messaging.v1.send', principal: 'ada@example.com' });

    expect(clientRedirect(await browser.get(authorizePath(client, { scope: 'messaging.v1.read' }))).get('code')).toBeTruthy();
    expect(t.audit.ofType('consent.granted')).toHaveLength(1);
    expect(t.audit.ofType('consent.remembered')).toHaveLength(2);
  });

  it('asks again for more scopes, marking the new ones; the consent of one user is not another’s', async () => {
    const { t, client } = await setup();
    const ada = await t.signedInBrowser('ada@example.com');
    await allow(ada, authorizePath(client, { scope: 'messaging.v1.read' }));

    const more = await ada.get(authorizePath(client, { scope: 'messaging.v1.read messaging.v1.send' }));
    expectConsentPage(more);
    // The new scope is marked New (and, as a scope that allows changes, "Can make changes": decision 0097).
    expect(more.text).toMatch(/Send text messages from your phone numbers <span class="new-scope">New<\/span> <span class="changes">Can make changes<\/span><code>messaging.v1.send<\/code>/);
    expect(more.text).toMatch(/Read the messages sent from your phone numbers<code>messaging.v1.read<\/code>/);
    expect(more.text.match(/class="new-scope"/g)).toHaveLength(1);

    const bob = await t.signedInBrowser('bob@example.com');
    const first = await bob.get(authorizePath(client, { scope: 'messaging.v1.read' }));
    expectConsentPage(first);
    expect(first.text).not.toContain('new-scope');
  });

  it('revoking the app under “Authorized apps” forgets the consent', async () => {
    const { t, client } = await setup();
    const browser = await t.signedInBrowser('ada@example.com');
    await allow(browser, authorizePath(client));
    await browser.get('/portal/authorized-apps').expect(200);
    await browser.postForm(`/portal/authorized-apps/${client.clientId}/revoke`, {}).expect(303);
    expectConsentPage(await browser.get(authorizePath(client)));
  });

  it('deleting the client (in the portal, by its owner) forgets the consent', async () => {
    const { t, ada, client } = await setup();
    const browser = await t.signedInBrowser('ada@example.com');
    await allow(browser, authorizePath(client));
    await browser.get(`/portal/clients/${client.clientId}/delete`).expect(200);
    await browser.postForm(`/portal/clients/${client.clientId}/delete`, {}).expect(303);
    expect(await t.repositories.clients.findById(client.clientId)).toBeUndefined();
    expect(await t.repositories.consents.find(ada.userKey, client.clientId)).toBeUndefined();
    // The same client id registered again (e.g. restored) starts without a consent.
    await t.repositories.clients.create({ ...client, createdAt: t.clock.now() });
    expectConsentPage(await browser.get(authorizePath(client)));
  });
});

describe('prompt', () => {
  it('prompt=consent shows the page even when the consent is remembered', async () => {
    const { t, client } = await setup();
    const browser = await t.signedInBrowser('ada@example.com');
    await allow(browser, authorizePath(client));
    const page = await browser.get(authorizePath(client, { prompt: 'consent' }));
    expectConsentPage(page);
    expect(page.text).not.toContain('new-scope');
  });

  it('prompt=none: login_required when signed out, consent_required before Allow, a code once remembered; never a page', async () => {
    const { t, client } = await setup();
    const signedOut = await request(t.app).get(authorizePath(client, { prompt: 'none', state: 'n' }));
    expect(Object.fromEntries(clientRedirect(signedOut))).toMatchObject({ error: 'login_required', state: 'n', iss: 'http://localhost:3000' });

    const browser = await t.signedInBrowser('ada@example.com');
    expect(clientRedirect(await browser.get(authorizePath(client, { prompt: 'none' }))).get('error')).toBe('consent_required');
    await allow(browser, authorizePath(client, { scope: 'messaging.v1.read' }));
    expect(clientRedirect(await browser.get(authorizePath(client, { prompt: 'none', scope: 'messaging.v1.read messaging.v1.send' }))).get('error')).toBe('consent_required');
    const silent = clientRedirect(await browser.get(authorizePath(client, { prompt: 'none', scope: 'messaging.v1.read' })));
    expect(silent.get('code')).toMatch(/^[0-9A-Za-z]{8}_[A-Za-z0-9]{43,}$/);
    expect(silent.get('error')).toBeNull();
  });

  it('an unknown prompt value, or none with another, is invalid_request (after sign-in, as every redirected error; signed out, none shows the error page: docs/decisions/0184)', async () => {
    const { t, client } = await setup();
    const signedOut = await request(t.app).get(authorizePath(client, { prompt: 'none login' }));
    expect([signedOut.status, signedOut.headers.location]).toEqual([400, undefined]);
    expect((await request(t.app).get(authorizePath(client, { prompt: 'select_account' }))).headers.location).toMatch(/^\/oauth\/login\?/);
    const browser = await t.signedInBrowser('ada@example.com');
    for (const prompt of ['none login', 'select_account']) {
      const params = clientRedirect(await browser.get(authorizePath(client, { prompt, state: 'p' })));
      expect(params.get('error')).toBe('invalid_request');
      expect(params.get('state')).toBe('p');
    }
  });

  it('prompt=login shows a signed-in user the login form; after signing in again the request goes on, without a loop', async () => {
    const { t, client } = await setup();
    const browser = await t.signedInBrowser('ada@example.com');
    await allow(browser, authorizePath(client));

    const first = await browser.get(authorizePath(client, { prompt: 'login', state: 'l' }));
    expect(first.status).toBe(302);
    const login = new URL(first.headers.location as string, 'http://localhost:3000');
    expect(login.pathname).toBe('/oauth/login');
    expect(login.searchParams.get('prompt')).toBe('login');
    const returnTo = login.searchParams.get('return_to') as string;
    expect(new URL(returnTo, 'http://x').searchParams.get(REAUTHENTICATION_PARAMETER)).toMatch(/^[A-Za-z0-9]{43,}$/);

    // The login page shows the form to the signed-in user instead of sending them straight back.
    const form = await browser.get(`${login.pathname}${login.search}`);
    expect(form.status).toBe(200);
    expect(form.text).toContain('name="password"');
    // Coming back without signing in again asks again.
    const skipped = await browser.get(returnTo);
    expect(new URL(skipped.headers.location as string, 'http://x').pathname).toBe('/oauth/login');

    t.clock.advance(1);
    const signedIn = await browser.signIn('ada@example.com', 'password123', returnTo);
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.location).toBe(returnTo);
    const done = clientRedirect(await browser.get(returnTo));
    expect(done.get('code')).toMatch(/^[0-9A-Za-z]{8}_[A-Za-z0-9]{43,}$/);
    expect(done.get('state')).toBe('l');

    // That sign-in issued its code (docs/decisions/0202): the same URL again asks for another.
    const reloaded = await browser.get(returnTo);
    expect(reloaded.status).toBe(302);
    expect(new URL(reloaded.headers.location as string, 'http://x').pathname).toBe('/oauth/login');
  });

  it('prompt=login through the consent page: Allow issues one code; the same form posted again (the back button) goes back to the request and asks for a sign-in', async () => {
    const { t, client } = await setup();
    const { browser, returnTo } = await signedInForPromptLogin(t, client);
    const page = await browser.get(returnTo);
    expectConsentPage(page);
    const action = formAction(page.text, '/oauth/authorize/decision') as string;
    expect(clientRedirect(await browser.postForm(action, { decision: 'allow' })).get('code')).not.toBeNull();
    const again = await browser.postForm(action, { decision: 'allow' });
    expect(again.status).toBe(303);
    expect(again.headers.location).toMatch(/^\/oauth\/authorize\?/);
    const asked = await browser.get(again.headers.location as string);
    expect(new URL(asked.headers.location as string, 'http://x').pathname).toBe('/oauth/login');
    expect([...t.audit.ofType('consent.granted'), ...t.audit.ofType('consent.remembered')]).toHaveLength(1);
  });

  it('prompt=login for a signed-out browser: one sign-in is enough', async () => {
    const { t, client } = await setup();
    const { browser, returnTo } = await signedInForPromptLogin(t, client);
    expectConsentPage(await browser.get(returnTo));
  });

  it('prompt=login: the consent form posted without the new sign-in issues no code', async () => {
    const { t, client } = await setup();
    const browser = await t.signedInBrowser('ada@example.com');
    const page = await browser.get(authorizePath(client, { prompt: 'consent' }));
    const action = formAction(page.text, '/oauth/authorize/decision') as string;
    const forged = action.replace('prompt=consent', 'prompt=login');
    const answer = await browser.postForm(forged, { decision: 'allow' });
    expect(answer.status).toBe(303);
    expect(answer.headers.location).toMatch(/^\/oauth\/authorize\?/);
    expect(t.audit.ofType('consent.granted')).toEqual([]);
  });
});
