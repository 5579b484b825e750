import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI_COMMANDS } from './commands/index.js';
import { runGatehouseCli } from './run.js';

const require = createRequire(import.meta.url);
/** The built packages, by file URL: the config file lives in a temporary directory without node_modules. */
const sqliteUrl = pathToFileURL(require.resolve('@gatehouse/storage-sqlite')).href;
const coreUrl = pathToFileURL(require.resolve('@gatehouse/core')).href;
const cliUrl = pathToFileURL(require.resolve('@gatehouse/cli')).href;

/** A host's config file: its SQLite database (Gatehouse's tables prefixed, on the host's connection) and its settings. */
function writeConfig(dir: string, name = 'gatehouse.config.mjs', body?: string): void {
  const config =
    body ??
    `import Database from ${JSON.stringify(pathToFileURL(require.resolve('better-sqlite3')).href)};
import { openSqliteStorage } from ${JSON.stringify(sqliteUrl)};
import { defineSettings } from ${JSON.stringify(coreUrl)};
import { defineConfig } from ${JSON.stringify(cliUrl)};
export default defineConfig({
  storage: () => openSqliteStorage({ database: new Database(${JSON.stringify(join(dir, 'host.db'))}) }),
  settings: defineSettings({ issuer: 'http://127.0.0.1:3000/auth', scopes: [{ scope: 'orders.v1.read', description: 'See your orders' }] }),
  describe: 'the orders database',
});
`;
  writeFileSync(join(dir, name), config);
}

