import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect } from 'vitest';
import { PUBLISHED_PACKAGES, REPO_ROOT, type PackedPackage } from '../../../../scripts/pack-all.mjs';

// The examples under examples/ tested as a user runs them: the published packages, as `npm pack`
// makes them, installed into a copy of the example in a temporary directory — never the workspace
// sources.
//
// How the install stays fast and honest. `npm install` of the tarballs, with every other package
// of the example at the version the workspace itself installed (so it comes from the npm cache,
// `--prefer-offline`), takes seconds with `--ignore-scripts`. better-sqlite3's install script
// would download a prebuilt binary (impossible here: only the npm registry is reachable) and then
// compile SQLite from source: 2 min 25 s measured on this machine. So the scripts are skipped and
// the native addon the workspace already built for the same better-sqlite3 version and the same
// Node.js is copied into the installed package — the file `npm rebuild better-sqlite3` would
// make. When the versions differ, the test runs that rebuild instead (slow, but still correct).

const ADDON = 'build/Release/better_sqlite3.node';

interface ExampleManifest {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  scripts: Record<string, string>;
}

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment of a child npm or node: the user's npm configuration, none of this npm run's own variables. */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name) && name !== 'NODE_OPTIONS' && !name.startsWith('VITEST')));
  return { ...env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false', ...extra };
}

export function run(command: string, args: string[], options: { cwd: string; timeoutMs: number; env?: Record<string, string> }): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: options.cwd, env: childEnv(options.env), timeout: options.timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

export async function succeed(command: string, args: string[], options: { cwd: string; timeoutMs: number; env?: Record<string, string> }): Promise<string> {
  const result = await run(command, args, options);
  if (result.code !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.code}:\n${result.stderr}\n${result.stdout}`);
  return result.stdout;
}

/** `^x.y.z` admits `version` (npm's caret: same major, or same minor below 1.0, and not older). */
export function caretAdmits(range: string, version: string): boolean {
  const wanted = /^\^(\d+)\.(\d+)\.(\d+)$/.exec(range)?.slice(1).map(Number);
  const have = /^(\d+)\.(\d+)\.(\d+)$/.exec(version)?.slice(1).map(Number);
  if (!wanted || !have) return false;
  const [wMajor, wMinor, wPatch] = wanted as [number, number, number];
  const [hMajor, hMinor, hPatch] = have as [number, number, number];
  if (hMajor !== wMajor || (wMajor === 0 && hMinor !== wMinor)) return false;
  return hMinor > wMinor || (hMinor === wMinor && hPatch >= wPatch);
}

export function versionOf(packageDir: string): string {
  return (JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string }).version;
}

/** Fails unless every published package is built: the tests pack dist/ as it is (CI builds first). */
export function expectBuilt(): void {
  for (const workspace of PUBLISHED_PACKAGES) {
    if (!existsSync(join(REPO_ROOT, workspace, 'dist/index.js'))) throw new Error(`${workspace} is not built: run npm run build first`);
  }
}

/**
 * Copies `examples/<name>` into `temp` as a user would clone it (no node_modules, no database, no
 * lockfile), points its Gatehouse dependencies at the tarballs of `packed` (checking it names the
 * very version packed) and its other packages at the workspace's versions (checking its ranges
 * admit them), installs, and puts better-sqlite3's native addon in place. Returns the copy's
 * directory and how long the install took.
 */
export async function installExample(name: string, temp: string, packed: readonly PackedPackage[]): Promise<{ app: string; npmInstallMs: number }> {
  const source = join(REPO_ROOT, 'examples', name);
  const app = join(temp, name);
  cpSync(source, app, { recursive: true, filter: (path) => !/(^|\/)(node_modules|data)(\/|$)|\.db(-wal|-shm)?$|package-lock\.json$/.test(relative(source, path)) });
  const manifestPath = join(app, 'package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as ExampleManifest;
  const pinned = { dependencies: { ...manifest.dependencies }, devDependencies: { ...manifest.devDependencies } };
  for (const field of ['dependencies', 'devDependencies'] as const) {
    for (const [dependency, range] of Object.entries(manifest[field])) {
      const tarball = packed.find((pkg) => pkg.name === dependency);
      if (tarball) {
        expect(range, `examples/${name} → ${dependency}`).toBe(tarball.version);
        pinned[field][dependency] = `file:${tarball.tarball}`;
        continue;
      }
      const version = versionOf(join(REPO_ROOT, 'node_modules', dependency));
      expect(caretAdmits(range, version), `examples/${name} wants ${dependency}@${range}, the workspace has ${version}`).toBe(true);
      pinned[field][dependency] = version;
    }
  }
  // The Gatehouse packages those depend on (storage-kysely under storage-sqlite) come from their
  // tarballs too, so that npm does not look for them on the registry.
  for (const named of packed.filter((pkg) => pkg.name in manifest.dependencies)) {
    const needs = (JSON.parse(readFileSync(join(named.unpacked, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> }).dependencies ?? {};
    for (const pkg of packed) if (pkg.name in needs && !(pkg.name in pinned.dependencies)) pinned.dependencies[pkg.name] = `file:${pkg.tarball}`;
  }
  writeFileSync(manifestPath, `${JSON.stringify({ ...manifest, ...pinned }, null, 2)}\n`);

  const started = Date.now();
  await succeed('npm', ['install', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: app, timeoutMs: 180_000 });
  const npmInstallMs = Date.now() - started;

  const installedSqlite = join(app, 'node_modules/better-sqlite3');
  const workspaceSqlite = join(REPO_ROOT, 'node_modules/better-sqlite3');
  if (versionOf(installedSqlite) === versionOf(workspaceSqlite) && existsSync(join(workspaceSqlite, ADDON))) {
    mkdirSync(join(installedSqlite, 'build/Release'), { recursive: true });
    copyFileSync(join(workspaceSqlite, ADDON), join(installedSqlite, ADDON));
  } else {
    await succeed('npm', ['rebuild', 'better-sqlite3'], { cwd: app, timeoutMs: 600_000 });
  }
  return { app, npmInstallMs };
}

export interface ExampleServer {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | string | null>;
}

/** The example's `node server.js` as a child process, resolved once its output says `ready`. */
export function startExampleServer(app: string, env: Record<string, string>, ready: string): Promise<ExampleServer> {
  const child = spawn(process.execPath, ['server.js'], { cwd: app, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise<number | string | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not listen within 60 s:\n${output}`)), 60_000);
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      if (output.includes(ready)) {
        clearTimeout(timer);
        resolve({ child, output: () => output, exited });
      }
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => void (output += chunk));
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code}) before listening:\n${output}`));
    });
  });
}

/** Stops a server that is still running (SIGKILL), for afterAll. */
export async function killExampleServer(server: ExampleServer | undefined): Promise<void> {
  if (!server || server.child.exitCode !== null || server.child.signalCode !== null) return;
  server.child.kill('SIGKILL');
  await server.exited;
}
