import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sha256, type Gatehouse } from '@gatehouse/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { createContainer, resolve, TOKENS } from '../container.js';
import { COMMANDS } from './commands.js';
import { OPERATOR_COMMANDS } from './operator-commands.js';
import { runCli } from './run.js';

// The operator's commands (issue 33, point 8): users, sessions, grants, health, and every command's --help.

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-operator-cli-'));
const env = { GATEHOUSE_DB: join(dir, 'cli.db'), GATEHOUSE_LOG_LEVEL: 'silent' };
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { env, stdout: { write: (text: string) => (stdout += text) }, stderr: { write: (text: string) => (stderr += text) } });
  return { code, stdout, stderr };
}

async function json<T = Record<string, unknown>>(...argv: string[]): Promise<T> {
  const result = await cli(...argv, '--json');
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as T;
}

/** Works on the same database file as the CLI, as a running server would. */
async function withGatehouse<T>(use: (gatehouse: Gatehouse) => Promise<T>): Promise<T> {
  const container = await createContainer(loadConfig(env), { logDestination: { write: () => undefined } });
  try {
    return await use(resolve(container, TOKENS.gatehouse));
  } finally {
    await resolve(container, TOKENS.storage).close();
  }
}

/** A signed-in session of `email` and a grant under it for `clientId`: the access token. */
async function grantUnderSession(gatehouse: Gatehouse, email: string, clientId: string, redirectUri: string): Promise<{ sessionId: string; accessToken: string }> {
  const { sessionToken, user } = await gatehouse.signIn({ email, password: 'correct horse battery' });
  const sessionId = sha256(sessionToken);
  const check = await gatehouse.checkAuthorizationRequest({ client_id: clientId, response_type: 'code', redirect_uri: redirectUri, scope: 'messaging.v1.read' });
  if (check.kind !== 'valid') throw check.error;
  const { redirectTo } = await gatehouse.approveAuthorization({ request: check.request, userKey: user.userKey, sessionId });
  const client = (await gatehouse.listClients()).find((candidate) => candidate.clientId === clientId)!;
  const tokens = await gatehouse.exchangeCode({ client, code: new URL(redirectTo).searchParams.get('code') as string, redirectUri, codeVerifier: undefined });
  return { sessionId, accessToken: tokens.access_token };
}

let clientId: string;
let adaKey: string;
const REDIRECT = 'https://app.example/callback';

beforeAll(async () => {
  for (const email of ['carol@example.com', 'ada@example.com', 'bob@example.com']) {
    const created = await json<{ userKey: string }>('users', 'create', '--email', email, '--password', 'correct horse battery', '--given-name', 'Given');
    if (email === 'ada@example.com') adaKey = created.userKey;
  }
  clientId = (await json<{ clientId: string }>('clients', 'create', '--name', 'App', '--redirect-uri', REDIRECT, '--scope', 'messaging.v1.read')).clientId;
});

describe('gatehouse users list|show', () => {
  it('lists users by e-mail a page at a time, never a password hash', async () => {
    const all = await json<{ users: Array<{ email: string }> }>('users', 'list');
    expect(all.users.map((user) => user.email)).toEqual(['ada@example.com', 'bob@example.com', 'carol@example.com']);
    expect(JSON.stringify(all)).not.toMatch(/password|argon2|scrypt/i);
    expect((await json<{ users: Array<{ email: string }> }>('users', 'list', '--limit', '1', '--offset', '1')).users.map((user) => user.email)).toEqual(['bob@example.com']);
    expect((await cli('users', 'list')).stdout).toMatch(/^\S+ {2}ada@example\.com {2}Given\n/);
    expect(await cli('users', 'list', '--limit', '0')).toMatchObject({ code: 2, stderr: 'gatehouse users list: --limit must be a whole number from 1 to 1000\n' });
  });

  it('shows a user with live sessions and grants', async () => {
    const { sessionId } = await withGatehouse((gatehouse) => grantUnderSession(gatehouse, 'ada@example.com', clientId, REDIRECT));
    const shown = await json('users', 'show', '--email', 'ADA@example.com');
    expect(shown).toMatchObject({ userKey: adaKey, email: 'ada@example.com', activeSessions: 1, activeGrants: 1, accounts: [], phoneNumbers: [] });
    expect((await cli('users', 'show', '--email', 'nobody@example.com'))).toMatchObject({ code: 1, stderr: 'gatehouse users show: --email nobody@example.com: no user with this e-mail\n' });
    await json('sessions', 'end', '--session', sessionId);
  });
});

