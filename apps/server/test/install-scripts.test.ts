import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../scripts/pack-all.mjs';

// docs/decisions/0176-install-scripts-allowed-by-name.md: npm 12 runs a dependency's install
// script only when the project's package.json `allowScripts` allows it, and better-sqlite3 is
// nothing without its script (the native addon). Every dependency of the lockfile that has an
// install script is decided here by name, and each project that installs better-sqlite3 allows it.

interface Manifest {
  dependencies?: Record<string, string>;
  allowScripts?: Record<string, boolean>;
}

interface Lockfile {
  packages: Record<string, { version?: string; hasInstallScript?: boolean }>;
}

function readJson<T>(path: string): T {
  return JSON.parse(readFileSync(join(REPO_ROOT, path), 'utf8')) as T;
}

/** `node_modules/a/node_modules/@scope/b` → `@scope/b`. */
function packageName(lockPath: string): string {
  return lockPath.slice(lockPath.lastIndexOf('node_modules/') + 'node_modules/'.length);
}

describe('install scripts (npm allowScripts)', () => {
  const root = readJson<Manifest>('package.json');

  it('decides every install script of the lockfile by name in the root package.json', () => {
    const lock = readJson<Lockfile>('package-lock.json');
    const withScripts = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && entry.hasInstallScript === true)
      .map(([path]) => packageName(path));
    expect(withScripts).toContain('better-sqlite3');
    const undecided = withScripts.filter((name) => typeof root.allowScripts?.[name] !== 'boolean');
    expect(undecided, 'add each to "allowScripts" in package.json (true only when the package needs its script)').toEqual([]);
  });

  it('allows the scripts the repository needs: better-sqlite3 (its native addon) and esbuild (its binary, for Vitest and tsx)', () => {
    expect(root.allowScripts?.['better-sqlite3']).toBe(true);
    expect(root.allowScripts?.esbuild).toBe(true);
  });

  it.each(['examples/orders-service', 'examples/mcp-server'])('%s allows better-sqlite3, which it installs', (example) => {
    const manifest = readJson<Manifest>(join(example, 'package.json'));
    expect(manifest.dependencies).toHaveProperty('better-sqlite3');
    expect(manifest.allowScripts).toEqual({ 'better-sqlite3': true });
  });

  it("tells an embedder of @gatehouse/storage-sqlite to allow better-sqlite3's script", () => {
    const readme = readFileSync(join(REPO_ROOT, 'packages/storage-sqlite/README.md'), 'utf8');
    expect(readme).toContain('npm install-scripts approve better-sqlite3');
    expect(readme).toContain('"allowScripts": { "better-sqlite3": true }');
  });
});
