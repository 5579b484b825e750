import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packAll, PUBLISHED_PACKAGES, REPO_ROOT, type PackedPackage } from '../../../scripts/pack-all.mjs';
import { ensureBuilt } from './support/processes.js';

// What a user installs from npm (docs/decisions/0019-packages-as-published.md): each tarball, as
// `npm pack` makes it, has its README, the MIT LICENSE, types, source maps that resolve inside the
// tarball and the right peer dependencies.

interface Manifest {
  name: string;
  version: string;
  license?: string;
  description?: string;
  repository?: { type: string; url: string; directory: string };
  engines?: { node?: string };
  main?: string;
  types?: string;
  exports?: Record<string, Record<string, string>>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  devDependencies?: Record<string, string>;
}

/** The peers each package leaves to the host (optional ones are types for TypeScript hosts). */
const EXPECTED_PEERS: Record<string, { required: string[]; optional: string[] }> = {
  '@gatehouse/core': { required: [], optional: [] },
  '@gatehouse/storage-kysely': { required: ['kysely'], optional: [] },
  '@gatehouse/storage-sqlite': { required: ['better-sqlite3', 'kysely'], optional: ['@types/better-sqlite3'] },
  '@gatehouse/storage-postgres': { required: ['kysely', 'pg'], optional: ['@types/pg'] },
  '@gatehouse/http-express': { required: ['express'], optional: ['@types/express'] },
  '@gatehouse/argon2': { required: [], optional: [] },
  '@gatehouse/cli': { required: [], optional: [] },
};

