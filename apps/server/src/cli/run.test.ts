import { EventEmitter } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { Gatehouse, ProductApi } from '@gatehouse/core';
import { openSqliteStorage } from '@gatehouse/storage-sqlite';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { createContainer, resolve, TOKENS } from '../container.js';
import { DISPATCHED_COMMANDS, runCli } from './run.js';
import { serve } from './serve.js';

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let env: Record<string, string>;
let counter = 0;
beforeEach(() => {
  counter += 1;
  // Each test its own database, in a directory that does not exist yet.
  env = { GATEHOUSE_DB: join(dir, `t${counter}`, 'gatehouse.db'), GATEHOUSE_LOG_LEVEL: 'info' };
});

async function cli(...argv: string[]) {
  return cliWithStdin(undefined, ...argv);
}

/** Runs with `input` as standard input (a stream that ends after it). */
async function cliWithStdin(input: string | undefined, ...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const stdin = input === undefined ? undefined : Readable.from([Buffer.from(input)]);
  const code = await runCli(argv, { env, stdout: { write: (text: string) => (stdout += text) }, stderr: { write: (text: string) => (stderr += text) }, ...(stdin ? { stdin } : {}) });
  return { code, stdout, stderr };
}

/** Runs with --json and returns the one object printed (asserting it is exactly one line of JSON). */
async function json<T = Record<string, unknown>>(...argv: string[]): Promise<T> {
  const result = await cli(...argv, '--json');
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout.endsWith('\n')).toBe(true);
  expect(result.stdout.trimEnd().split('\n')).toHaveLength(1);
  return JSON.parse(result.stdout) as T;
}

async function withGatehouse<T>(use: (gatehouse: Gatehouse, product: ProductApi) => Promise<T>): Promise<T> {
  const container = await createContainer(loadConfig(env), { logDestination: { write: () => undefined } });
  try {
    return await use(resolve(container, TOKENS.gatehouse), resolve(container, TOKENS.product));
  } finally {
    await resolve(container, TOKENS.storage).close();
  }
}

/**
 * Runs `serve` in-process on a free port (any port will do here), capturing its output; resolves
 * once it listens. `stop()` sends SIGTERM and resolves to serve's exit code.
 */
async function serveInProcess(config: ReturnType<typeof loadConfig>) {
  const signals = new EventEmitter();
  const output = { stdout: '', stderr: '' };
  let port = 0;
  let listening!: () => void;
  const ready = new Promise<void>((resolve) => (listening = resolve));
  const exit = serve(
    { ...config, port: 0 },
    {
      stdout: { write: (text: string) => (output.stdout += text) },
      stderr: { write: (text: string) => (output.stderr += text) },
      signals,
      onListening: (info) => {
        port = info.port;
        listening();
      },
    },
  );
  await ready;
  return {
    origin: `http://127.0.0.1:${port}`,
    output,
    stop: (): Promise<number> => {
      signals.emit('SIGTERM');
      return exit;
    },
  };
}

