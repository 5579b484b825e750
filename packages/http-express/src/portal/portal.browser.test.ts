import { createHash } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuth, type TestApp } from '../test-support/index.js';
import { startBrowserHarness, type BrowserHarness } from '../test-support/browser-harness.js';
import { screenshotPath } from '../test-support/screenshots.js';

/**
 * The portal in headless Chromium against a real HTTP server: register a client through the form,
 * read its secret once, use it in a full authorize → login → Allow → token flow, rotate the secret,
 * delete the client. Also saves the README screenshots (docs/images/ under `npm run screenshots`).
 */
const VIEWPORT = { width: 1280, height: 800 };
const EMAIL = 'ada@example.com';
const PASSWORD = 'correct horse battery';
/** Fixed (not the test server's port), so the screenshots are the same from run to run. */
const REDIRECT_URI = 'https://billing.example/oauth/callback';

let harness: BrowserHarness | undefined;
let base: string;
let t: TestApp;
let browser: Browser;

beforeAll(async () => {
  ({ browser, origin: base, t } = harness = await startBrowserHarness());
}, 60_000);

afterAll(async () => {
  await harness?.close();
});

async function newContext(): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: VIEWPORT, baseURL: base });
  // The client's redirect URI lands here: a tiny page standing in for the client app (no network).
  await context.route(`${REDIRECT_URI}**`, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>Client app</title><p>callback</p>' }));
  return context;
}