describe('gatehouse sessions list|end and grants list|revoke', () => {
  it('ends one session with its grant, then every session of a user', async () => {
    const first = await withGatehouse((gatehouse) => grantUnderSession(gatehouse, 'bob@example.com', clientId, REDIRECT));
    const second = await withGatehouse((gatehouse) => grantUnderSession(gatehouse, 'bob@example.com', clientId, REDIRECT));
    const listed = await json<{ sessions: Array<{ sessionId: string }> }>('sessions', 'list', '--email', 'bob@example.com');
    expect(listed.sessions.map((session) => session.sessionId).sort()).toEqual([first.sessionId, second.sessionId].sort());

    expect(await json('sessions', 'end', '--session', first.sessionId)).toMatchObject({ endedSessions: 1, revokedGrants: 1 });
    await withGatehouse(async (gatehouse) => {
      await expect(gatehouse.verifyAccessToken(first.accessToken)).rejects.toMatchObject({ code: 'invalid_token' });
      expect((await gatehouse.verifyAccessToken(second.accessToken)).clientId).toBe(clientId);
    });
    expect(await cli('sessions', 'end', '--session', first.sessionId)).toMatchObject({ code: 1, stderr: 'gatehouse sessions end: No such live session.\n' });
    expect(await json('sessions', 'end', '--email', 'bob@example.com')).toMatchObject({ endedSessions: 1, revokedGrants: 1 });
    expect((await json<{ sessions: unknown[] }>('sessions', 'list', '--email', 'bob@example.com')).sessions).toEqual([]);
    expect(await cli('sessions', 'end')).toMatchObject({ code: 2, stderr: 'gatehouse sessions end: give --session or --email (one of them)\n' });
    // A session id is base64url: one in 64 begins with "-", and is still the option's value.
    expect(await cli('sessions', 'end', '--session', '-Xk2AbCd')).toMatchObject({ code: 1, stderr: 'gatehouse sessions end: No such live session.\n' });
  });

  it('lists grants by user or client and revokes one, a user\'s for a client, or a client\'s', async () => {
    const a = await withGatehouse((gatehouse) => grantUnderSession(gatehouse, 'carol@example.com', clientId, REDIRECT));
    const b = await withGatehouse((gatehouse) => grantUnderSession(gatehouse, 'carol@example.com', clientId, REDIRECT));
    const c = await withGatehouse((gatehouse) => grantUnderSession(gatehouse, 'ada@example.com', clientId, REDIRECT));
    const byClient = await json<{ grants: Array<{ grantId: string; userKey: string; sessionId: string }> }>('grants', 'list', '--client', clientId);
    expect(byClient.grants).toHaveLength(3);
    const carols = await json<{ grants: Array<{ grantId: string; sessionId: string }> }>('grants', 'list', '--email', 'carol@example.com');
    expect(carols.grants.map((grant) => grant.sessionId).sort()).toEqual([a.sessionId, b.sessionId].sort());

    const one = carols.grants.find((grant) => grant.sessionId === a.sessionId)!;
    expect(await json('grants', 'revoke', '--grant', one.grantId)).toEqual({ revokedGrantIds: [one.grantId] });
    expect((await json<{ revokedGrantIds: string[] }>('grants', 'revoke', '--email', 'carol@example.com', '--client', clientId)).revokedGrantIds).toHaveLength(1);
    expect((await json<{ revokedGrantIds: string[] }>('grants', 'revoke', '--client', clientId)).revokedGrantIds).toHaveLength(1);
    await withGatehouse(async (gatehouse) => {
      for (const token of [a, b, c]) await expect(gatehouse.verifyAccessToken(token.accessToken)).rejects.toMatchObject({ code: 'invalid_token' });
    });
    expect((await cli('grants', 'list', '--client', clientId)).stdout).toBe('No live grants.\n');
    expect(await cli('grants', 'revoke', '--grant', one.grantId)).toMatchObject({ code: 1, stderr: 'gatehouse grants revoke: No such live grant.\n' });
    expect(await cli('grants', 'revoke', '--client', 'no-such-client')).toMatchObject({ code: 1, stderr: 'gatehouse grants revoke: --client no-such-client: no such client\n' });
    expect(await cli('grants', 'list')).toMatchObject({ code: 2, stderr: 'gatehouse grants list: give --email or --client (one of them)\n' });
  });
});

