import { createHash, randomBytes } from 'node:crypto';
import { existsSync, lstatSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packAll, type PackedPackage } from '../../../../scripts/pack-all.mjs';
import { launchChromium } from '../../../../packages/http-express/src/test-support/chromium.js';
import { Browser, formWithAction } from '../support/browser.js';
import { expectBuilt, installExample, killExampleServer, run, startExampleServer, succeed, versionOf, type ExampleServer } from '../support/examples.js';
import { freePort } from '../support/processes.js';

// examples/orders-service tested as a user would run it (docs/embedding.md "Embedding in an Express
// service"): the published packages, as `npm pack` makes them, installed into a copy of the
// example in a temporary directory — never the workspace sources — then the example's own unit
// tests (`npm test`: node --test with @gatehouse/core/testing), its CLI, and its server as a
// child process on a free port, driven over HTTP with plain fetch (cookies by hand, redirects
// not followed): authorize → the service's own login → Gatehouse's consent → token → GET /orders,
// a token without the scope (403), no token (401), a revoked grant (401), the service's sign-out.
// `npm run check` type-checks the example's JSDoc against the .d.ts files the tarballs ship.
//
// The packages must be built (CI runs `npm run build` first; so does `npm test`): this test
// builds nothing, it packs dist/ as it is. How the install stays fast and honest:
// support/examples.ts.

const REDIRECT_URI = 'http://127.0.0.1:9/callback';
const ADA = { email: 'ada@orders.example', password: 'ada-password-123' };
const BOB = { email: 'bob@orders.example', password: 'bob-password-123' };

interface ClientCredentials {
  clientId: string;
  clientSecret: string;
  scopes: string[];
}

interface TokenResponse {
  access_token: string;
  refresh_token: string;
  token_type: string;
  scope: string;
  principal: string;
}

