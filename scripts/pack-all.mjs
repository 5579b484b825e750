#!/usr/bin/env node
// Packs every published package as `npm publish` would, into one directory, and unpacks each
// tarball beside it for inspection. `node scripts/pack-all.mjs <outDir>` prints the tarballs.
// The packages must be built first (`npm run build`): a tarball ships dist/ as it is.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The workspaces published to npm, in dependency order (apps/server is private). */
export const PUBLISHED_PACKAGES = ['packages/core', 'packages/storage-kysely', 'packages/storage-sqlite', 'packages/storage-postgres', 'packages/http-express', 'packages/argon2', 'packages/cli'];

/**
 * Runs `npm pack` for every published package into `outDir` and unpacks each tarball into
 * `outDir/<tarball name without .tgz>/` (npm's `package/` folder inside).
 *
 * @param {string} outDir
 * @returns {Array<{ name: string, version: string, workspace: string, tarball: string, unpacked: string, files: string[] }>}
 */
export function packAll(outDir) {
  mkdirSync(outDir, { recursive: true });
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const args = ['pack', '--json', '--pack-destination', outDir, ...PUBLISHED_PACKAGES.flatMap((workspace) => ['--workspace', workspace])];
  const output = execFileSync(npm, args, { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const packed = JSON.parse(output.slice(output.indexOf('[')));
  const workspaceOf = new Map(PUBLISHED_PACKAGES.map((workspace) => [JSON.parse(readFileSync(join(REPO_ROOT, workspace, 'package.json'), 'utf8')).name, workspace]));
  return packed.map((entry) => {
    const tarball = join(outDir, entry.filename);
    const unpacked = join(outDir, entry.filename.replace(/\.tgz$/, ''));
    mkdirSync(unpacked, { recursive: true });
    execFileSync('tar', ['-xzf', tarball, '-C', unpacked]);
    return {
      name: entry.name,
      version: entry.version,
      workspace: workspaceOf.get(entry.name),
      tarball,
      unpacked: join(unpacked, 'package'),
      files: entry.files.map((file) => file.path).sort(),
    };
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outDir = process.argv[2];
  if (!outDir) {
    console.error('usage: node scripts/pack-all.mjs <outDir>');
    process.exit(2);
  }
  for (const { tarball } of packAll(resolve(outDir))) console.log(tarball);
}