describe('gatehouse users disable|enable', () => {
  it('disables a user (sign-in refused, session ended, tokens refused) and enables them again', async () => {
    await json('users', 'create', '--email', 'dan@example.com', '--password', 'correct horse battery');
    const { accessToken } = await withGatehouse((gatehouse) => grantUnderSession(gatehouse, 'dan@example.com', clientId, REDIRECT));
    expect(await json('users', 'disable', '--email', 'dan@example.com')).toMatchObject({ disabled: true, endedSessions: 1, revokedGrants: 1 });
    expect((await cli('users', 'list')).stdout).toMatch(/ dan@example\.com {2}\(disabled\)\n/);
    expect((await json('users', 'show', '--email', 'dan@example.com')).disabledAt).toEqual(expect.any(String));
    await withGatehouse(async (gatehouse) => {
      await expect(gatehouse.verifyAccessToken(accessToken)).rejects.toMatchObject({ code: 'invalid_token' });
      await expect(gatehouse.signIn({ email: 'dan@example.com', password: 'correct horse battery' })).rejects.toMatchObject({ kind: 'unauthenticated' });
    });
    expect(await json('users', 'enable', '--email', 'dan@example.com')).toMatchObject({ disabled: false });
    await withGatehouse(async (gatehouse) => expect((await gatehouse.signIn({ email: 'dan@example.com', password: 'correct horse battery' })).user.email).toBe('dan@example.com'));
    expect(await cli('users', 'disable')).toMatchObject({ code: 2, stderr: 'gatehouse users disable: --email is required\n' });
  });
});

describe('gatehouse clients show|update and keys list (the commands of @gatehouse/cli, run by this CLI)', () => {
  it('shows a client, changes what is given and keeps the rest, and lists the published keys', async () => {
    expect(await json('clients', 'show', clientId)).toMatchObject({ clientId, redirectUris: [REDIRECT] });
    expect(await json('clients', 'update', clientId, '--name', 'Renamed app')).toMatchObject({ clientId, name: 'Renamed app', redirectUris: [REDIRECT] });
    expect((await cli('clients', 'show', 'no-such-client')).stderr).toBe('gatehouse clients show: No such client.\n');
    await json('keys', 'rotate');
    const { keys } = await json<{ keys: Array<{ kid: string; alg: string }> }>('keys', 'list');
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.every((key) => typeof key.kid === 'string' && ['ES256', 'RS256'].includes(key.alg))).toBe(true);
  });
});

describe('gatehouse users delete', () => {
  it('asks for --yes, refuses a user who owns clients unless --with-clients, then deletes the user and stops their tokens', async () => {
    await json('users', 'create', '--email', 'erin@example.com', '--password', 'correct horse battery');
    const { accessToken } = await withGatehouse((gatehouse) => grantUnderSession(gatehouse, 'erin@example.com', clientId, REDIRECT));
    const erinKey = (await json<{ userKey: string }>('users', 'show', '--email', 'erin@example.com')).userKey;
    const owned = await withGatehouse((gatehouse) => gatehouse.registerClient({ name: "Erin's app", redirectUris: [REDIRECT], scopes: ['messaging.v1.read'], ownerUserKey: erinKey }));

    const unsure = await cli('users', 'delete', '--email', 'erin@example.com');
    expect(unsure.code).toBe(2);
    expect(unsure.stderr).toMatch(/^gatehouse users delete: this deletes erin@example\.com \(userKey [^)]+\) for good, .*; add --yes/);
    expect((await cli('users', 'delete', '--email', 'erin@example.com', '--yes')).stderr).toBe(`gatehouse users delete: The user owns 1 client(s): ${owned.client.clientId}. Delete them first, or delete them with the user.\n`);
    await withGatehouse(async (gatehouse) => expect((await gatehouse.verifyAccessToken(accessToken)).userKey).toBe(erinKey));

    expect(await json('users', 'delete', '--email', 'erin@example.com', '--with-clients', '--yes')).toMatchObject({ userKey: erinKey, deleted: true, sessions: 1, grants: 1, consents: 1, clientIds: [owned.client.clientId] });
    await withGatehouse(async (gatehouse) => {
      await expect(gatehouse.verifyAccessToken(accessToken)).rejects.toMatchObject({ code: 'invalid_token' });
      await expect(gatehouse.signIn({ email: 'erin@example.com', password: 'correct horse battery' })).rejects.toMatchObject({ kind: 'unauthenticated' });
      expect((await gatehouse.listClients()).some((client) => client.clientId === owned.client.clientId)).toBe(false);
    });
    expect(await cli('users', 'delete', '--email', 'erin@example.com', '--yes')).toMatchObject({ code: 1, stderr: 'gatehouse users delete: --email erin@example.com: no user with this e-mail\n' });
    expect((await cli('users', 'delete', '--help')).stdout).toContain('gatehouse users delete --email mallory@example.com --yes');
  });
});