describe('examples/orders-service, installed from the npm pack tarballs', () => {
  let temp: string;
  let app: string;
  let packed: PackedPackage[];
  let server: ExampleServer | undefined;
  let origin: string;
  let issuer: string;
  let database: string;
  let client: ClientCredentials;
  let writeOnlyClient: ClientCredentials;
  let env: Record<string, string>;
  const installTimings: Record<string, number> = {};

  const basic = (credentials: ClientCredentials) => `Basic ${Buffer.from(`${encodeURIComponent(credentials.clientId)}:${encodeURIComponent(credentials.clientSecret)}`).toString('base64')}`;
  const cli = async <T>(args: string[]): Promise<T> => JSON.parse(await succeed(process.execPath, ['cli.js', ...args], { cwd: app, timeoutMs: 30_000, env })) as T;
  /** The `gatehouse` bin @gatehouse/cli installs, as `npx gatehouse … --json` runs it. */
  const gatehouseCli = async <T>(args: string[]): Promise<T> => JSON.parse(await succeed(join(app, 'node_modules/.bin/gatehouse'), [...args, '--json'], { cwd: app, timeoutMs: 30_000, env })) as T;

  beforeAll(async () => {
    expectBuilt();
    temp = mkdtempSync(join(tmpdir(), 'gatehouse-orders-service-'));
    packed = packAll(join(temp, 'packs'));
    const installed = await installExample('orders-service', temp, packed);
    app = installed.app;
    installTimings.npmInstallMs = installed.npmInstallMs;

    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    issuer = `${origin}/auth`;
    database = join(temp, 'data/orders.db');
    // Issue #30 point 3: the signing keys encrypted at rest, and the maintenance runner on a short interval.
    env = { PORT: String(port), HOST: '127.0.0.1', ORDERS_ISSUER: issuer, ORDERS_DATABASE: database, ORDERS_KEY_SECRET: randomBytes(32).toString('base64url'), ORDERS_PURGE_INTERVAL_SECONDS: '1' };

    // The service's CLI: two users of its own, their orders, and two OAuth clients with its scopes.
    await cli(['users', 'create', '--email', ADA.email, '--password', ADA.password, '--given-name', 'Ada', '--family-name', 'Lovelace']);
    await cli(['users', 'create', '--email', BOB.email, '--password', BOB.password, '--given-name', 'Bob']);
    await cli(['orders', 'add', '--email', ADA.email, '--item', 'Green tea', '--quantity', '2']);
    await cli(['orders', 'add', '--email', ADA.email, '--item', 'Punch cards', '--quantity', '200']);
    await cli(['orders', 'add', '--email', BOB.email, '--item', 'Gears']);
    client = await cli<ClientCredentials>(['clients', 'create', '--name', 'Orders app', '--redirect-uri', REDIRECT_URI]);
    // The second with the published CLI (@gatehouse/cli, issue #30 point 4), through the example's gatehouse.config.js.
    writeOnlyClient = await gatehouseCli<ClientCredentials>(['clients', 'create', '--name', 'Shop app', '--redirect-uri', REDIRECT_URI, '--scope', 'orders.v1.write']);

    server = await startExampleServer(app, env, 'orders-service listening on');
  }, 900_000);

  afterAll(async () => {
    await killExampleServer(server);
    if (temp) rmSync(temp, { recursive: true, force: true });
  }, 30_000);

  /** authorize → (sign-in when needed) → consent → Allow: the code, from the redirect to the client. */
  async function authorize(browser: Browser, credentials: ClientCredentials, scope: string, signIn?: { email: string; password: string }) {
    const verifier = randomBytes(32).toString('base64url');
    const state = randomBytes(8).toString('hex');
    const query = new URLSearchParams({
      client_id: credentials.clientId,
      response_type: 'code',
      redirect_uri: REDIRECT_URI,
      scope,
      state,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      // The consent page every time, though this user may have allowed the client before (remembered consent).
      prompt: 'consent',
    });
    const authorizePath = `/auth/oauth/authorize?${query}`;
    let consent = await browser.request('GET', authorizePath);
    if (signIn) {
      // Gatehouse hands the sign-in to the service's own page, with a login request.
      expect(consent.status).toBe(302);
      const toLogin = new URL(consent.headers.get('location') as string, origin);
      expect(toLogin.pathname).toBe('/login');
      const loginRequest = toLogin.searchParams.get('login_request') as string;
      expect(loginRequest).toMatch(/^[A-Za-z0-9]{43}$/);
      const loginPage = await browser.request('GET', toLogin.toString());
      expect(loginPage.status).toBe(200);
      const form = formWithAction(await loginPage.text(), '/login');
      expect(form.hidden).toEqual({ login_request: loginRequest });

      const wrong = await browser.request('POST', '/login', { ...form.hidden, email: signIn.email, password: 'not the password' });
      expect(wrong.status).toBe(401);
      expect(await wrong.text()).toContain('The e-mail or password is not right.');

      const signedIn = await browser.request('POST', '/login', { ...form.hidden, email: signIn.email, password: signIn.password });
      // A page that moves on (not a redirect), so the login page's CSP form-action 'self' does not
      // block the chain in Chromium (docs/decisions/0141).
      expect(signedIn.status).toBe(200);
      expect(await onwardOf(signedIn)).toBe(authorizePath);
      expect(browser.has('orders_session')).toBe(true);
      expect(browser.has('gatehouse_session')).toBe(true);
      consent = await browser.request('GET', authorizePath);
    }
    // Gatehouse's consent page, in the words of the service's scopes, with its name, logo and
    // links: "Not you?" to its switch-account page, no "Authorized apps" (it mounts none).
    expect(consent.status).toBe(200);
    const html = await consent.text();
    expect(html).toContain(scope === 'orders.v1.read' ? 'See your orders' : 'Place orders for you');
    expect(html).toContain('<span class="brand"><img class="logo" src="/logo.svg" alt="">Orders</span>');
    expect(html).toContain(`<a href="/switch-account?${new URLSearchParams({ return_to: authorizePath }).toString().replace(/&/g, '&amp;')}">Use another account</a>`);
    expect(html).not.toContain('Authorized apps');
    const decision = formWithAction(html, '/auth/oauth/authorize/decision?');
    const allowed = await browser.request('POST', decision.action, { ...decision.hidden, decision: 'allow' });
    expect(allowed.status).toBe(302);
    const back = new URL(allowed.headers.get('location') as string);
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT_URI);
    expect(back.searchParams.get('state')).toBe(state);
    expect(back.searchParams.get('iss')).toBe(issuer);
    return { code: back.searchParams.get('code') as string, verifier };
  }

  async function token(credentials: ClientCredentials, form: Record<string, string>): Promise<Response> {
    return fetch(`${issuer}/oauth/token`, {
      method: 'POST',
      headers: { Authorization: basic(credentials), 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });
  }

  async function exchange(credentials: ClientCredentials, grant: { code: string; verifier: string }): Promise<TokenResponse> {
    const response = await token(credentials, { grant_type: 'authorization_code', code: grant.code, redirect_uri: REDIRECT_URI, code_verifier: grant.verifier });
    expect(response.status).toBe(200);
    return (await response.json()) as TokenResponse;
  }

  /** Where the page that answers a login POST sends the browser (its meta refresh). */
  async function onwardOf(response: Response): Promise<string> {
    const refresh = /<meta http-equiv="refresh" content="0;url=([^"]*)">/.exec(await response.text())?.[1];
    expect(refresh, 'a page that moves on').toBeDefined();
    return (refresh as string).replace(/&amp;/g, '&');
  }

  const getOrders = (accessToken?: string) => fetch(`${origin}/orders`, accessToken === undefined ? {} : { headers: { Authorization: `Bearer ${accessToken}` } });

  it('installs every Gatehouse package from its tarball, not from the workspace', () => {
    for (const name of ['@gatehouse/core', '@gatehouse/storage-kysely', '@gatehouse/storage-sqlite', '@gatehouse/http-express']) {
      const installed = join(app, 'node_modules', name);
      expect(lstatSync(installed).isSymbolicLink(), name).toBe(false);
      expect(versionOf(installed)).toBe(packed.find((pkg) => pkg.name === name)?.version);
    }
    const lock = readFileSync(join(app, 'package-lock.json'), 'utf8');
    const core = packed.find((pkg) => pkg.name === '@gatehouse/core') as PackedPackage;
    expect(lock).toMatch(new RegExp(`"resolved": "file:[^"]*/packs/gatehouse-core-${core.version.replace(/\./g, '\\.')}\\.tgz"`));
    expect(lock).not.toContain('packages/core');
    // The copy shipped no test support: what a user installs.
    expect(existsSync(join(app, 'node_modules/@gatehouse/core/dist/testing/index.js'))).toBe(true);
    expect(existsSync(join(app, 'node_modules/@gatehouse/core/src/test-support'))).toBe(false);
    expect(installTimings.npmInstallMs).toBeLessThan(180_000);
  });

  it('passes its own unit tests (npm test: node --test with @gatehouse/core/testing from the tarball)', async () => {
    const result = await run('npm', ['test'], { cwd: app, timeoutMs: 120_000 });
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stdout).toMatch(/^# pass [1-9]\d*$/m);
    expect(result.stdout).toMatch(/^# fail 0$/m);
    expect(result.stdout).toMatch(/^\s*ok \d+ - grants orders\.v1\.read only when the client asks for it$/m);
  }, 150_000);

  it('type-checks against the types the tarballs ship (npm run check: tsc on the JSDoc)', async () => {
    const result = await run('npm', ['run', 'check'], { cwd: app, timeoutMs: 120_000 });
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
  }, 150_000);

  it('publishes RFC 8414 §3.1 metadata at the root for the issuer /auth, with the service\'s scopes', async () => {
    const response = await fetch(`${origin}/.well-known/oauth-authorization-server/auth`);
    expect(response.status).toBe(200);
    const metadata = (await response.json()) as Record<string, unknown>;
    expect(metadata.issuer).toBe(issuer);
    expect(metadata.authorization_endpoint).toBe(`${issuer}/oauth/authorize`);
    expect(metadata.token_endpoint).toBe(`${issuer}/oauth/token`);
    expect(metadata.revocation_endpoint).toBe(`${issuer}/oauth/revoke`);
    expect(metadata.scopes_supported).toEqual(['orders.v1.read', 'orders.v1.write']);
  });

  let browser: Browser;
  let tokens: TokenResponse;

  it('authorize → the service\'s login → consent → token → GET /orders: the signed-in user\'s orders only', async () => {
    browser = new Browser(origin);
    tokens = await exchange(client, await authorize(browser, client, 'orders.v1.read', ADA));
    expect(tokens).toMatchObject({ token_type: 'Bearer', scope: 'orders.v1.read', principal: ADA.email });

    const response = await getOrders(tokens.access_token);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { orders: Array<{ item: string; quantity: number }> };
    expect(body.orders.map(({ item, quantity }) => ({ item, quantity }))).toEqual([
      { item: 'Green tea', quantity: 2 },
      { item: 'Punch cards', quantity: 200 },
    ]);
  });

  it('answers 403 insufficient_scope to a token without orders.v1.read', async () => {
    // Still signed in: straight to consent.
    const writeOnly = await exchange(writeOnlyClient, await authorize(browser, writeOnlyClient, 'orders.v1.write'));
    expect(writeOnly.scope).toBe('orders.v1.write');
    const refused = await getOrders(writeOnly.access_token);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="orders", error="insufficient_scope", scope="orders.v1.read"');
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);

    // What the token does allow: placing an order, which the read token then sees.
    const placed = await fetch(`${origin}/orders`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${writeOnly.access_token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ item: 'Difference engine', quantity: 1 }),
    });
    expect(placed.status).toBe(201);
    const orders = (await (await getOrders(tokens.access_token)).json()) as { orders: Array<{ item: string }> };
    expect(orders.orders.map((order) => order.item)).toEqual(['Green tea', 'Punch cards', 'Difference engine']);
  });

  it('answers 401 with a Bearer challenge without a token, and invalid_token for a forged one', async () => {
    const none = await getOrders();
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="orders"');
    const forged = await getOrders(`${tokens.access_token.slice(0, -4)}AAAA`);
    expect(forged.status).toBe(401);
    expect(forged.headers.get('www-authenticate')).toBe('Bearer realm="orders", error="invalid_token"');
  });

  it('refuses the access token at once when the client revokes its refresh token (RFC 7009)', async () => {
    const fresh = await exchange(client, await authorize(browser, client, 'orders.v1.read'));
    expect((await getOrders(fresh.access_token)).status).toBe(200);
    const revoked = await fetch(`${issuer}/oauth/revoke`, {
      method: 'POST',
      headers: { Authorization: basic(client), 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: fresh.refresh_token, token_type_hint: 'refresh_token' }).toString(),
    });
    expect(revoked.status).toBe(200);
    const refused = await getOrders(fresh.access_token);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="orders", error="invalid_token"');
    const refresh = await token(client, { grant_type: 'refresh_token', refresh_token: fresh.refresh_token });
    expect(refresh.status).toBe(400);
    expect(((await refresh.json()) as { error: string }).error).toBe('invalid_grant');
    // The other grant is untouched.
    expect((await getOrders(tokens.access_token)).status).toBe(200);
  });

  it('hands a browser signed in to the service straight back to Gatehouse, without the form', async () => {
    browser.forget('gatehouse_session'); // Gatehouse's session cookie gone, the service's still there
    const query = new URLSearchParams({ client_id: client.clientId, response_type: 'code', redirect_uri: REDIRECT_URI, scope: 'orders.v1.read' });
    const toLogin = await browser.request('GET', `/auth/oauth/authorize?${query}`);
    expect(new URL(toLogin.headers.get('location') as string, origin).pathname).toBe('/login');
    const handedBack = await browser.request('GET', toLogin.headers.get('location') as string);
    expect(handedBack.status).toBe(303);
    expect(handedBack.headers.get('location')).toBe(`/auth/oauth/authorize?${query}`);
    expect(browser.has('gatehouse_session')).toBe(true);
    // Signed in again, and this user allowed orders.v1.read before: the remembered consent sends the code at once.
    const answered = await browser.request('GET', `/auth/oauth/authorize?${query}`);
    expect(answered.status).toBe(302);
    const back = new URL(answered.headers.get('location') as string);
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT_URI);
    expect(back.searchParams.get('code')).toMatch(/^[0-9A-Za-z]{8}_[A-Za-z0-9]{43}$/);
  });

  it('asks a browser signed in to the service for its password again when the app sends prompt=login (docs/decisions/0107)', async () => {
    const query = new URLSearchParams({ client_id: client.clientId, response_type: 'code', redirect_uri: REDIRECT_URI, scope: 'orders.v1.read', prompt: 'login' });
    const toLogin = await browser.request('GET', `/auth/oauth/authorize?${query}`);
    expect(toLogin.status).toBe(302);
    const loginUrl = new URL(toLogin.headers.get('location') as string, origin);
    expect(loginUrl.pathname).toBe('/login');
    // Signed in to the service, but before the app asked: the form, not a hand-over.
    const page = await browser.request('GET', `${loginUrl.pathname}${loginUrl.search}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Orders app asks you to enter your password again.');
    const form = formWithAction(html, '/login');
    const signedIn = await browser.request('POST', '/login', { ...form.hidden, email: ADA.email, password: ADA.password });
    expect(signedIn.status).toBe(200);
    // Back to the request, which the fresh sign-in now satisfies: the remembered consent sends the code.
    const answered = await browser.request('GET', await onwardOf(signedIn));
    expect(answered.status).toBe(302);
    const back = new URL(answered.headers.get('location') as string);
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT_URI);
    expect(back.searchParams.get('code')).toMatch(/^[0-9A-Za-z]{8}_[A-Za-z0-9]{43}$/);
  });

  it('in headless Chromium, under the login page\'s CSP form-action \'self\' (as helmet\'s default), a sign-in with the consent remembered reaches the redirect URI (docs/decisions/0141)', async () => {
    // A client of its own (Chromium refuses port 9, an unsafe port), whose redirect URI a server of the test answers.
    const callbackServer = createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'text/plain' }).end('callback reached'));
    await new Promise<void>((resolve) => callbackServer.listen(0, '127.0.0.1', resolve));
    const callback = `http://127.0.0.1:${(callbackServer.address() as AddressInfo).port}/callback`;
    const browserApp = await cli<ClientCredentials>(['clients', 'create', '--name', 'Browser app', '--redirect-uri', callback, '--scope', 'orders.v1.read']);
    const query = new URLSearchParams({ client_id: browserApp.clientId, response_type: 'code', redirect_uri: callback, scope: 'orders.v1.read', state: 'chromium' });
    const chromium = await launchChromium();
    /** A fresh browser (no cookie): authorize → the service's login form → (consent, the first time) → the redirect URI. */
    const signInAndLand = async (allow: boolean) => {
      const context = await chromium.newContext();
      try {
        const page = await context.newPage();
        const violations: string[] = [];
        page.on('console', (message) => {
          if (message.text().includes('Content Security Policy')) violations.push(message.text());
        });
        await page.goto(`${issuer}/oauth/authorize?${query}`);
        expect(new URL(page.url()).pathname).toBe('/login');
        await page.fill('input[name="email"]', ADA.email);
        await page.fill('input[name="password"]', ADA.password);
        const landing = page.waitForURL((url) => url.toString().startsWith(callback), { timeout: 30_000 });
        await page.click('button[type="submit"]');
        if (allow) {
          await page.waitForSelector('button[name="decision"][value="allow"]');
          await page.click('button[name="decision"][value="allow"]');
        }
        await landing;
        const landed = new URL(page.url());
        expect(landed.searchParams.get('state')).toBe('chromium');
        expect(landed.searchParams.get('code')).toMatch(/^[0-9A-Za-z]{8}_[A-Za-z0-9]{43}$/);
        expect(violations).toEqual([]);
      } finally {
        await context.close();
      }
    };
    try {
      await signInAndLand(true);
      // The consent remembered: login POST → Gatehouse → the app, which a redirect chain would not reach.
      await signInAndLand(false);
    } finally {
      await chromium.close();
      await new Promise<void>((resolve) => callbackServer.close(() => resolve()));
    }
  }, 120_000);

  it('leaves no dead end in Gatehouse\'s pages (docs/decisions/0142): its login form is not served, "Not you?" switches accounts, the pages wear the service\'s brand', async () => {
    const gatehouseLogin = await fetch(`${issuer}/oauth/login`, { redirect: 'manual' });
    expect(gatehouseLogin.status).toBe(302);
    expect(gatehouseLogin.headers.get('location')).toBe('/login');
    const stylesheet = await (await fetch(`${issuer}/assets/gatehouse.css`)).text();
    expect(stylesheet).toContain(':root { --accent: #0a7f5a; }');
    expect((await fetch(`${origin}/logo.svg`)).headers.get('content-type')).toMatch(/^image\/svg\+xml/);

    // Bob, at the consent page, is not the one who should be signed in: "Use another account".
    const bobs = new Browser(origin);
    const query = new URLSearchParams({ client_id: client.clientId, response_type: 'code', redirect_uri: REDIRECT_URI, scope: 'orders.v1.read' });
    const authorizePath = `/auth/oauth/authorize?${query}`;
    const toLogin = await bobs.request('GET', authorizePath);
    const form = formWithAction(await (await bobs.request('GET', toLogin.headers.get('location') as string)).text(), '/login');
    await onwardOf(await bobs.request('POST', '/login', { ...form.hidden, email: BOB.email, password: BOB.password }));
    const consent = await (await bobs.request('GET', authorizePath)).text();
    const switchLink = /href="(\/switch-account\?[^"]+)"/.exec(consent)?.[1]?.replace(/&amp;/g, '&') as string;
    const switchPage = await bobs.request('GET', switchLink);
    expect(switchPage.status).toBe(200);
    const switchForm = formWithAction(await switchPage.text(), '/switch-account');
    // The service's pages write '&' as '&#38;' (which the test's form reader leaves as it is).
    const returnTo = (switchForm.hidden.return_to ?? '').replace(/&#38;/g, '&');
    expect(returnTo).toBe(authorizePath);
    const switched = await bobs.request('POST', '/switch-account', { return_to: returnTo });
    expect(switched.status).toBe(303);
    expect(switched.headers.get('location')).toBe(authorizePath);
    expect(bobs.has('orders_session')).toBe(false);
    expect(bobs.has('gatehouse_session')).toBe(false);
    // Back at the request: the service's login, for whoever signs in now.
    const again = await bobs.request('GET', authorizePath);
    expect(new URL(again.headers.get('location') as string, origin).pathname).toBe('/login');
    // A return_to that is not an authorization request is not followed.
    const elsewhere = await bobs.request('POST', '/switch-account', { return_to: 'https://evil.example/' });
    expect(elsewhere.headers.get('location')).toBe('/');
  });

  it('forgets a user the service deletes (cli.js users delete → gatehouse.forgetUser): their tokens stop at once', async () => {
    const bobs = new Browser(origin);
    const bobTokens = await exchange(client, await authorize(bobs, client, 'orders.v1.read', BOB));
    expect((await getOrders(bobTokens.access_token)).status).toBe(200);

    const deleted = await cli<{ deleted: boolean; forgotten: Record<string, number> }>(['users', 'delete', '--email', BOB.email]);
    expect(deleted.deleted).toBe(true);
    expect(deleted.forgotten).toMatchObject({ grants: 1, consents: 1 });
    expect(deleted.forgotten.sessions).toBeGreaterThanOrEqual(1); // the one ended by "Use another account" too

    const refused = await getOrders(bobTokens.access_token);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="orders", error="invalid_token"');
    const refresh = await token(client, { grant_type: 'refresh_token', refresh_token: bobTokens.refresh_token });
    expect(refresh.status).toBe(400);
    // Ada's tokens are untouched.
    expect((await getOrders(tokens.access_token)).status).toBe(200);
  });

  it('refuses a sign-in form posted from another site', async () => {
    const response = await fetch(`${origin}/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { Origin: 'https://evil.example', 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: ADA.email, password: ADA.password }).toString(),
    });
    expect(response.status).toBe(403);
    expect(response.headers.get('set-cookie')).toBeNull();
  });

  it('signs out of the service and of Gatehouse: the tokens allowed while signed in stop working', async () => {
    const signedOut = await browser.request('POST', '/logout', {});
    expect(signedOut.status).toBe(303);
    expect(browser.has('orders_session')).toBe(false);
    expect(browser.has('gatehouse_session')).toBe(false);
    const refused = await getOrders(tokens.access_token);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="orders", error="invalid_token"');
    const refresh = await token(client, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
    expect(refresh.status).toBe(400);
    const again = await browser.request('GET', `/auth/oauth/authorize?${new URLSearchParams({ client_id: client.clientId, response_type: 'code', redirect_uri: REDIRECT_URI })}`);
    expect(again.status).toBe(302);
    expect(new URL(again.headers.get('location') as string, origin).pathname).toBe('/login');
  });

  it('keeps Gatehouse\'s tables in the service\'s database under gh_, only the authorization server\'s, its private keys encrypted', () => {
    const db = new Database(database, { readonly: true, fileMustExist: true });
    try {
      const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as Array<{ name: string }>).map((row) => row.name);
      expect(tables.filter((name) => !name.startsWith('gh_'))).toEqual(['orders', 'sessions', 'users']);
      // Issue #30 point 6: no tables of Gatehouse-owned users or the product APIs (decision 0146).
      expect(tables.filter((name) => name.startsWith('gh_'))).toEqual(
        ['gh_authorization_codes', 'gh_clients', 'gh_consents', 'gh_gatehouse_migration', 'gh_gatehouse_migration_lock', 'gh_grants', 'gh_interactions', 'gh_readiness_probe', 'gh_refresh_tokens', 'gh_sessions', 'gh_signing_keys'],
      );
      expect(db.prepare('SELECT COUNT(*) AS n FROM gh_clients').get()).toEqual({ n: 3 });
      // Issue #30 point 3: ORDERS_KEY_SECRET encrypts the private signing keys (decision 0145).
      const keys = db.prepare('SELECT private_jwk FROM gh_signing_keys').all() as Array<{ private_jwk: string }>;
      expect(keys.length).toBeGreaterThan(0);
      for (const key of keys) expect(JSON.parse(key.private_jwk)).toEqual({ enc: 'gatehouse-aes-256-gcm-v1', salt: expect.any(String), iv: expect.any(String), ciphertext: expect.any(String), tag: expect.any(String) });
    } finally {
      db.close();
    }
  });

  it('runs the maintenance runner: Gatehouse\'s purge on its interval, logged', async () => {
    const running = server as NonNullable<typeof server>;
    const deadline = Date.now() + 30_000;
    // ORDERS_PURGE_INTERVAL_SECONDS=1: the runner's line comes within a second or two of the start.
    while (!running.output().includes('purged expired records') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(running.output()).toMatch(/purged expired records \{"removed":\{.*"codes":\d+/);
    expect(running.output()).not.toContain('purge failed');
  }, 40_000);

  it('manages the clients, keys and migrations with the published gatehouse CLI, on the service\'s own database and scopes', async () => {
    expect(await gatehouseCli<{ pending: number }>(['migrate', 'status'])).toMatchObject({ pending: 0 });
    const { clients } = await gatehouseCli<{ clients: Array<{ clientId: string; name: string; scopes: string[] }> }>(['clients', 'list']);
    expect(clients.map((listed) => listed.name)).toEqual(expect.arrayContaining(['Orders app', 'Shop app']));
    expect(await gatehouseCli(['clients', 'show', writeOnlyClient.clientId])).toMatchObject({ clientId: writeOnlyClient.clientId, scopes: ['orders.v1.write'] });
    // The service's scopes decide: one it does not offer is refused, and nothing changes.
    const refused = await run(join(app, 'node_modules/.bin/gatehouse'), ['clients', 'update', writeOnlyClient.clientId, '--scope', 'messaging.v1.send'], { cwd: app, timeoutMs: 30_000, env });
    expect(refused.code).toBe(1);
    const { keys } = await gatehouseCli<{ keys: Array<{ kid: string; alg: string }> }>(['keys', 'list']);
    expect(keys.length).toBeGreaterThan(0);
    const temporary = await gatehouseCli<ClientCredentials>(['clients', 'create', '--name', 'Temporary', '--redirect-uri', REDIRECT_URI, '--scope', 'orders.v1.read']);
    expect(await gatehouseCli(['clients', 'delete', temporary.clientId])).toEqual({ clientId: temporary.clientId, deleted: true });
  }, 120_000);

  it('stops on SIGTERM with exit code 0', async () => {
    const running = server as NonNullable<typeof server>;
    running.child.kill('SIGTERM');
    expect(await running.exited).toBe(0);
  });
});
