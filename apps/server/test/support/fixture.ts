import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Browser, formWithAction } from './browser.js';
import { freePort, gatehouseJson, startServe, type ServerProcess } from './processes.js';
import type { TokenResponse } from '@gatehouse/core';

export const ALL_SCOPES = 'messaging.v1.send messaging.v1.read admin.v1.attributes.read admin.v1.attributes.write';
export const PASSWORD = 'correct horse battery';
export const PHONE = '+15551234567';
export const REDIRECT_URI = 'http://127.0.0.1:9/callback';

/** A database provisioned with the CLI (account, admin user with a phone, client), and how to serve it. */
export interface Provisioned {
  env: Record<string, string>;
  port: number;
  origin: string;
  accountKey: string;
  userKey: string;
  email: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  /** What the three CLI commands printed (`--json`), for tests of the CLI's answers. */
  cli: { account: Record<string, unknown>; user: Record<string, unknown>; client: Record<string, unknown> };
}

/**
 * A temporary directory of SQLite files and the `gatehouse serve` processes started on them;
 * `cleanup()` SIGKILLs every process still running and removes the directory (for afterAll).
 */
export function createWorkspace(prefix: string) {
  const dir = mkdtempSync(join(tmpdir(), `gatehouse-${prefix}-`));
  const servers: ServerProcess[] = [];
  return {
    dir,
    /** account, admin user with a phone number and an all-scopes client, through the CLI, on a new database file. */
    async provision(name: string, extraEnv: Record<string, string> = {}): Promise<Provisioned> {
      const port = await freePort();
      const origin = `http://127.0.0.1:${port}`;
      const env = {
        GATEHOUSE_DB: join(dir, `${name}.db`),
        GATEHOUSE_ISSUER: origin,
        GATEHOUSE_DEMO: 'false',
        GATEHOUSE_LOG_LEVEL: 'info',
        ...extraEnv,
      };
      const email = `ada+${name}@example.com`;
      const account = await gatehouseJson<{ accountKey: string }>(['accounts', 'create', '--name', 'Acme'], env);
      const user = await gatehouseJson<{ userKey: string }>(
        ['users', 'create', '--email', email, '--password', PASSWORD, '--given-name', 'Ada', '--family-name', 'Lovelace', '--account', account.accountKey, '--role', 'admin', '--phone', PHONE],
        env,
      );
      const client = await gatehouseJson<{ clientId: string; clientSecret: string }>(
        ['clients', 'create', '--name', 'Test app', '--redirect-uri', REDIRECT_URI, '--scope', ALL_SCOPES, '--owner', email],
        env,
      );
      return {
        env,
        port,
        origin,
        accountKey: account.accountKey,
        userKey: user.userKey,
        email,
        clientId: client.clientId,
        clientSecret: client.clientSecret,
        redirectUri: REDIRECT_URI,
        cli: { account, user, client },
      };
    },
    /** `gatehouse serve` on 127.0.0.1 (PORT and HOST are set by startServe), with `extraEnv` for this process only. */
    serve(p: Provisioned, extraEnv: Record<string, string> = {}): Promise<ServerProcess> {
      return this.start({ ...p.env, ...extraEnv }, p.port);
    },
    /** `gatehouse serve` with exactly `env` (a database not provisioned, say), stopped by `cleanup()`. */
    async start(env: Record<string, string>, port: number): Promise<ServerProcess> {
      const server = await startServe(env, port);
      servers.push(server);
      return server;
    },
    cleanup(): void {
      for (const server of servers) if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A signed-in browser that mints authorization codes over HTTP (authorize → consent → Allow). */
export async function codeMinter(p: Provisioned): Promise<{ mint(): Promise<string> }> {
  const browser = new Browser(p.origin);
  // prompt=consent: the consent page every time (a remembered consent would answer with the code at once).
  const query = new URLSearchParams({ response_type: 'code', client_id: p.clientId, redirect_uri: REDIRECT_URI, scope: ALL_SCOPES, state: 'hardening', prompt: 'consent' });
  const loginPage = await browser.navigate('GET', `/oauth/authorize?${query}`);
  const login = formWithAction(await loginPage.text(), '/oauth/login');
  const consentPage = await browser.navigate('POST', login.action, { ...login.hidden, email: p.email, password: PASSWORD });
  await consentPage.body?.cancel();
  return {
    async mint() {
      const consent = await browser.request('GET', `/oauth/authorize?${query}`);
      if (consent.status !== 200) throw new Error(`expected the consent page, got ${consent.status}`);
      const form = formWithAction(await consent.text(), '/oauth/authorize/decision');
      const redirect = await browser.request('POST', form.action, { ...form.hidden, decision: 'allow' });
      await redirect.body?.cancel();
      const code = new URL(redirect.headers.get('location') ?? 'x:').searchParams.get('code');
      if (code === null) throw new Error(`no code in the redirect (${redirect.status})`);
      return code;
    },
  };
}

export function basic(clientId: string, clientSecret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`;
}

export function tokenRequest(p: Pick<Provisioned, 'origin' | 'clientId' | 'clientSecret'>, form: Record<string, string>): Promise<Response> {
  return fetch(`${p.origin}/oauth/token`, {
    method: 'POST',
    headers: { Authorization: basic(p.clientId, p.clientSecret), Accept: 'application/json', 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
}

export async function exchange(p: Provisioned, code: string): Promise<Response> {
  return tokenRequest(p, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI });
}

/** A bearer-authenticated JSON request to the server. */
export function api(p: Pick<Provisioned, 'origin'>, token: string, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${p.origin}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, Accept: 'application/json', ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** VmRSS of a process in kB, from /proc/<pid>/status (Linux). */
export async function rssKb(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status)?.[1];
  if (kb === undefined) throw new Error(`no VmRSS for ${pid}`);
  return Number(kb);
}

export type { TokenResponse };