describe('gatehouse CLI', () => {
  it('--help prints the commands and exits 0 without touching a database', async () => {
    const result = await cli('--help');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: gatehouse <command> [options]');
    for (const command of ['serve', 'migrate', 'accounts create', 'users create', 'users set-password', 'clients create', 'clients list', 'clients rotate-secret', 'clients delete', 'keys rotate']) {
      expect(result.stdout).toContain(command);
    }
    expect(existsSync(env.GATEHOUSE_DB as string)).toBe(false);
    const sub = await cli('users', 'create', '--help');
    expect(sub).toMatchObject({ code: 0, stdout: expect.stringContaining('Usage: gatehouse users create --email E --password P') });
  });

  it('--help lists every command the CLI dispatches, each on a line of its own, so none is left out again', async () => {
    const { stdout } = await cli('--help');
    expect(DISPATCHED_COMMANDS).toEqual(expect.arrayContaining(['serve', 'users enable', 'clients set-links', 'clients set-first-party']));
    // At the start of a line of the command list: a mention in another command's description does not count.
    const listed = (command: string) => new RegExp(`^ {2}${command}(?: |$)`, 'm').test(stdout);
    expect(DISPATCHED_COMMANDS.filter((command) => !listed(command))).toEqual([]);
  });

  it('serve --workers takes auto or 1 to 256, and more than one needs a database the workers can share (docs/decisions/0171)', async () => {
    for (const wrong of ['0', 'lots']) {
      expect(await cli('serve', '--workers', wrong)).toMatchObject({ code: 2, stderr: 'gatehouse serve: --workers must be auto or a whole number from 1 to 256\n' });
    }
    env.GATEHOUSE_DB = ':memory:';
    expect(await cli('serve', '--workers', '2')).toMatchObject({ code: 1, stderr: expect.stringContaining('GATEHOUSE_WORKERS above 1 needs a database file (GATEHOUSE_DB) or PostgreSQL') });
    expect((await cli('serve', '--help')).stdout).toContain('gatehouse serve [--workers N|auto]');
  });

  it('--version prints the server package version (and {version} with --json) without touching a database', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
    expect(await cli('--version')).toEqual({ code: 0, stdout: `gatehouse ${version}\n`, stderr: '' });
    expect(await cli('--version', '--json')).toEqual({ code: 0, stdout: `${JSON.stringify({ version })}\n`, stderr: '' });
    expect(existsSync(env.GATEHOUSE_DB as string)).toBe(false);
  });

  it('users create --password-stdin reads the password from standard input, one trailing newline trimmed', async () => {
    const user = JSON.parse((await cliWithStdin('correct horse battery\n', 'users', 'create', '--email', 'ada@example.com', '--password-stdin', '--json')).stdout) as { userKey: string };
    expect(user.userKey).toMatch(/^[A-Za-z0-9]+$/);
    await withGatehouse(async (gatehouse) => {
      expect((await gatehouse.signIn({ email: 'ada@example.com', password: 'correct horse battery' })).user.userKey).toBe(user.userKey);
      await expect(gatehouse.signIn({ email: 'ada@example.com', password: 'correct horse battery\n' })).rejects.toThrow();
    });
    // Three password hashes at the production cost (scrypt N=2^17, docs/decisions/0045): ~1 s each on a busy machine.
  }, 30_000);

  it('users create refuses --password with --password-stdin, and neither, with one line', async () => {
    const both = await cliWithStdin('correct horse battery\n', 'users', 'create', '--email', 'ada@example.com', '--password', 'correct horse battery', '--password-stdin');
    expect(both).toEqual({ code: 2, stdout: '', stderr: 'gatehouse users create: give --password or --password-stdin, not both\n' });
    const neither = await cli('users', 'create', '--email', 'ada@example.com');
    expect(neither).toEqual({ code: 2, stdout: '', stderr: 'gatehouse users create: --password or --password-stdin is required\n' });
    const empty = await cliWithStdin('\n', 'users', 'create', '--email', 'ada@example.com', '--password-stdin');
    expect(empty).toEqual({ code: 2, stdout: '', stderr: 'gatehouse users create: --password-stdin: standard input held no password\n' });
    await withGatehouse(async (_gatehouse, product) => expect(await product.findUserByEmail('ada@example.com')).toBeUndefined());
  });

  it('users set-password gives a new password from standard input and signs the user out everywhere', async () => {
    const ada = await json<{ userKey: string }>('users', 'create', '--email', 'ada@example.com', '--password', 'old password');
    const { sessionToken } = await withGatehouse((gatehouse) => gatehouse.signIn({ email: 'ada@example.com', password: 'old password' }));

    const result = await cliWithStdin('new password 123\n', 'users', 'set-password', '--email', 'ADA@example.com', '--password-stdin', '--json');
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ userKey: ada.userKey, email: 'ada@example.com', endedSessions: 1, revokedGrants: 0 });
    await withGatehouse(async (gatehouse) => {
      expect(await gatehouse.resolveSession(sessionToken)).toBeUndefined();
      await expect(gatehouse.signIn({ email: 'ada@example.com', password: 'old password' })).rejects.toMatchObject({ kind: 'unauthenticated' });
      expect((await gatehouse.signIn({ email: 'ada@example.com', password: 'new password 123' })).user.userKey).toBe(ada.userKey);
    });
    const text = await cli('users', 'set-password', '--email', 'ada@example.com', '--password', 'third password');
    expect(text).toEqual({ code: 0, stdout: `New password for ada@example.com (userKey ${ada.userKey}): 1 sign-in session(s) ended, 0 grant(s) revoked.\n`, stderr: expect.any(String) });
    // Five password hashes at the production cost (scrypt N=2^17, docs/decisions/0045).
  }, 60_000);

  it('users set-password refuses an unknown e-mail (not_found, exit 1) and a short password (exit 1), changing nothing', async () => {
    expect(await cli('users', 'set-password', '--email', 'nobody@example.com', '--password', 'long enough')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'gatehouse users set-password: --email nobody@example.com: no user with this e-mail\n',
    });
    await json('users', 'create', '--email', 'ada@example.com', '--password', 'old password');
    const short = await cli('users', 'set-password', '--email', 'ada@example.com', '--password', 'short');
    expect(short).toMatchObject({ code: 1, stderr: 'gatehouse users set-password: The password must be 8 to 1024 characters.\n' });
    const neither = await cli('users', 'set-password', '--email', 'ada@example.com');
    expect(neither).toEqual({ code: 2, stdout: '', stderr: 'gatehouse users set-password: --password or --password-stdin is required\n' });
    await withGatehouse(async (gatehouse) => {
      expect((await gatehouse.signIn({ email: 'ada@example.com', password: 'old password' })).user.email).toBe('ada@example.com');
    });
  }, 30_000);

  it('reads a secret setting from <NAME>_FILE, and names the variable when the file is missing', async () => {
    const secretFile = join(dir, `key-secret-${counter}`);
    writeFileSync(secretFile, 'the file secret, at least 32 characters\n');
    env.GATEHOUSE_KEY_SECRET_FILE = secretFile;
    await json('keys', 'rotate');
    delete env.GATEHOUSE_KEY_SECRET_FILE;
    env.GATEHOUSE_KEY_SECRET = 'the file secret, at least 32 characters';
    expect((await cli('keys', 'rotate')).code).toBe(0);
    env.GATEHOUSE_KEY_SECRET_FILE = join(dir, 'no-such-file');
    expect(await cli('migrate')).toEqual({ code: 1, stdout: '', stderr: 'gatehouse migrate: GATEHOUSE_KEY_SECRET and GATEHOUSE_KEY_SECRET_FILE are both set; set only one.\n' });
    delete env.GATEHOUSE_KEY_SECRET;
    expect(await cli('migrate')).toEqual({ code: 1, stdout: '', stderr: `gatehouse migrate: GATEHOUSE_KEY_SECRET_FILE names a file that cannot be read (ENOENT: ${join(dir, 'no-such-file')}).\n` });
  });

  it('migrate creates the database file (and its directory) and says so', async () => {
    expect(await json('migrate')).toEqual({ migrated: true, database: 'sqlite' });
    expect(existsSync(env.GATEHOUSE_DB as string)).toBe(true);
    const text = await cli('migrate');
    expect(text).toMatchObject({ code: 0, stdout: `Database is up to date (SQLite file ${env.GATEHOUSE_DB}).\n` });
  });

  it('accounts create → {accountKey, name}, or readable text without --json', async () => {
    const account = await json('accounts', 'create', '--name', 'Acme');
    expect(account).toEqual({ accountKey: expect.stringMatching(/^[A-Za-z0-9]+$/), name: 'Acme' });
    const text = await cli('accounts', 'create', '--name', 'Globex');
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^Created account "Globex": accountKey [A-Za-z0-9]+\n$/);
  });

  it('users create with an account role and a phone number', async () => {
    const { accountKey } = await json<{ accountKey: string }>('accounts', 'create', '--name', 'Acme');
    const user = await json<{ userKey: string; email: string }>(
      'users', 'create', '--email', 'ada@example.com', '--password', 'correct horse', '--given-name', 'Ada', '--family-name', 'Lovelace',
      '--account', accountKey, '--role', 'admin', '--phone', '+15551234567',
    );
    expect(user).toEqual({ userKey: expect.any(String), email: 'ada@example.com' });
    await withGatehouse(async (gatehouse, product) => {
      const current = await product.currentUser(user.userKey);
      expect(current.user).toMatchObject({ email: 'ada@example.com', givenName: 'Ada', familyName: 'Lovelace' });
      expect(current.memberships).toEqual([{ account: { accountKey, name: 'Acme' }, role: 'admin' }]);
      expect(await product.listPhoneNumbers(user.userKey)).toEqual(['+15551234567']);
      // The password was hashed, and signs in.
      const { user: signedIn } = await gatehouse.signIn({ email: 'ada@example.com', password: 'correct horse' });
      expect(signedIn.userKey).toBe(user.userKey);
    });
  });

  it('users create refuses bad input before writing anything', async () => {
    const noRole = await cli('users', 'create', '--email', 'a@example.com', '--password', 'correct horse', '--role', 'admin', '--account', 'nope');
    expect(noRole).toEqual({ code: 2, stdout: '', stderr: 'gatehouse users create: --account nope: no such account\n' });
    const badRole = await cli('users', 'create', '--email', 'a@example.com', '--password', 'correct horse', '--role', 'owner');
    expect(badRole.stderr).toBe('gatehouse users create: --role must be admin or member\n');
    const badPhone = await cli('users', 'create', '--email', 'a@example.com', '--password', 'correct horse', '--phone', '555-1234');
    expect(badPhone).toMatchObject({ code: 2, stderr: 'gatehouse users create: --phone 555-1234 is not an E.164 number (like +15551234567)\n' });
    await withGatehouse(async (_gatehouse, product) => expect(await product.findUserByEmail('a@example.com')).toBeUndefined());

    const shortPassword = await cli('users', 'create', '--email', 'a@example.com', '--password', 'short');
    expect(shortPassword).toMatchObject({ code: 1, stderr: 'gatehouse users create: The password must be 8 to 1024 characters.\n' });
    await json('users', 'create', '--email', 'a@example.com', '--password', 'correct horse');
    const duplicate = await cli('users', 'create', '--email', 'A@example.com', '--password', 'correct horse', '--json');
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toBe('gatehouse users create: A user with this e-mail exists.\n');
    expect(JSON.parse(duplicate.stdout)).toEqual({ error: { code: 'conflict', message: 'A user with this e-mail exists.' } });
  });

  it('users create refuses a phone number another user has (exit 1, one line) and creates no user', async () => {
    const ada = await json<{ userKey: string }>('users', 'create', '--email', 'ada@example.com', '--password', 'correct horse', '--phone', '+15551234567');
    const taken = await cli('users', 'create', '--email', 'eve@example.com', '--password', 'correct horse', '--phone', '+15559999999', '--phone', '+15551234567');
    expect(taken).toEqual({ code: 1, stdout: '', stderr: 'gatehouse users create: The phone number +15551234567 belongs to another user.\n' });
    const asJson = await cli('users', 'create', '--email', 'eve@example.com', '--password', 'correct horse', '--phone', '+15551234567', '--json');
    expect(asJson.code).toBe(1);
    expect(JSON.parse(asJson.stdout)).toEqual({ error: { code: 'conflict', message: 'The phone number +15551234567 belongs to another user.' } });
    await withGatehouse(async (_gatehouse, product) => {
      expect(await product.findUserByEmail('eve@example.com')).toBeUndefined();
      expect(await product.listPhoneNumbers(ada.userKey)).toEqual(['+15551234567']);
    });
  });

  it('clients create → {clientId, clientSecret, name, redirectUris, scopes, grantTypes}; list shows no secret', async () => {
    await json('users', 'create', '--email', 'dev@example.com', '--password', 'correct horse');
    const client = await json<{ clientId: string; clientSecret: string }>(
      'clients', 'create', '--name', 'My app', '--redirect-uri', 'https://app.example/cb', '--redirect-uri', 'http://127.0.0.1:8080/cb',
      '--scope', 'messaging.v1.send messaging.v1.read', '--owner', 'dev@example.com',
    );
    expect(client).toEqual({
      clientId: expect.stringMatching(/^[A-Za-z0-9]+$/),
      clientSecret: expect.stringMatching(/^[A-Za-z0-9]{43,}$/),
      name: 'My app',
      redirectUris: ['https://app.example/cb', 'http://127.0.0.1:8080/cb'],
      scopes: ['messaging.v1.send', 'messaging.v1.read'],
      grantTypes: ['authorization_code', 'refresh_token'],
    });
    const list = await json<{ clients: Array<Record<string, unknown>> }>('clients', 'list');
    expect(list.clients).toEqual([
      {
        clientId: client.clientId,
        name: 'My app',
        tokenEndpointAuthMethod: 'client_secret_basic',
        redirectUris: ['https://app.example/cb', 'http://127.0.0.1:8080/cb'],
        scopes: ['messaging.v1.send', 'messaging.v1.read'],
        grantTypes: ['authorization_code', 'refresh_token'],
        pkceRequired: false,
        ownerUserKey: expect.any(String),
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        registration: 'static',
      },
    ]);
    const text = await cli('clients', 'list');
    expect(text.stdout).toContain(`${client.clientId}  My app`);
    expect(text.stdout + list.clients.map((c) => JSON.stringify(c)).join('')).not.toContain(client.clientSecret);
    await withGatehouse(async (gatehouse) => {
      const authenticated = await gatehouse.authenticateClient({ clientId: client.clientId, clientSecret: client.clientSecret });
      expect(authenticated.name).toBe('My app');
    });
  });

  it('clients list marks a client that registered itself, and whether it was ever used', async () => {
    env.GATEHOUSE_REGISTRATION = 'open';
    const registered = await withGatehouse((gatehouse) =>
      gatehouse.registerDynamicClient({ metadata: { client_name: 'Agent', redirect_uris: ['http://127.0.0.1/cb'], token_endpoint_auth_method: 'none' }, initialAccessToken: undefined }),
    );
    const list = await json<{ clients: Array<Record<string, unknown>> }>('clients', 'list');
    expect(list.clients).toEqual([expect.objectContaining({ clientId: registered.client.clientId, name: 'Agent', registration: 'dynamic', firstUsedAt: null, pkceRequired: true })]);
    expect((await cli('clients', 'list')).stdout).toContain(`${registered.client.clientId}  Agent  (public, registered itself, never used)`);
    expect(JSON.stringify(list)).not.toContain(registered.information.registration_access_token as string);
  });

  it('clients create --public: no secret (clientSecret null), auth method none, and no secret to rotate', async () => {
    const client = await json<Record<string, unknown>>('clients', 'create', '--public', '--name', 'Phone app', '--redirect-uri', 'http://127.0.0.1/cb', '--scope', 'messaging.v1.read');
    expect(client).toEqual({
      clientId: expect.stringMatching(/^[A-Za-z0-9]+$/),
      clientSecret: null,
      name: 'Phone app',
      redirectUris: ['http://127.0.0.1/cb'],
      scopes: ['messaging.v1.read'],
      grantTypes: ['authorization_code', 'refresh_token'],
    });
    const list = await json<{ clients: Array<Record<string, unknown>> }>('clients', 'list');
    expect(list.clients[0]).toMatchObject({ clientId: client.clientId, tokenEndpointAuthMethod: 'none', pkceRequired: true });
    expect((await cli('clients', 'list')).stdout).toContain(`${client.clientId as string}  Phone app  (public)`);
    const text = await cli('clients', 'create', '--public', '--name', 'Other', '--redirect-uri', 'https://spa.example/cb', '--scope', 'messaging.v1.read');
    expect(text.stdout).toContain('client_secret: none (a public client');
    const rotate = await cli('clients', 'rotate-secret', client.clientId as string);
    expect(rotate).toMatchObject({ code: 1, stderr: 'gatehouse clients rotate-secret: A public client has no secret to rotate.\n' });
    await withGatehouse(async (gatehouse) => {
      expect((await gatehouse.authenticateClient({ clientId: client.clientId as string, clientSecret: null })).name).toBe('Phone app');
    });
  });

  it('clients create --grant-type, repeatable: client_credentials alone needs no redirect URI; bad combinations are refused', async () => {
    const machine = await json<Record<string, unknown>>('clients', 'create', '--name', 'Nightly job', '--grant-type', 'client_credentials', '--scope', 'messaging.v1.read');
    expect(machine).toMatchObject({ clientSecret: expect.stringMatching(/^[A-Za-z0-9]{43,}$/), redirectUris: [], grantTypes: ['client_credentials'] });
    const all = await json<Record<string, unknown>>(
      'clients', 'create', '--name', 'All', '--redirect-uri', 'https://a.example/cb', '--scope', 'messaging.v1.read',
      '--grant-type', 'client_credentials', '--grant-type', 'authorization_code', '--grant-type', 'refresh_token',
    );
    expect(all.grantTypes).toEqual(['authorization_code', 'refresh_token', 'client_credentials']);
    const unknown = await cli('clients', 'create', '--name', 'X', '--grant-type', 'password', '--scope', 'messaging.v1.read');
    expect(unknown).toMatchObject({ code: 2, stderr: 'gatehouse clients create: --grant-type password: one of authorization_code, refresh_token, client_credentials\n' });
    const publicMachine = await cli('clients', 'create', '--public', '--name', 'X', '--grant-type', 'client_credentials', '--scope', 'messaging.v1.read');
    expect(publicMachine.code).toBe(1);
    expect(publicMachine.stderr).toBe('gatehouse clients create: client_credentials is for confidential clients only: a public client has no secret to authenticate with.\n');
    const codeWithoutUri = await cli('clients', 'create', '--name', 'X', '--grant-type', 'authorization_code', '--scope', 'messaging.v1.read');
    expect(codeWithoutUri).toMatchObject({ code: 2, stderr: 'gatehouse clients create: --redirect-uri is required\n' });
    expect((await json<{ clients: unknown[] }>('clients', 'list')).clients).toHaveLength(2);
  });

  it('clients create refuses what the core refuses, with one line', async () => {
    const http = await cli('clients', 'create', '--name', 'X', '--redirect-uri', 'http://app.example/cb', '--scope', 'messaging.v1.send');
    expect(http).toMatchObject({ code: 1, stderr: 'gatehouse clients create: The redirect URI http://app.example/cb must use https (http is allowed on loopback only).\n' });
    const scope = await cli('clients', 'create', '--name', 'X', '--redirect-uri', 'https://app.example/cb', '--scope', 'orders.v9.read');
    expect(scope).toMatchObject({ code: 1, stderr: 'gatehouse clients create: The scope orders.v9.read is not in the catalogue.\n' });
    const owner = await cli('clients', 'create', '--name', 'X', '--redirect-uri', 'https://app.example/cb', '--scope', 'messaging.v1.send', '--owner', 'nobody@example.com');
    expect(owner).toMatchObject({ code: 2, stderr: 'gatehouse clients create: --owner nobody@example.com: no user with this e-mail\n' });
    const missing = await cli('clients', 'create', '--name', 'X', '--scope', 'messaging.v1.send');
    expect(missing).toMatchObject({ code: 2, stderr: 'gatehouse clients create: --redirect-uri is required\n' });
    expect(await json('clients', 'list')).toEqual({ clients: [] });
  });

  it('clients create --client-uri, --logo-uri, --policy-uri, --tos-uri, --first-party; set-links and set-first-party change them (docs/decisions/0155)', async () => {
    const links = { clientUri: 'https://app.example/', logoUri: 'https://cdn.app.example/logo.png', policyUri: 'https://app.example/privacy', tosUri: 'http://127.0.0.1:3000/terms' };
    const client = await json<Record<string, unknown>>(
      'clients', 'create', '--name', 'Messages', '--redirect-uri', 'https://app.example/cb', '--scope', 'messaging.v1.read', '--first-party',
      '--client-uri', links.clientUri, '--logo-uri', links.logoUri, '--policy-uri', links.policyUri, '--tos-uri', links.tosUri,
    );
    expect(client).toMatchObject({ ...links, firstParty: true });
    const clientId = client.clientId as string;
    expect((await json<{ clients: Array<Record<string, unknown>> }>('clients', 'list')).clients[0]).toMatchObject({ ...links, firstParty: true });
    expect((await cli('clients', 'list')).stdout).toContain(`${clientId}  Messages  (first-party)`);
    expect(await json('clients', 'set-links', clientId, '--logo-uri', '', '--client-uri', 'https://app.example/home')).toEqual({ clientId, clientUri: 'https://app.example/home', policyUri: links.policyUri, tosUri: links.tosUri, firstParty: true });
    expect(await json('clients', 'set-first-party', clientId, '--off')).toEqual({ clientId, firstParty: false });
    expect((await json<{ clients: Array<Record<string, unknown>> }>('clients', 'list')).clients[0]).not.toHaveProperty('firstParty');
    expect(await json('clients', 'set-first-party', clientId)).toEqual({ clientId, firstParty: true });
    const logo = await cli('clients', 'create', '--name', 'X', '--redirect-uri', 'https://x.example/cb', '--scope', 'messaging.v1.read', '--logo-uri', 'http://x.example/logo.png');
    expect(logo).toMatchObject({ code: 1, stderr: 'gatehouse clients create: The logo http://x.example/logo.png must use https.\n' });
    const home = await cli('clients', 'set-links', clientId, '--client-uri', 'javascript:alert(1)');
    expect(home).toMatchObject({ code: 1, stderr: 'gatehouse clients set-links: The home page javascript:alert(1) must use https (http is allowed on loopback only).\n' });
    expect((await json<{ clients: unknown[] }>('clients', 'list')).clients).toHaveLength(1);
  });

  it('clients create takes a scope of GATEHOUSE_SCOPES_FILE when the file is set, and refuses it otherwise', async () => {
    const args = ['clients', 'create', '--name', 'Orders app', '--redirect-uri', 'https://orders.example/cb', '--scope', 'orders.v1.read'];
    expect(await cli(...args)).toMatchObject({ code: 1, stderr: 'gatehouse clients create: The scope orders.v1.read is not in the catalogue.\n' });
    env.GATEHOUSE_SCOPES_FILE = join(dir, `scopes-${counter}.json`);
    writeFileSync(env.GATEHOUSE_SCOPES_FILE, JSON.stringify([{ scope: 'orders.v1.read', description: 'See your orders' }]));
    const client = await json<{ clientId: string; scopes: string[] }>(...args);
    expect(client.scopes).toEqual(['orders.v1.read']);
    await withGatehouse(async (gatehouse) => {
      expect((await gatehouse.listClients()).map((entry) => entry.scopes)).toEqual([['orders.v1.read']]);
      // After the four built-in scopes (OpenID Connect's come after the configured ones).
      expect(gatehouse.settings.scopes[4]).toEqual({ scope: 'orders.v1.read', description: 'See your orders' });
    });
  });

  it('stops on an unusable GATEHOUSE_SCOPES_FILE with one line naming the file', async () => {
    env.GATEHOUSE_SCOPES_FILE = join(dir, `scopes-${counter}.json`);
    writeFileSync(env.GATEHOUSE_SCOPES_FILE, '[{"scope": "orders", "description": "Orders"}]');
    expect(await cli('clients', 'list')).toEqual({
      code: 1,
      stdout: '',
      stderr: `gatehouse clients list: GATEHOUSE_SCOPES_FILE ${env.GATEHOUSE_SCOPES_FILE}: the scope "orders" is not of the form <area>.<version>.<resource>.<action> or <area>.<version>.<action> (such as orders.v1.read).\n`,
    });
  });

  it('clients create --resource-server-for marks a resource server of GATEHOUSE_RESOURCES_FILE; set-resource-server changes it', async () => {
    const mcp = 'https://mcp.example.com/mcp';
    env.GATEHOUSE_SCOPES_FILE = join(dir, `scopes-${counter}.json`);
    writeFileSync(env.GATEHOUSE_SCOPES_FILE, JSON.stringify([{ scope: 'orders.v1.read', description: 'See your orders' }]));
    const create = (...more: string[]) => ['clients', 'create', '--name', 'Orders MCP', '--grant-type', 'client_credentials', '--scope', 'orders.v1.read', ...more];
    // Without the resource configured, it is refused and nothing is created.
    expect(await cli(...create('--resource-server-for', mcp))).toMatchObject({ code: 1, stderr: `gatehouse clients create: ${mcp} is not a configured resource.\n` });
    env.GATEHOUSE_RESOURCES_FILE = join(dir, `resources-${counter}.json`);
    writeFileSync(env.GATEHOUSE_RESOURCES_FILE, JSON.stringify([{ resource: mcp, name: 'Orders MCP', scopes: ['orders.v1.read'] }]));
    const client = await json<Record<string, unknown>>(...create('--resource-server-for', 'HTTPS://MCP.example.com/mcp'));
    expect(client).toMatchObject({ name: 'Orders MCP', grantTypes: ['client_credentials'], resourceServerFor: [mcp] });
    expect((await json<{ clients: Array<Record<string, unknown>> }>('clients', 'list')).clients[0]).toMatchObject({ resourceServerFor: [mcp] });
    expect((await cli('clients', 'list')).stdout).toContain(`resource server of: ${mcp}`);
    const clientId = client.clientId as string;
    expect(await json('clients', 'set-resource-server', clientId)).toEqual({ clientId, resourceServerFor: [] });
    expect((await json<{ clients: Array<Record<string, unknown>> }>('clients', 'list')).clients[0]).not.toHaveProperty('resourceServerFor');
    expect(await json('clients', 'set-resource-server', clientId, '--resource-server-for', mcp)).toEqual({ clientId, resourceServerFor: [mcp] });
    expect(await cli('clients', 'set-resource-server', clientId, '--resource-server-for', 'https://other.example.com')).toMatchObject({ code: 1 });
    expect(await cli('clients', 'set-resource-server', 'nope')).toMatchObject({ code: 1, stderr: 'gatehouse clients set-resource-server: No such client.\n' });
    expect((await json<{ clients: Array<Record<string, unknown>> }>('clients', 'list')).clients).toEqual([expect.objectContaining({ clientId, resourceServerFor: [mcp] })]);
  });

  it('clients rotate-secret makes the old secret stop working; clients delete removes the client', async () => {
    const client = await json<{ clientId: string; clientSecret: string }>('clients', 'create', '--name', 'App', '--redirect-uri', 'https://app.example/cb', '--scope', 'messaging.v1.send');
    const rotated = await json<{ clientId: string; clientSecret: string }>('clients', 'rotate-secret', client.clientId);
    expect(rotated).toEqual({ clientId: client.clientId, clientSecret: expect.stringMatching(/^[A-Za-z0-9]{43,}$/) });
    expect(rotated.clientSecret).not.toBe(client.clientSecret);
    await withGatehouse(async (gatehouse) => {
      await expect(gatehouse.authenticateClient({ clientId: client.clientId, clientSecret: client.clientSecret })).rejects.toMatchObject({ code: 'invalid_client' });
      await expect(gatehouse.authenticateClient({ clientId: client.clientId, clientSecret: rotated.clientSecret })).resolves.toMatchObject({ clientId: client.clientId });
    });
    expect(await json('clients', 'delete', client.clientId)).toEqual({ clientId: client.clientId, deleted: true });
    expect(await json('clients', 'list')).toEqual({ clients: [] });
    const again = await cli('clients', 'delete', client.clientId);
    expect(again).toMatchObject({ code: 1, stderr: 'gatehouse clients delete: No such client.\n' });
    const noId = await cli('clients', 'rotate-secret');
    expect(noId).toMatchObject({ code: 2, stderr: 'gatehouse clients rotate-secret: expected CLIENT_ID (usage: gatehouse clients rotate-secret CLIENT_ID [--json])\n' });
  });

  it('clients create and set-openid carry the OpenID Connect metadata (docs/decisions/0136); clients list shows it', async () => {
    const created = await json<Record<string, unknown>>(
      'clients', 'create', '--name', 'Site', '--redirect-uri', 'https://site.example/cb', '--scope', 'openid profile',
      '--id-token-signed-response-alg', 'ES256', '--post-logout-redirect-uri', 'https://site.example/bye', '--post-logout-redirect-uri', 'https://site.example/again',
      '--default-max-age', '3600', '--require-auth-time',
    );
    expect(created).toMatchObject({ idTokenSignedResponseAlg: 'ES256', postLogoutRedirectUris: ['https://site.example/bye', 'https://site.example/again'], defaultMaxAge: 3600, requireAuthTime: true });
    const clientId = created.clientId as string;
    const listed = await json<{ clients: Array<Record<string, unknown>> }>('clients', 'list');
    expect(listed.clients[0]).toMatchObject({ idTokenSignedResponseAlg: 'ES256', postLogoutRedirectUris: ['https://site.example/bye', 'https://site.example/again'], defaultMaxAge: 3600, requireAuthTime: true });
    expect(await json('clients', 'set-openid', clientId, '--default-max-age', 'none', '--no-post-logout-redirect-uris')).toEqual({ clientId, idTokenSignedResponseAlg: 'ES256', requireAuthTime: true });
    expect(await json('clients', 'set-openid', clientId, '--id-token-signed-response-alg', 'RS256', '--no-require-auth-time', '--post-logout-redirect-uri', 'https://site.example/bye')).toEqual({
      clientId,
      idTokenSignedResponseAlg: 'RS256',
      postLogoutRedirectUris: ['https://site.example/bye'],
    });
    expect(await cli('clients', 'set-openid', clientId, '--post-logout-redirect-uri', 'http://site.example/bye')).toMatchObject({
      code: 1,
      stderr: 'gatehouse clients set-openid: The post-logout redirect URI http://site.example/bye must use https (http is allowed on loopback only).\n',
    });
    expect(await cli('clients', 'create', '--name', 'X', '--redirect-uri', 'https://x.example/cb', '--scope', 'openid', '--id-token-signed-response-alg', 'HS256')).toMatchObject({ code: 1, stderr: 'gatehouse clients create: The ID token algorithm must be RS256 or ES256.\n' });
    expect(await cli('clients', 'create', '--name', 'X', '--redirect-uri', 'https://x.example/cb', '--scope', 'openid', '--default-max-age', 'soon')).toMatchObject({ code: 2 });
    // A client without OpenID Connect metadata lists none of it.
    const plain = await json<{ clientId: string }>('clients', 'create', '--name', 'Plain', '--redirect-uri', 'https://p.example/cb', '--scope', 'messaging.v1.read');
    expect(Object.keys(plain)).toEqual(['clientId', 'clientSecret', 'name', 'redirectUris', 'scopes', 'grantTypes']);
  });

  it('keys rotate adds a signing key of each kind (ES256, and RS256 for ID tokens) and keeps the old ones published', async () => {
    type Rotated = { kid: string; keys: Array<{ kid: string; alg: string }> };
    const first = await json<Rotated>('keys', 'rotate');
    const second = await json<Rotated>('keys', 'rotate');
    expect(second.kid).not.toBe(first.kid);
    for (const rotated of [first, second]) {
      expect(rotated.keys.map((key) => key.alg).sort()).toEqual(['ES256', 'RS256']);
      expect(rotated.keys.find((key) => key.alg === 'ES256')?.kid).toBe(rotated.kid);
    }
    const kidsOf = (rotated: Rotated) => rotated.keys.map((key) => key.kid);
    await withGatehouse(async (gatehouse) => {
      const { keys } = await gatehouse.jwks();
      expect(keys.map((key) => key.kid).sort()).toEqual([...kidsOf(first), ...kidsOf(second)].sort());
    });
    const raw = await openSqliteStorage({ filename: env.GATEHOUSE_DB as string });
    const stored = await raw.repositories.signingKeys.list();
    await raw.close();
    // The first keys are retired (they no longer become signing keys), the second ones are active.
    expect(stored.filter((key) => key.retiredAt === null).map((key) => key.kid).sort()).toEqual(kidsOf(second).sort());
    expect(stored.filter((key) => key.retiredAt !== null).map((key) => key.kid).sort()).toEqual(kidsOf(first).sort());
  }, 60_000);

  it('keys rotate says when the new key starts signing: after the JWKS cache lifetime (docs/operations.md)', async () => {
    const before = Date.now();
    const rotated = await json<{ kid: string; signsFrom: string }>('keys', 'rotate');
    const signsFrom = Date.parse(rotated.signsFrom);
    expect(signsFrom - before).toBeGreaterThanOrEqual(310_000);
    expect(signsFrom - Date.now()).toBeLessThanOrEqual(310_000);

    const text = await cli('keys', 'rotate');
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      /^New signing key [A-Za-z0-9]+ \(with RS256 key [A-Za-z0-9]+ for ID tokens\)\. Running servers publish it within 5 s and sign with it from \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z \(in 310 s: the JWKS may be cached 300 s\); /,
    );
  });

  it('keys rotate on an empty signing-key table says it created the first key and retired none', async () => {
    const first = await cli('keys', 'rotate');
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(
      /^First signing key [A-Za-z0-9]+ \(with RS256 key [A-Za-z0-9]+ for ID tokens\) created; there was no previous key, so none was retired\. It signs at once: there is no other key to hand over from\.\n$/,
    );
    expect(first.stdout).not.toContain('previous key signs');
    // The next rotation has a key to retire, and says so as before.
    expect((await cli('keys', 'rotate')).stdout).toMatch(/^New signing key [\s\S]*; the previous key signs until then and stays in the JWKS /);
  }, 60_000);

  it('writes logs (audit events too) to stderr, never to stdout', async () => {
    const result = await cli('clients', 'create', '--name', 'App', '--redirect-uri', 'https://app.example/cb', '--scope', 'messaging.v1.send', '--json');
    const { clientSecret } = JSON.parse(result.stdout) as { clientSecret: string };
    const lines = result.stderr.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toContainEqual(expect.objectContaining({ audit: true, event: 'client.created', level: 'info' }));
    expect(result.stderr).not.toContain(clientSecret);
  });

  it('writes readable log lines to a terminal, JSON lines elsewhere or with GATEHOUSE_LOG_FORMAT=json', async () => {
    const run = async () => {
      let stderr = '';
      const terminal = { write: (text: string) => (stderr += text), isTTY: true };
      const code = await runCli(['keys', 'rotate', '--json'], { env, stdout: { write: () => undefined }, stderr: terminal });
      expect(code).toBe(0);
      return stderr;
    };
    // The head says it is an audit event, which one and when: the fields do not repeat it (issue 33).
    expect(await run()).toMatch(/^\d\d:\d\d:\d\d INFO {2}audit key\.rotated reason="new kid [^"]+"$/m);
    env.GATEHOUSE_LOG_FORMAT = 'json';
    expect(JSON.parse((await run()).trim().split('\n')[0] as string)).toMatchObject({ audit: true, event: 'key.rotated', msg: 'audit key.rotated' });
  });

  it('stores private signing keys encrypted with GATEHOUSE_KEY_SECRET, and a wrong secret is a clear error', async () => {
    env.GATEHOUSE_KEY_SECRET = 'an example key secret, 32+ characters long';
    // Both kinds (ES256, and RS256 for ID tokens) are stored encrypted; a refusal names one of them.
    const { keys } = await json<{ kid: string; keys: Array<{ kid: string }> }>('keys', 'rotate');
    const kids = keys.map((key) => key.kid);
    // The rows as stored (the storage itself decrypts, or refuses without the secret).
    const raw = new BetterSqlite3(env.GATEHOUSE_DB as string, { readonly: true });
    const rows = raw.prepare('select kid, private_jwk from signing_keys').all() as Array<{ kid: string; private_jwk: string }>;
    raw.close();
    const stored = rows.filter((row) => kids.includes(row.kid)).map((row) => ({ privateJwk: JSON.parse(row.private_jwk) as Record<string, unknown> }));
    expect(stored).toHaveLength(2);
    for (const key of stored) {
      expect(key.privateJwk).toMatchObject({ enc: 'gatehouse-aes-256-gcm-v1', ciphertext: expect.any(String) });
      expect(key.privateJwk).not.toHaveProperty('d');
    }
    const namesOneOf = (message: string) => kids.some((kid) => message.includes(` ${kid}`));

    env.GATEHOUSE_KEY_SECRET = 'a different secret, also 32+ characters';
    const wrong = await cli('keys', 'rotate');
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^gatehouse keys rotate: GATEHOUSE_KEY_SECRET does not decrypt signing key [A-Za-z0-9]+: it is not the secret the key was stored with\.\n$/);
    expect(namesOneOf(wrong.stderr)).toBe(true);
    delete env.GATEHOUSE_KEY_SECRET;
    const none = await cli('keys', 'rotate');
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/^gatehouse keys rotate: Signing key [A-Za-z0-9]+ is encrypted: set GATEHOUSE_KEY_SECRET to the secret it was stored with\.\n$/);
    expect(namesOneOf(none.stderr)).toBe(true);
  }, 60_000);

  it('answers bad usage with exit code 2 and one line (and one JSON object with --json)', async () => {
    expect(await cli()).toEqual({ code: 2, stdout: '', stderr: 'gatehouse: a command is needed; run gatehouse --help\n' });
    expect(await cli('frobnicate')).toEqual({ code: 2, stdout: '', stderr: 'gatehouse: unknown command "frobnicate"; run gatehouse --help\n' });
    expect((await cli('clients', 'frob')).stderr).toBe(
      'gatehouse: unknown command "clients frob"; try: clients create, clients list, clients show, clients update, clients set-resource-server, clients set-openid, clients set-links, clients set-first-party, clients rotate-secret, clients delete\n',
    );
    expect(await cli('accounts', 'create', '--nmae', 'X')).toEqual({ code: 2, stdout: '', stderr: "gatehouse: Unknown option '--nmae'\n" });
    expect(await cli('accounts', 'create')).toEqual({ code: 2, stdout: '', stderr: 'gatehouse accounts create: --name is required\n' });
    const withJson = await cli('accounts', 'create', '--json');
    expect(withJson.code).toBe(2);
    expect(JSON.parse(withJson.stdout)).toEqual({ error: { code: 'usage', message: '--name is required' } });
    expect(await cli('clients', 'list', 'extra')).toMatchObject({ code: 2, stderr: 'gatehouse clients list: unexpected argument "extra"\n' });
  });

  it('stops on a bad configuration value with one line naming the variable', async () => {
    env.GATEHOUSE_ISSUER = 'http://auth.example.com';
    expect(await cli('migrate')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'gatehouse migrate: GATEHOUSE_ISSUER must be https (http is allowed on loopback only) (got "http://auth.example.com").\n',
    });
  });

  it('serve (in-process) listens, answers, and resolves 0 on SIGTERM', async () => {
    env.HOST = '127.0.0.1';
    const config = loadConfig(env);
    // The configuration refuses PORT=0 (the issuer must be known in advance); here any free port will do.
    const server = await serveInProcess({ ...config, issuer: 'http://127.0.0.1' });
    const health = await fetch(`${server.origin}/healthz`);
    expect(health.status).toBe(200);
    expect(health.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(server.output.stderr).toContain('First run: demo data created.');
    expect(await server.stop()).toBe(0);
    const messages = server.output.stdout.trim().split('\n').map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(messages).toEqual(expect.arrayContaining(['listening', 'shutting down: finishing in-flight requests', 'stopped']));
    await expect(fetch(`${server.origin}/healthz`)).rejects.toThrow();
  });

  it('serve with a public (https) issuer seeds no demo data and prints no password unless GATEHOUSE_DEMO=true', async () => {
    const config = loadConfig({ ...env, HOST: '127.0.0.1', GATEHOUSE_ISSUER: 'https://auth.example.com' });
    expect(config.demo).toBe(false);
    const server = await serveInProcess(config);
    expect((await fetch(`${server.origin}/healthz`)).status).toBe(200);
    expect((await fetch(`${server.origin}/demo/callback?code=x`)).status).toBe(404);
    expect(await server.stop()).toBe(0);
    const { stderr } = server.output;
    expect(stderr).toContain('Gatehouse is serving on port');
    expect(stderr).not.toContain('demo');
    expect(stderr).not.toMatch(/password/i);
    await withGatehouse(async (gatehouse) => expect(await gatehouse.listClients()).toEqual([]));
  });

  it('serve refuses to start with a key secret that does not decrypt the stored key', async () => {
    env.GATEHOUSE_KEY_SECRET = 'the first secret, at least 32 characters';
    const { keys } = await json<{ keys: Array<{ kid: string }> }>('keys', 'rotate');
    env.GATEHOUSE_KEY_SECRET = 'the other secret, at least 32 characters';
    env.PORT = '39998';
    const result = await cli('serve');
    // The keys of one rotation (ES256, and RS256 for ID tokens) were made together: the refusal names one of them.
    const named = /signing key ([A-Za-z0-9]+):/.exec(result.stderr)?.[1];
    expect(keys.map((key) => key.kid)).toContain(named);
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `gatehouse serve: GATEHOUSE_KEY_SECRET does not decrypt signing key ${named}: it is not the secret the key was stored with.\n`,
    });
  }, 60_000);
});
