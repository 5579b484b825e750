import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser, formWithAction } from './support/browser.js';
import { ALL_SCOPES, basic, createWorkspace, PASSWORD, PHONE, tokenRequest, type Provisioned, type TokenResponse } from './support/fixture.js';
import { ensureBuilt, freePort, gatehouseJson, REPO_ROOT, runGatehouse } from './support/processes.js';

// The real `gatehouse` process on a temporary SQLite file, driven over real HTTP.

const workspace = createWorkspace('e2e');

beforeAll(async () => {
  await ensureBuilt();
}, 300_000);

afterAll(() => workspace.cleanup());

/** Provisioned through the CLI (account, admin user with a phone, client), its answers checked. */
async function provision(name: string): Promise<Provisioned> {
  const p = await workspace.provision(name);
  expect(p.cli.account).toEqual({ accountKey: p.accountKey, name: 'Acme' });
  expect(p.cli.user).toEqual({ userKey: p.userKey, email: p.email });
  expect(p.cli.client).toEqual({ clientId: p.clientId, clientSecret: expect.any(String), name: 'Test app', redirectUris: [p.redirectUri], scopes: ALL_SCOPES.split(' '), grantTypes: ['authorization_code', 'refresh_token'] });
  return p;
}

/** authorize → login (CSRF token from the page) → consent Allow → the code on the redirect URI. */
async function authorize(p: Pick<Provisioned, 'origin' | 'clientId' | 'redirectUri' | 'email'>, password = PASSWORD): Promise<{ code: string; browser: Browser }> {
  const browser = new Browser(p.origin);
  const state = 'st-' + Math.random().toString(36).slice(2);
  const query = new URLSearchParams({ response_type: 'code', client_id: p.clientId, redirect_uri: p.redirectUri, state, scope: ALL_SCOPES });
  const loginPage = await browser.navigate('GET', `/oauth/authorize?${query}`);
  expect(loginPage.status).toBe(200);
  const login = formWithAction(await loginPage.text(), '/oauth/login');
  expect(login.hidden.csrf_token).toMatch(/^[A-Za-z0-9]{43}$/);

  const consentPage = await browser.navigate('POST', login.action, { ...login.hidden, email: p.email, password });
  expect(consentPage.status).toBe(200);
  const consentHtml = await consentPage.text();
  expect(consentHtml).toContain('Allow');
  const consent = formWithAction(consentHtml, '/oauth/authorize');

  const redirect = await browser.navigate('POST', consent.action, { ...consent.hidden, decision: 'allow' });
  expect(redirect.status).toBe(302);
  const location = new URL(redirect.headers.get('location') as string);
  expect(`${location.origin}${location.pathname}`).toBe(p.redirectUri);
  expect(location.searchParams.get('state')).toBe(state);
  expect(location.searchParams.get('iss')).toBe(p.origin);
  return { code: location.searchParams.get('code') as string, browser };
}

const bearer = (token: string, extra: Record<string, string> = {}) => ({ Authorization: `Bearer ${token}`, Accept: 'application/json', ...extra });