describe('the published packages, as npm pack makes them', () => {
  let outDir: string;
  let packed: PackedPackage[];
  const manifestOf = (pkg: PackedPackage): Manifest => JSON.parse(readFileSync(join(pkg.unpacked, 'package.json'), 'utf8')) as Manifest;

  beforeAll(async () => {
    await ensureBuilt();
    outDir = mkdtempSync(join(tmpdir(), 'gatehouse-pack-'));
    packed = packAll(outDir);
  }, 120_000);

  afterAll(() => {
    if (outDir) rmSync(outDir, { recursive: true, force: true });
  });

  it('packs every published workspace', () => {
    expect(packed.map((pkg) => pkg.workspace).sort()).toEqual([...PUBLISHED_PACKAGES].sort());
    expect(packed.map((pkg) => pkg.name).sort()).toEqual(Object.keys(EXPECTED_PEERS).sort());
  });

  it('ships a README, the MIT LICENSE of the repository, and a manifest saying so', () => {
    const license = readFileSync(join(REPO_ROOT, 'LICENSE'), 'utf8');
    expect(license).toMatch(/^MIT License\n\nCopyright \(c\) 2026 The Gatehouse authors\n/);
    for (const pkg of packed) {
      expect(pkg.files, pkg.name).toEqual(expect.arrayContaining(['README.md', 'LICENSE', 'package.json']));
      expect(readFileSync(join(pkg.unpacked, 'LICENSE'), 'utf8'), pkg.name).toBe(license);
      expect(readFileSync(join(pkg.unpacked, 'README.md'), 'utf8'), pkg.name).toContain(`# ${pkg.name}\n`);
      const manifest = manifestOf(pkg);
      expect(manifest.license, pkg.name).toBe('MIT');
      expect(manifest.engines?.node, pkg.name).toBe('>=20.19');
      expect(manifest.description, pkg.name).toMatch(/\w/);
      expect(manifest.repository?.directory, pkg.name).toBe(pkg.workspace);
    }
  });

  it('ships the built entry points and their types, and every file an export names', () => {
    for (const pkg of packed) {
      const manifest = manifestOf(pkg);
      expect(pkg.files, pkg.name).toEqual(expect.arrayContaining(['dist/index.js', 'dist/index.d.ts']));
      expect(manifest.main, pkg.name).toBe('./dist/index.js');
      expect(manifest.types, pkg.name).toBe('./dist/index.d.ts');
      for (const [entry, conditions] of Object.entries(manifest.exports ?? {})) {
        for (const target of Object.values(conditions)) {
          expect(existsSync(join(pkg.unpacked, target)), `${pkg.name} exports ${entry} → ${target}`).toBe(true);
        }
      }
    }
  });

  it('ships no tests and no test support', () => {
    for (const pkg of packed) {
      expect(pkg.files.filter((file) => /\.test\.|(^|\/)test-support\//.test(file)), pkg.name).toEqual([]);
    }
  });

  it('ships source maps whose every source is a file of the tarball', () => {
    let maps = 0;
    for (const pkg of packed) {
      for (const file of pkg.files.filter((path) => path.endsWith('.map'))) {
        maps += 1;
        const map = JSON.parse(readFileSync(join(pkg.unpacked, file), 'utf8')) as { sourceRoot?: string; sources: string[] };
        expect(map.sources.length, `${pkg.name}/${file}`).toBeGreaterThan(0);
        for (const source of map.sources) {
          const path = resolve(dirname(join(pkg.unpacked, file)), map.sourceRoot ?? '', source);
          const inside = relative(pkg.unpacked, path);
          expect(inside.startsWith('..'), `${pkg.name}/${file} → ${source} leaves the package`).toBe(false);
          expect(existsSync(path) && statSync(path).isFile(), `${pkg.name}/${file} → ${source}`).toBe(true);
        }
      }
    }
    expect(maps).toBeGreaterThan(100);
  });

  it('declares its drivers and frameworks as peers (devDependencies in the workspace) and Gatehouse packages as exact dependencies', () => {
    const versions = new Map(packed.map((pkg) => [pkg.name, pkg.version]));
    for (const pkg of packed) {
      const manifest = manifestOf(pkg);
      const { required, optional } = EXPECTED_PEERS[pkg.name] as { required: string[]; optional: string[] };
      expect(Object.keys(manifest.peerDependencies ?? {}).sort(), pkg.name).toEqual([...required, ...optional].sort());
      expect(Object.keys(manifest.peerDependenciesMeta ?? {}).sort(), pkg.name).toEqual([...optional].sort());
      for (const peer of [...required, ...optional]) {
        expect(manifest.devDependencies?.[peer], `${pkg.name} installs ${peer} for its own tests`).toBeDefined();
        expect(manifest.dependencies?.[peer], `${pkg.name} must not bundle its peer ${peer}`).toBeUndefined();
      }
      for (const [dependency, range] of Object.entries(manifest.dependencies ?? {})) {
        if (dependency.startsWith('@gatehouse/')) expect(range, `${pkg.name} → ${dependency}`).toBe(versions.get(dependency));
      }
    }
  });

  it('keeps SQLite out of storage-postgres, and storage-kysely free of any driver', () => {
    const postgres = packed.find((pkg) => pkg.name === '@gatehouse/storage-postgres') as PackedPackage;
    const manifest = readFileSync(join(postgres.unpacked, 'package.json'), 'utf8');
    expect(manifest).not.toMatch(/storage-sqlite|better-sqlite3/);
    expect(Object.keys(manifestOf(postgres).dependencies ?? {}).sort()).toEqual(['@gatehouse/core', '@gatehouse/storage-kysely']);
    for (const pkg of packed.filter((candidate) => candidate.name === '@gatehouse/storage-postgres' || candidate.name === '@gatehouse/storage-kysely')) {
      for (const file of pkg.files.filter((path) => path.endsWith('.js'))) {
        expect(readFileSync(join(pkg.unpacked, file), 'utf8'), `${pkg.name}/${file}`).not.toMatch(/from ['"](better-sqlite3|@gatehouse\/storage-sqlite)['"]/);
      }
    }
  });

  it('ships the OpenAPI document where the built /openapi.json route reads it', () => {
    const http = packed.find((pkg) => pkg.name === '@gatehouse/http-express') as PackedPackage;
    const route = readFileSync(join(http.unpacked, 'dist/resource/openapi.js'), 'utf8');
    const target = /new URL\('([^']+)', import\.meta\.url\)/.exec(route)?.[1];
    expect(target).toBe('../../openapi.yaml');
    const shipped = resolve(http.unpacked, 'dist/resource', target as string);
    expect(readFileSync(shipped, 'utf8')).toBe(readFileSync(join(REPO_ROOT, 'packages/http-express/openapi.yaml'), 'utf8'));
    expect(readFileSync(shipped, 'utf8')).toMatch(/^openapi: 3\.1\.0$/m);
  });
});
