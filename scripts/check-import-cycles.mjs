#!/usr/bin/env node
// Fails when the TypeScript sources import each other in a circle (docs/architecture.md, "Which way
// dependencies point"). Type-only imports count: a circle of types is still a circle of meaning.
// Imports are read and resolved by TypeScript itself (NodeNext, as the packages are built), so
// `./x.js` finds `./x.ts`, and re-exports and dynamic imports count as edges.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DEFAULT_ROOTS = ['packages', 'apps'];
const COMPILER_OPTIONS = { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, allowJs: false };

/** The `src` folders of every workspace under `roots` (e.g. packages/core/src). */
export function sourceFolders(repoRoot, roots = DEFAULT_ROOTS) {
  const folders = [];
  for (const root of roots) {
    const base = join(repoRoot, root);
    let entries;
    try { entries = readdirSync(base); } catch { continue; }
    for (const name of entries) {
      const src = join(base, name, 'src');
      if (isDirectory(src)) folders.push(src);
    }
  }
  return folders;
}

function isDirectory(path) {
  try { return statSync(path).isDirectory(); } catch { return false; }
}

function typeScriptFiles(folder) {
  const files = [];
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'dist') files.push(...typeScriptFiles(path));
    } else if (/\.(?:ts|tsx|mts|cts)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) {
      files.push(path);
    }
  }
  return files;
}

/** file → the files among `files` it imports, as TypeScript resolves the specifiers. */
export function importGraph(files) {
  const known = new Set(files);
  const graph = new Map();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = new Set();
    for (const { fileName: specifier } of importedFiles) {
      const resolved = ts.resolveModuleName(specifier, file, COMPILER_OPTIONS, ts.sys, undefined, undefined, ts.ModuleKind.ESNext).resolvedModule;
      const target = resolved && resolve(resolved.resolvedFileName);
      if (target && known.has(target)) targets.add(target);
    }
    graph.set(file, [...targets]);
  }
  return graph;
}

/** Every circle of `graph`: its strongly connected components of more than one file, and self-imports. */
export function findCycles(graph) {
  const index = new Map();
  const low = new Map();
  const onStack = new Set();
  const stack = [];
  const cycles = [];
  let next = 0;
  const visit = (file) => {
    index.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file), low.get(target)));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file), index.get(target)));
      }
    }
    if (low.get(file) === index.get(file)) {
      const component = [];
      let member;
      do {
        member = stack.pop();
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      const selfImport = (graph.get(file) ?? []).includes(file);
      if (component.length > 1 || selfImport) cycles.push(component.sort());
    }
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return cycles;
}

/** The circles among the TypeScript files of `folders`, with paths relative to `repoRoot`. */
export function checkImportCycles(folders, repoRoot = REPO_ROOT) {
  const files = folders.flatMap((folder) => typeScriptFiles(resolve(folder))).map((file) => resolve(file));
  return findCycles(importGraph(files)).map((cycle) => cycle.map((file) => relative(repoRoot, file)));
}

function main() {
  const args = process.argv.slice(2);
  const folders = args.length > 0 ? args : sourceFolders(REPO_ROOT);
  const cycles = checkImportCycles(folders);
  if (cycles.length === 0) {
    console.log(`no import cycles in ${folders.length} source folder(s)`);
    return;
  }
  for (const cycle of cycles) console.error(`import cycle among ${cycle.length} file(s):\n  ${cycle.join('\n  ')}`);
  process.exitCode = 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