async function signIn(page: Page): Promise<void> {
  await page.getByLabel('E-mail').fill(EMAIL);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

async function tokenRequest(clientId: string, clientSecret: string, fields: Record<string, string>) {
  const res = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { Authorization: basicAuth(clientId, clientSecret), 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

async function usersMe(accessToken: string) {
  return fetch(`${base}/identity/v1/Users/me`, { headers: { Authorization: `Bearer ${accessToken}` } });
}

describe('developer portal in headless Chromium', () => {
  it('register → secret once → authorize, login, Allow, token → rotate → delete', async () => {
    const user = await t.seedUser({ email: EMAIL, password: PASSWORD, givenName: 'Ada', familyName: 'Lovelace' });
    const redirectUri = REDIRECT_URI;
    const portal = await newContext();
    await portal.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    const page = await portal.newPage();

    // Not signed in: the portal sends us to the login page, which brings us back.
    await page.goto('/portal');
    expect(new URL(page.url()).pathname).toBe('/oauth/login');
    expect(new URL(page.url()).searchParams.get('return_to')).toBe('/portal/clients');
    await signIn(page);
    await page.waitForURL(`${base}/portal/clients`);
    await expect(page.getByRole('heading', { name: 'OAuth Clients' }).isVisible()).resolves.toBe(true);
    await expect(page.getByRole('link', { name: 'OAuth Clients' }).isVisible()).resolves.toBe(true);

    // The create form (screenshot with good values), then a redirect URI on plain http elsewhere
    // than loopback: refused next to its field, the form keeps what was typed, nothing is saved.
    await page.getByRole('link', { name: 'Register a client' }).click();
    await page.waitForURL(`${base}/portal/clients/new`);
    await page.getByLabel('Client name').fill('Billing dashboard');
    await page.getByLabel('Redirect URIs').fill(`${redirectUri}\nhttp://localhost:5173/callback`);
    await page.getByLabel(/Send text messages from your phone numbers/).check();
    await page.getByLabel(/Read the messages sent from your phone numbers/).check();
    await page.getByRole('heading', { name: 'Register a client' }).click(); // no focus ring in the picture
    await page.screenshot({ path: screenshotPath('portal-create.png'), fullPage: true });
    await page.getByLabel('Redirect URIs').fill('http://billing.example/callback');
    await page.getByRole('button', { name: 'Register client' }).click();
    await page.waitForURL(`${base}/portal/clients`);
    await expect(page.locator('#redirect_uris-error').textContent()).resolves.toBe('Use https:// in “http://billing.example/callback” (http:// only on localhost, 127.0.0.1 or [::1])');
    // The error summary has the focus, is announced, and its link moves the focus to the field.
    await expect(page.evaluate<string>('document.activeElement.className')).resolves.toBe('error-summary');
    await expect(page.locator('.error-summary').getAttribute('role')).resolves.toBe('alert');
    await page.locator('.error-summary a[href="#redirect_uris"]').click();
    await expect(page.evaluate<string>('document.activeElement.id')).resolves.toBe('redirect_uris');
    await expect(page.getByLabel('Client name').inputValue()).resolves.toBe('Billing dashboard');
    await expect(page.getByLabel(/Read the messages sent from your phone numbers/).isChecked()).resolves.toBe(true);
    expect(await t.gatehouse.listClients(user.userKey)).toEqual([]);

    await page.getByLabel('Redirect URIs').fill(`${redirectUri}\nhttp://localhost:5173/callback`);
    await page.getByRole('button', { name: 'Register client' }).click();

    // The secret page: ID and secret, shown once, with working copy buttons (the script runs under the CSP).
    await page.waitForURL(/\/portal\/clients\/[A-Za-z0-9]+\/secret$/);
    await expect(page.getByText('Store the client secret now — it will not be shown again.').isVisible()).resolves.toBe(true);
    const clientId = await page.locator('#client_id').inputValue();
    const clientSecret = await page.locator('#client_secret').inputValue();
    expect(clientSecret).toMatch(/^[A-Za-z0-9]{43,}$/);
    const [client] = await t.gatehouse.listClients(user.userKey);
    expect(client).toMatchObject({ clientId, name: 'Billing dashboard', redirectUris: [redirectUri, 'http://localhost:5173/callback'], scopes: ['messaging.v1.send', 'messaging.v1.read'] });
    const copy = page.locator('button[data-copy="client_secret"]');
    await expect(copy.isVisible()).resolves.toBe(true);
    await copy.click();
    await expect(page.evaluate('navigator.clipboard.readText()')).resolves.toBe(clientSecret);
    await expect(copy.textContent()).resolves.toBe('Copied');

    // Reload, back and forward never show it again.
    await page.reload();
    await expect(page.getByRole('heading', { name: 'The secret is no longer shown' }).isVisible()).resolves.toBe(true);
    expect(await page.content()).not.toContain(clientSecret);
    await page.goBack();
    await page.goForward();
    expect(await page.content()).not.toContain(clientSecret);
    expect(await t.gatehouse.listClients(user.userKey)).toHaveLength(1);

    // The list, with a second client for a fuller picture.
    await t.seedClient({ name: 'Attribute sync', ownerUserKey: user.userKey, redirectUris: ['http://localhost:8080/callback'], scopes: ['admin.v1.attributes.read', 'admin.v1.attributes.write'] });
    await page.goto('/portal/clients');
    await expect(page.getByRole('cell', { name: clientId }).isVisible()).resolves.toBe(true);
    expect(await page.content()).not.toContain(clientSecret);
    await page.screenshot({ path: screenshotPath('portal-clients.png') });

    // A full code flow with that client, in a browser that is not signed in yet.
    const app = await newContext();
    const appPage = await app.newPage();
    const authorize = new URL('/oauth/authorize', base);
    authorize.search = new URLSearchParams({ client_id: clientId, response_type: 'code', redirect_uri: redirectUri, state: 'st-1', scope: 'messaging.v1.read' }).toString();
    await appPage.goto(authorize.toString());
    expect(new URL(appPage.url()).pathname).toBe('/oauth/login');
    await signIn(appPage);
    await expect(appPage.getByRole('heading', { name: /Billing dashboard/ }).isVisible()).resolves.toBe(true);
    await appPage.getByRole('button', { name: 'Allow' }).click();
    await appPage.waitForURL(`${REDIRECT_URI}?**`);
    const callback = new URL(appPage.url());
    expect(callback.searchParams.get('state')).toBe('st-1');
    expect(callback.searchParams.get('iss')).toBe(base);
    const code = callback.searchParams.get('code') as string;
    const tokens = await tokenRequest(clientId, clientSecret, { grant_type: 'authorization_code', code, redirect_uri: redirectUri });
    expect(tokens.status).toBe(200);
    expect(tokens.body).toMatchObject({ token_type: 'Bearer', scope: 'messaging.v1.read' });
    const accessToken = tokens.body.access_token as string;
    const refreshToken = tokens.body.refresh_token as string;
    const me = await usersMe(accessToken);
    expect(me.status).toBe(200);
    expect(((await me.json()) as { userName: string }).userName).toBe(EMAIL);
    await app.close();

    // Rotate: confirm, read the new secret once; the old one is refused, the new one accepted.
    await page.goto(`/portal/clients/${clientId}`);
    await page.getByRole('link', { name: 'Rotate secret' }).click();
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.waitForURL(`${base}/portal/clients/${clientId}/secret`);
    const newSecret = await page.locator('#client_secret').inputValue();
    expect(newSecret).toMatch(/^[A-Za-z0-9]{43,}$/);
    expect(newSecret).not.toBe(clientSecret);
    const withOld = await tokenRequest(clientId, clientSecret, { grant_type: 'refresh_token', refresh_token: refreshToken });
    expect(withOld.status).toBe(401);
    expect(withOld.body.error).toBe('invalid_client');
    expect(withOld.headers.get('www-authenticate')).toMatch(/^Basic/);
    const withNew = await tokenRequest(clientId, newSecret, { grant_type: 'refresh_token', refresh_token: refreshToken });
    expect(withNew.status).toBe(200);
    const refreshedAccess = withNew.body.access_token as string;
    expect((await usersMe(refreshedAccess)).status).toBe(200);

    // Delete with confirmation: the client is gone and its tokens are refused.
    await page.goto(`/portal/clients/${clientId}`);
    await page.getByRole('link', { name: 'Delete' }).click();
    await page.getByRole('button', { name: 'Delete client' }).click();
    await page.waitForURL(`${base}/portal/clients?done=deleted`);
    await expect(page.getByText('“Billing dashboard” was deleted. Its tokens no longer work.').isVisible()).resolves.toBe(true);
    expect(await page.content()).not.toContain(clientId);
    expect(await t.gatehouse.listClients(user.userKey)).toHaveLength(1);
    for (const token of [accessToken, refreshedAccess]) {
      const refused = await usersMe(token);
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
    }
    const deletedClient = await tokenRequest(clientId, newSecret, { grant_type: 'refresh_token', refresh_token: refreshToken });
    expect(deletedClient.status).toBe(401);
    await portal.close();
  }, 120_000);

  it('registers a public client (no secret; PKCE code flow with client_id alone) and a client-credentials client (no redirect URI)', async () => {
    const email = 'grace@example.com';
    const user = await t.seedUser({ email, password: PASSWORD });
    const portal = await newContext();
    const page = await portal.newPage();
    await page.goto('/portal/clients/new');
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/portal/clients/new`);

    // A public client: the type is a choice on the form; after it, the client's page (no secret to show).
    await page.getByLabel('Client name').fill('Phone app');
    await page.getByLabel(/Public client — no secret/).check();
    await page.getByLabel('Redirect URIs').fill(REDIRECT_URI);
    await page.getByLabel(/Read the messages sent from your phone numbers/).check();
    await page.getByRole('button', { name: 'Register client' }).click();
    await page.waitForURL(/\/portal\/clients\/[A-Za-z0-9]+\?done=created$/);
    await expect(page.getByText('The public client “Phone app” was registered.').isVisible()).resolves.toBe(true);
    await expect(page.getByRole('link', { name: 'Rotate secret' }).count()).resolves.toBe(0);
    const [publicClient] = await t.gatehouse.listClients(user.userKey);
    expect(publicClient).toMatchObject({ name: 'Phone app', clientSecretHash: null, grantTypes: ['authorization_code', 'refresh_token'] });
    const publicId = publicClient?.clientId as string;

    // Its code flow: PKCE S256 in the browser (already signed in), then the token with client_id alone.
    const verifier = 'a-native-app-verifier-of-at-least-43-characters-000000';
    const authorize = new URL('/oauth/authorize', base);
    authorize.search = new URLSearchParams({
      client_id: publicId,
      response_type: 'code',
      redirect_uri: REDIRECT_URI,
      state: 'st-2',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    }).toString();
    await page.goto(authorize.toString());
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${REDIRECT_URI}?**`);
    const code = new URL(page.url()).searchParams.get('code') as string;
    const exchanged = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', client_id: publicId, code, redirect_uri: REDIRECT_URI, code_verifier: verifier }).toString(),
    });
    expect(exchanged.status).toBe(200);
    expect((await usersMe(((await exchanged.json()) as { access_token: string }).access_token)).status).toBe(200);

    // A client-credentials client: no redirect URI, only that grant type; its secret is shown once.
    await page.goto('/portal/clients/new');
    await page.getByLabel('Client name').fill('Nightly export');
    await page.getByLabel(/Read the messages sent from your phone numbers/).check();
    await page.getByLabel(/Users sign in and allow access/).uncheck();
    await page.getByLabel(/Refresh tokens/).uncheck();
    await page.getByLabel(/The client calls APIs as itself/).check();
    await page.getByRole('button', { name: 'Register client' }).click();
    await page.waitForURL(/\/portal\/clients\/[A-Za-z0-9]+\/secret$/);
    const machineId = await page.locator('#client_id').inputValue();
    const machineSecret = await page.locator('#client_secret').inputValue();
    expect((await t.gatehouse.findOwnedClient(user.userKey, machineId)).grantTypes).toEqual(['client_credentials']);
    const machineTokens = await tokenRequest(machineId, machineSecret, { grant_type: 'client_credentials' });
    expect(machineTokens.status).toBe(200);
    expect(machineTokens.body).not.toHaveProperty('refresh_token');
    const refused = await usersMe(machineTokens.body.access_token as string);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { errorCode: string }).errorCode).toBe('FORBIDDEN');
    await page.goto(`/portal/clients/${machineId}`);
    await expect(page.getByText('client_credentials', { exact: true }).isVisible()).resolves.toBe(true);
    await portal.close();
  }, 120_000);
});