describe('what does not exist', () => {
  // docs/operations.md, "Command line for operators": no such user, client, session or grant is not_found, exit code 1.
  const missing: ReadonlyArray<readonly string[]> = [
    ['users', 'show', '--email', 'nobody@example.com'],
    ['users', 'set-password', '--email', 'nobody@example.com', '--password', 'long enough'],
    ['users', 'disable', '--email', 'nobody@example.com'],
    ['users', 'enable', '--email', 'nobody@example.com'],
    ['users', 'delete', '--email', 'nobody@example.com', '--yes'],
    ['sessions', 'list', '--email', 'nobody@example.com'],
    ['sessions', 'end', '--email', 'nobody@example.com'],
    ['sessions', 'end', '--session', 'no-such-session'],
    ['grants', 'list', '--email', 'nobody@example.com'],
    ['grants', 'list', '--client', 'no-such-client'],
    ['grants', 'revoke', '--email', 'nobody@example.com'],
    ['grants', 'revoke', '--client', 'no-such-client'],
    ['grants', 'revoke', '--grant', 'no-such-grant'],
    ['clients', 'show', 'no-such-client'],
    ['clients', 'update', 'no-such-client', '--name', 'X'],
    ['clients', 'set-resource-server', 'no-such-client'],
    ['clients', 'set-openid', 'no-such-client', '--require-auth-time'],
    ['clients', 'set-links', 'no-such-client', '--client-uri', 'https://app.example'],
    ['clients', 'set-first-party', 'no-such-client'],
    ['clients', 'rotate-secret', 'no-such-client'],
    ['clients', 'delete', 'no-such-client'],
  ];

  it.each(missing.map((argv) => [argv.join(' '), argv] as const))('gatehouse %s: not_found, exit code 1, for users as for clients', async (_name, argv) => {
    const result = await cli(...argv, '--json');
    expect(result.code, result.stderr).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ error: { code: 'not_found' } });
  });
});

describe('gatehouse clients show', () => {
  it('prints the owner: the user key its JSON gives as ownerUserKey, or none', async () => {
    const shown = await cli('clients', 'show', clientId);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(new RegExp(`^${clientId} .*\n {2}owner: none\n {2}redirect URIs: `));
    const owned = await withGatehouse((gatehouse) => gatehouse.registerClient({ name: "Ada's app", redirectUris: [REDIRECT], scopes: ['messaging.v1.read'], ownerUserKey: adaKey }));
    const ownedId = owned.client.clientId;
    expect(await json('clients', 'show', ownedId)).toMatchObject({ ownerUserKey: adaKey });
    expect((await cli('clients', 'show', ownedId)).stdout).toMatch(new RegExp(`\n {2}owner: ${adaKey}\n`));
    await json('clients', 'delete', ownedId);
  });
});

