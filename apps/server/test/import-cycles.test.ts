import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { checkImportCycles, findCycles } from '../../../scripts/check-import-cycles.mjs';

const SCRIPT = resolve(dirname(fileURLToPath(import.meta.url)), '../../../scripts/check-import-cycles.mjs');

let fixture: string | undefined;

/** A folder of TypeScript files, written from `files` (name → text). */
function writeFixture(files: Record<string, string>): string {
  fixture = mkdtempSync(join(tmpdir(), 'gh-cycles-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(fixture, name)), { recursive: true });
    writeFileSync(join(fixture, name), text);
  }
  return fixture;
}

afterEach(() => {
  if (fixture) rmSync(fixture, { recursive: true, force: true });
  fixture = undefined;
});

describe('the import cycle check', () => {
  it('finds a circle of type-only imports through .js specifiers', () => {
    const root = writeFixture({
      'src/deps.ts': "import type { Cache } from './tokens/cache.js';\nexport interface Deps { cache: Cache }\n",
      'src/tokens/cache.ts': "import type { Claims } from './token.js';\nexport interface Cache { get(): Claims }\n",
      'src/tokens/token.ts': "import type { Deps } from '../deps.js';\nexport interface Claims { deps: Deps }\n",
      'src/leaf.ts': "import type { Deps } from './deps.js';\nexport type Leaf = Deps;\n",
    });
    expect(checkImportCycles([join(root, 'src')], root)).toEqual([['src/deps.ts', 'src/tokens/cache.ts', 'src/tokens/token.ts']]);
  });

  it('finds circles through re-exports and dynamic imports, and a file importing itself', () => {
    const root = writeFixture({
      'src/index.ts': "export { b } from './b.js';\nexport const a = 1;\n",
      'src/b.ts': "export const b = async () => (await import('./index.js')).a;\n",
      'src/self.ts': "import { own } from './self.js';\nexport const own = 1;\nexport const twice = own * 2;\n",
    });
    expect(checkImportCycles([join(root, 'src')], root)).toEqual(expect.arrayContaining([['src/b.ts', 'src/index.ts'], ['src/self.ts']]));
    expect(checkImportCycles([join(root, 'src')], root)).toHaveLength(2);
  });

  it('accepts a graph that only points one way', () => {
    const root = writeFixture({
      'src/a.ts': "import { b } from './b.js';\nexport const a = b;\n",
      'src/b.ts': "import { c } from './c.js';\nexport const b = c;\n",
      'src/c.ts': 'export const c = 1;\n',
    });
    expect(checkImportCycles([join(root, 'src')], root)).toEqual([]);
    expect(findCycles(new Map([['x', ['y']], ['y', []]]))).toEqual([]);
  });

  it('exits non-zero and names the files of a circle when run as a command', () => {
    const root = writeFixture({
      'src/a.ts': "import type { B } from './b.js';\nexport type A = B;\n",
      'src/b.ts': "import type { A } from './a.js';\nexport type B = A | 1;\n",
    });
    const run = spawnSync(process.execPath, [SCRIPT, join(root, 'src')], { encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('import cycle among 2 file(s)');
    expect(run.stderr).toMatch(/src\/a\.ts[\s\S]*src\/b\.ts/);
  });

  it('passes on the repository as it is', () => {
    const run = spawnSync(process.execPath, [SCRIPT], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^no import cycles in \d+ source folder\(s\)/);
  });
});