describe('gatehouse (@gatehouse/cli) on a host’s config file', () => {
  let dir: string;
  let stdout: string;
  let stderr: string;
  const cli = async (...argv: string[]) => {
    stdout = '';
    stderr = '';
    const code = await runGatehouseCli(argv, { cwd: dir, stdout: { write: (text: string) => (stdout += text) }, stderr: { write: (text: string) => (stderr += text) } });
    return { code, stdout, stderr };
  };
  const json = async <T>(...argv: string[]): Promise<T> => {
    const { code, stdout: out, stderr: err } = await cli(...argv, '--json');
    if (code !== 0) throw new Error(`exit ${code}: ${err}`);
    return JSON.parse(out) as T;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gatehouse-cli-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('migrates on its own command only: status lists the pending migrations, other commands refuse until then', async () => {
    writeConfig(dir);
    const status = await json<{ pending: number; migrations: Array<{ name: string; executedAt: string | null }> }>('migrate', 'status');
    expect(status.pending).toBeGreaterThan(0);
    expect(status.migrations.every((migration) => migration.executedAt === null)).toBe(true);
    const refused = await cli('clients', 'list');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^gatehouse clients list: The database has \d+ pending migration\(s\): run gatehouse migrate first\.\n$/);
    expect(await cli('migrate')).toMatchObject({ code: 0, stdout: 'Database is up to date (the orders database).\n' });
    const after = await json<{ pending: number; migrations: Array<{ executedAt: string | null }> }>('migrate', 'status');
    expect(after.pending).toBe(0);
    expect(after.migrations.every((migration) => typeof migration.executedAt === 'string')).toBe(true);
  });

  it('creates, lists, shows, updates and deletes clients in the host’s database, checked by the host’s settings', async () => {
    writeConfig(dir);
    await cli('migrate');
    const created = await json<{ clientId: string; clientSecret: string }>('clients', 'create', '--name', 'Orders app', '--redirect-uri', 'https://app.example/callback', '--scope', 'orders.v1.read');
    expect(created.clientSecret).toMatch(/\S{20,}/);
    const listed = await json<{ clients: Array<Record<string, unknown>> }>('clients', 'list');
    expect(listed.clients).toEqual([expect.objectContaining({ clientId: created.clientId, name: 'Orders app', scopes: ['orders.v1.read'] })]);
    expect(JSON.stringify(listed)).not.toContain(created.clientSecret);
    expect(await json('clients', 'show', created.clientId)).toMatchObject({ clientId: created.clientId, redirectUris: ['https://app.example/callback'] });
    const updated = await json<Record<string, unknown>>('clients', 'update', created.clientId, '--name', 'Orders', '--redirect-uri', 'https://app.example/cb2', '--pkce-required');
    expect(updated).toMatchObject({ name: 'Orders', redirectUris: ['https://app.example/cb2'], scopes: ['orders.v1.read'], pkceRequired: true });
    // The host's rules: a scope its settings do not offer is refused, and nothing changes.
    const refused = await cli('clients', 'update', created.clientId, '--scope', 'messaging.v1.send');
    expect(refused.code).toBe(1);
    expect(await json('clients', 'show', created.clientId)).toMatchObject({ scopes: ['orders.v1.read'] });
    // Nothing to change is wrong usage, not a success that writes an audit event.
    expect(await cli('clients', 'update', created.clientId)).toMatchObject({ code: 2, stderr: 'gatehouse clients update: nothing to update: give at least one of --name, --redirect-uri, --scope, --grant-type, --pkce-required\n' });
    expect(await cli('clients', 'delete', created.clientId)).toMatchObject({ code: 0 });
    expect(await cli('clients', 'show', created.clientId)).toMatchObject({ code: 1, stderr: `gatehouse clients show: No such client.\n` });
    expect(await json('clients', 'list')).toEqual({ clients: [] });
  });

  it('rotates and lists signing keys, never a private part', async () => {
    writeConfig(dir);
    await cli('migrate');
    expect((await cli('keys', 'list')).stdout).toMatch(/^No signing keys yet/);
    const { kid } = await json<{ kid: string }>('keys', 'rotate');
    const { keys } = await json<{ keys: Array<{ kid: string; alg: string }> }>('keys', 'list');
    expect(keys).toEqual(expect.arrayContaining([{ kid, alg: 'ES256', kty: 'EC', use: 'sig' }]));
    expect(stdout).not.toMatch(/"d"/);
  });

  it('finds the config through --config, takes a function as the default export, and says what is wrong with a missing or bad one', async () => {
    const missing = await cli('clients', 'list');
    expect(missing).toMatchObject({ code: 1 });
    expect(missing.stderr).toMatch(/^gatehouse clients list: No gatehouse\.config\.js or gatehouse\.config\.mjs in .*: create one/);
    writeConfig(dir, 'other.mjs', `import { defineSettings } from ${JSON.stringify(coreUrl)};\nexport default async () => ({ storage: {}, settings: defineSettings({ issuer: 'http://127.0.0.1/auth' }) });\n`);
    expect((await cli('migrate', '--config', 'other.mjs')).stderr).toMatch(/must be a Gatehouse storage/);
    writeConfig(dir, 'no-settings.mjs', 'export default { storage: {} };\n');
    expect((await cli('migrate', '--config', 'no-settings.mjs')).stderr).toMatch(/settings is missing/);
    expect((await cli('migrate', '--config', 'nowhere.mjs')).stderr).toMatch(/--config nowhere\.mjs: no such file/);
  });

  it('answers wrong usage with exit code 2, and --help without touching a database', async () => {
    expect(await cli('clients', 'frobnicate')).toMatchObject({ code: 2, stderr: 'gatehouse: unknown command "clients frobnicate"; try: clients create, clients list, clients show, clients update, clients delete\n' });
    expect(await cli('clients', 'show')).toMatchObject({ code: 2 });
    expect(await cli('clients', 'create', '--nmae', 'x')).toMatchObject({ code: 2 });
    const help = await cli('--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('clients create --name N');
    expect(help.stdout).toContain('migrate status');
    // Each command's --help: its usage, every option, and examples (issue 33 point 8).
    for (const command of CLI_COMMANDS) {
      const { code, stdout } = await cli(...command.path, '--help');
      expect(code, command.path.join(' ')).toBe(0);
      expect(stdout).toContain(`Usage: ${command.usage}`);
      for (const option of [...Object.keys(command.options), 'json']) expect(stdout, `${command.path.join(' ')} --${option}`).toContain(`--${option}`);
      expect(stdout).toMatch(/\nExamples:\n {2}gatehouse /);
    }
    writeConfig(dir);
    await cli('migrate');
    expect(await cli('clients', 'create', '--name', 'x', '--redirect-uri', 'https://a.example/cb', '--scope', 'orders.v1.read', '--grant-type', 'password')).toMatchObject({ code: 2 });
  });
});