describe('--limit', () => {
  // Every command that takes it, found in the command table: one range, one message.
  const limited = [...COMMANDS, ...OPERATOR_COMMANDS].filter((command) => 'limit' in command.options);

  it.each(limited.map((command) => [command.path.join(' '), command] as const))('gatehouse %s --limit takes 1 to 1000, and says so the same way for every wrong value', async (_name, command) => {
    for (const wrong of ['0', '1001', 'ten', '-1', '2.5']) {
      expect(await cli(...command.path, '--limit', wrong)).toMatchObject({ code: 2, stderr: `gatehouse ${command.path.join(' ')}: --limit must be a whole number from 1 to 1000\n` });
    }
    for (const right of ['1', '1000']) expect((await cli(...command.path, '--limit', right)).code).toBe(0);
  });

  it('is taken by users list at least', () => {
    expect(limited.map((command) => command.path.join(' '))).toContain('users list');
  });
});

describe('gatehouse health', () => {
  let server: Server;
  let ready = true;
  let origin: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      res.writeHead(ready ? 200 : 503, { 'Content-Type': 'application/json' }).end(JSON.stringify({ status: ready ? 'ready' : 'unavailable' }));
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((done) => server.close(done)));

  it('exits 0 when the server is ready, 1 when it is not or cannot be reached, and opens no database', async () => {
    const envWithoutDb = { GATEHOUSE_DB: join(dir, 'never-created', 'health.db') };
    const run = async (...argv: string[]) => {
      let stdout = '';
      let stderr = '';
      const code = await runCli(argv, { env: { ...envWithoutDb, HOST: '127.0.0.1', PORT: new URL(origin).port }, stdout: { write: (text: string) => (stdout += text) }, stderr: { write: (text: string) => (stderr += text) } });
      return { code, stdout, stderr };
    };
    expect(await run('health')).toEqual({ code: 0, stdout: `${origin}/readyz: ready\n`, stderr: '' });
    ready = false;
    expect(await run('health', '--json')).toMatchObject({ code: 1, stderr: `gatehouse health: ${origin}/readyz: not ready (unavailable)\n` });
    ready = true;
    const closed = createServer();
    await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((done) => closed.close(done));
    expect(await run('health', '--url', `http://127.0.0.1:${closedPort}/readyz`)).toMatchObject({ code: 1, stderr: `gatehouse health: http://127.0.0.1:${closedPort}/readyz: ECONNREFUSED\n` });
    expect(await run('health', '--url', 'ftp://example.com')).toMatchObject({ code: 2 });
    // A port browsers (and fetch) refuse to talk to, on which a server may still run.
    const blocked = createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"status":"ready"}'));
    let blockedPort: number | undefined;
    for (const port of [6000, 6665, 6666, 6667, 6668, 6669, 6697, 10080]) {
      const bound = await new Promise<boolean>((done) => {
        blocked.once('error', () => done(false));
        blocked.listen(port, '127.0.0.1', () => done(true));
      });
      if (bound) {
        blockedPort = port;
        break;
      }
    }
    expect(blockedPort, 'one of the ports fetch refuses is free').toBeDefined();
    try {
      expect(await run('health', '--url', `http://127.0.0.1:${blockedPort}/readyz`)).toEqual({ code: 0, stdout: `http://127.0.0.1:${blockedPort}/readyz: ready\n`, stderr: '' });
    } finally {
      await new Promise((done) => blocked.close(done));
    }
    const { existsSync } = await import('node:fs');
    expect(existsSync(join(dir, 'never-created'))).toBe(false);
  });
});

describe('--help of each command', () => {
  // Every command, those of @gatehouse/cli (clients, keys, migrate) included.
  const documented = [...COMMANDS, ...OPERATOR_COMMANDS];

  it.each(documented.map((command) => [command.path.join(' '), command] as const))('gatehouse %s --help lists every option, with examples', async (_name, command) => {
    const result = await cli(...command.path, '--help');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Usage: ${command.usage}`);
    for (const option of [...Object.keys(command.options), 'json']) expect(result.stdout).toContain(`--${option}`);
    expect(result.stdout).toMatch(/\nExamples:\n {2}gatehouse /);
  });

  it('gatehouse serve --help says what it does, with examples', async () => {
    expect((await cli('serve', '--help')).stdout).toMatch(/^Usage: gatehouse serve[^\n]*\n\nMigrates[\s\S]*--workers N\|auto[\s\S]*\nExamples:\n {2}PORT=8080 gatehouse serve/);
  });
});