describe('gatehouse serve, end to end', () => {
  it('provisions with the CLI, runs the whole flow over HTTP, and stops cleanly on SIGTERM', async () => {
    const p = await provision('flow');
    const server = await workspace.serve(p);

    // Probes.
    expect((await fetch(`${p.origin}/healthz`)).status).toBe(200);
    const ready = await fetch(`${p.origin}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready' });

    // authorize → login → consent → code → token (HTTP Basic).
    const { code } = await authorize(p);
    const tokenResponse = await tokenRequest(p, { grant_type: 'authorization_code', code, redirect_uri: p.redirectUri });
    expect(tokenResponse.status).toBe(200);
    expect(tokenResponse.headers.get('cache-control')).toBe('no-store');
    const tokens = (await tokenResponse.json()) as TokenResponse;
    expect(tokens).toEqual({
      access_token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      token_type: 'Bearer',
      refresh_token: expect.any(String),
      expires_in: 3600,
      scope: ALL_SCOPES,
      principal: p.email,
    });
    // Identity.
    const me = await fetch(`${p.origin}/identity/v1/Users/me`, { headers: bearer(tokens.access_token) });
    expect(me.status).toBe(200);
    const user = (await me.json()) as Record<string, unknown>;
    expect(user).toMatchObject({ id: p.userKey, userName: p.email, name: { givenName: 'Ada', familyName: 'Lovelace' } });
    expect(user['urn:gatehouse:scim:schemas:extension:accounts:1.0']).toEqual({ accounts: [{ value: p.accountKey, display: 'Acme', roles: ['admin'] }] });

    // Messaging.
    const sent = await fetch(`${p.origin}/messaging/v1/messages`, {
      method: 'POST',
      headers: bearer(tokens.access_token, { 'Content-Type': 'application/json' }),
      body: JSON.stringify({ ownerPhoneNumber: PHONE, contactPhoneNumbers: ['+15557654321'], body: 'Hello from the end-to-end test' }),
    });
    expect(sent.status).toBe(201);
    expect(await sent.json()).toMatchObject({ ownerPhoneNumber: PHONE, contactPhoneNumbers: ['+15557654321'], body: 'Hello from the end-to-end test', direction: 'OUT' });
    const listed = await fetch(`${p.origin}/messaging/v1/messages?ownerPhoneNumber=${encodeURIComponent(PHONE)}`, { headers: bearer(tokens.access_token) });
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { items: unknown[] }).items).toHaveLength(1);

    // Attribute administration: create, list, set a user's value, read it back.
    const admin = `${p.origin}/admin/rest/v1/accounts/${p.accountKey}`;
    const created = await fetch(`${admin}/attributes`, {
      method: 'POST',
      headers: bearer(tokens.access_token, { 'Content-Type': 'application/json' }),
      body: JSON.stringify({ name: 'department' }),
    });
    expect(created.status).toBe(201);
    const attribute = (await created.json()) as { key: string; name: string };
    expect(attribute).toEqual({ key: expect.any(String), name: 'department' });
    expect(created.headers.get('location')).toContain(`/attributes/${attribute.key}`);
    const names = await fetch(`${admin}/attributes`, { headers: bearer(tokens.access_token) });
    expect(await names.json()).toEqual({ results: [attribute], total: 1 });
    const set = await fetch(`${admin}/users/${p.userKey}/attributes`, {
      method: 'PUT',
      headers: bearer(tokens.access_token, { 'Content-Type': 'application/json' }),
      body: JSON.stringify([{ key: attribute.key, value: 'Sales' }]),
    });
    expect(set.status).toBe(204);
    const values = await fetch(`${admin}/users/${p.userKey}/attributes`, { headers: bearer(tokens.access_token) });
    expect(await values.json()).toEqual([{ key: attribute.key, name: 'department', value: 'Sales' }]);

    // Refresh.
    const refreshed = await tokenRequest(p, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token as string });
    expect(refreshed.status).toBe(200);
    const second = (await refreshed.json()) as TokenResponse;
    expect(second).toMatchObject({ token_type: 'Bearer', scope: ALL_SCOPES, principal: p.email });
    expect(second.access_token).not.toBe(tokens.access_token);
    expect((await fetch(`${p.origin}/identity/v1/Users/me`, { headers: bearer(second.access_token) })).status).toBe(200);

    // Revoke: the refresh token is refused, and the grant's access tokens at once.
    const revoked = await fetch(`${p.origin}/oauth/revoke`, {
      method: 'POST',
      headers: { Authorization: basic(p.clientId, p.clientSecret), 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.refresh_token as string, token_type_hint: 'refresh_token' }).toString(),
    });
    expect(revoked.status).toBe(200);
    expect(await revoked.text()).toBe('');
    const refused = await tokenRequest(p, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token as string });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: 'invalid_grant' });
    const afterRevoke = await fetch(`${p.origin}/identity/v1/Users/me`, { headers: bearer(second.access_token) });
    expect(afterRevoke.status).toBe(401);
    expect(afterRevoke.headers.get('www-authenticate')).toContain('error="invalid_token"');
    // The code worked once only.
    const replay = await tokenRequest(p, { grant_type: 'authorization_code', code, redirect_uri: p.redirectUri });
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ error: 'invalid_grant' });

    // SIGTERM: a clean stop with exit code 0. It is usually quick; the grace is well above the
    // server's shutdown timeout (GATEHOUSE_SHUTDOWN_TIMEOUT_SECONDS, 10 s by default, then its
    // storage stops), so that only a stuck stop fails, not a slow one on a loaded machine.
    server.child.kill('SIGTERM');
    let late: NodeJS.Timeout | undefined;
    const exit = await Promise.race([server.exited, new Promise((resolve) => (late = setTimeout(() => resolve('still running after 30 s'), 30_000)))]);
    clearTimeout(late);
    expect(exit).toBe(0);

    // The logs: JSON lines with request ids and audit events, and no secret of any kind.
    const logs = server.logs;
    const tokenLine = logs.find((line) => line.msg === 'request' && line.path === '/oauth/token');
    expect(tokenLine).toMatchObject({ method: 'POST', status: 200, reqId: expect.any(String) });
    const authorizeLine = logs.find((line) => line.msg === 'request' && line.path === '/oauth/authorize');
    expect(authorizeLine).toBeDefined();
    expect(logs.filter((line) => line.audit === true).map((line) => line.event)).toEqual(
      expect.arrayContaining(['sign_in.succeeded', 'consent.granted', 'code.replayed', 'grant.revoked']),
    );
    // Each audit line carries the reqId of the request that caused it, as that request's access line does.
    const signIn = logs.find((line) => line.audit === true && line.event === 'sign_in.succeeded');
    expect(signIn).toMatchObject({ userKey: p.userKey, reqId: expect.any(String) });
    expect(logs.find((line) => line.msg === 'request' && line.reqId === signIn?.reqId)).toMatchObject({ method: 'POST', path: '/oauth/login' });
    const replayed = logs.find((line) => line.audit === true && line.event === 'code.replayed');
    expect(logs.find((line) => line.msg === 'request' && line.reqId === replayed?.reqId)).toMatchObject({ method: 'POST', path: '/oauth/token', status: 400 });
    expect(logs.map((line) => line.msg)).toEqual(expect.arrayContaining(['listening', 'shutting down: finishing in-flight requests', 'stopped']));
    const everything = server.stdout() + server.stderr();
    for (const secret of [PASSWORD, p.clientSecret, code, tokens.access_token, tokens.refresh_token, second.access_token]) {
      expect(everything).not.toContain(secret);
    }
    // The whole flow, then up to 30 s for the stop.
  }, 120_000);

  it('keeps a token response valid after SIGKILL: the restarted server accepts both tokens', async () => {
    const p = await provision('durability');
    const first = await workspace.serve(p);
    const { code } = await authorize(p);
    const response = await tokenRequest(p, { grant_type: 'authorization_code', code, redirect_uri: p.redirectUri });
    const tokens = (await response.json()) as TokenResponse;
    expect(response.status).toBe(200);
    first.child.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');

    const second = await workspace.serve(p);
    const me = await fetch(`${p.origin}/identity/v1/Users/me`, { headers: bearer(tokens.access_token) });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ id: p.userKey });
    const refreshed = await tokenRequest(p, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token as string });
    expect(refreshed.status).toBe(200);
    expect(await refreshed.json()).toMatchObject({ token_type: 'Bearer', principal: p.email });
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  }, 60_000);

  it('on first run seeds the demo data, prints how to try the flow, and the printed values work', async () => {
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const env = { GATEHOUSE_DB: join(workspace.dir, 'first-run', 'nested', 'gatehouse.db'), GATEHOUSE_ISSUER: origin };
    const server = await workspace.start(env, port);
    const banner = await server.waitForStderr('Call an API with the access token');
    const email = /e-mail (\S+)\s+password (\S+)/.exec(banner);
    const clientId = /export CLIENT_ID=(\S+)/.exec(banner)?.[1];
    const clientSecret = /export CLIENT_SECRET=(\S+)/.exec(banner)?.[1];
    const authorizeUrl = /(http:\/\/127\.0\.0\.1:\d+\/oauth\/authorize\?\S+)/.exec(banner)?.[1];
    expect(email?.[1]).toBe('admin@example.com');
    expect(clientId).toBeDefined();
    expect(clientSecret).toMatch(/^[A-Za-z0-9]{43,}$/);
    expect(banner).toContain('curl -s -u');
    expect(banner).toContain(`${origin}/oauth/token`);

    // The printed authorize URL works in a "browser", and the demo callback page shows the code.
    const browser = new Browser(origin);
    const loginPage = await browser.navigate('GET', authorizeUrl as string);
    const login = formWithAction(await loginPage.text(), '/oauth/login');
    const consentPage = await browser.navigate('POST', login.action, { ...login.hidden, email: 'admin@example.com', password: email?.[2] as string });
    const consent = formWithAction(await consentPage.text(), '/oauth/authorize');
    const callback = await browser.navigate('POST', consent.action, { ...consent.hidden, decision: 'allow' });
    expect(callback.status).toBe(200);
    expect(callback.headers.get('x-frame-options')).toBe('DENY');
    expect(callback.headers.get('referrer-policy')).toBe('no-referrer');
    const page = await callback.text();
    const code = /<code id="code">([^<]+)<\/code>/.exec(page)?.[1] as string;
    expect(code).toBeDefined();
    expect(page).toContain(`curl -s -u &quot;${clientId}:$CLIENT_SECRET&quot;`);

    // The exchange the page shows, with the printed secret.
    const demo = { origin, clientId: clientId as string, clientSecret: clientSecret as string };
    const exchanged = await tokenRequest(demo, { grant_type: 'authorization_code', code, redirect_uri: `${origin}/demo/callback` });
    expect(exchanged.status).toBe(200);
    expect(await exchanged.json()).toMatchObject({ principal: 'admin@example.com', token_type: 'Bearer' });
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);

    // The second start does not seed again.
    const again = await workspace.start(env, port);
    const secondBanner = await again.waitForStderr('Call an API with the access token');
    expect(secondBanner).not.toContain('First run');
    expect(secondBanner).toContain(`CLIENT_ID=${clientId}`);
    again.child.kill('SIGTERM');
    expect(await again.exited).toBe(0);
    const clients = await gatehouseJson<{ clients: unknown[] }>(['clients', 'list'], env);
    expect(clients.clients).toHaveLength(1);
  }, 60_000);

  it('is reachable as `npx --no-install gatehouse` from the repository root, and refuses bad input with one line', async () => {
    const output = await new Promise<string>((resolve, reject) =>
      execFile('npx', ['--no-install', 'gatehouse', '--help'], { cwd: REPO_ROOT }, (error, stdout) => (error ? reject(error) : resolve(stdout))),
    );
    expect(output).toContain('Usage: gatehouse <command> [options]');
    // And a bad command is a non-zero exit with a one-line message.
    const bad = await runGatehouse(['frobnicate'], {});
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('gatehouse: unknown command "frobnicate"; run gatehouse --help\n');
    // A bad configuration value stops `serve` with one line naming it.
    const misconfigured = await runGatehouse(['serve'], { PORT: 'eighty' });
    expect(misconfigured).toMatchObject({ code: 1, stdout: '', stderr: 'gatehouse serve: PORT must be a whole number from 1 to 65535 (got "eighty").\n' });
  }, 60_000);
});
