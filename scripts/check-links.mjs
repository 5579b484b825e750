#!/usr/bin/env node
// The links of the docs and of the code's comments point somewhere (issue #31, item 5), run by
// `npm run lint`:
// - every relative Markdown link of a tracked .md file names a file that exists, and its `#anchor`,
//   if any, a heading of that file (GitHub's slugs);
// - every `docs/…` path named in a source or test file exists;
// - every decision record has a status line.
// Exits 1 and names each broken link, file and line.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The tracked and the new, not ignored, files of the repository. */
function repositoryFiles(root) {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' });
  return out.split('\n').filter((file) => file !== '' && existsSync(join(root, file)));
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
export function slugOf(heading) {
  return heading
    .trim()
    .toLowerCase()
    .replace(/<[^>]+>/g, '')
    .replace(/[`*_~]/g, '')
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .replace(/\s/g, '-');
}

const anchorsCache = new Map();
function anchorsOf(file) {
  let anchors = anchorsCache.get(file);
  if (anchors) return anchors;
  anchors = new Set();
  const counts = new Map();
  let fenced = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const match = !fenced && /^#{1,6}\s+(.*)$/.exec(line);
    if (!match) continue;
    const slug = slugOf(match[1].replace(/\s+#+\s*$/, ''));
    const seen = counts.get(slug) ?? 0;
    counts.set(slug, seen + 1);
    anchors.add(seen === 0 ? slug : `${slug}-${seen}`);
  }
  anchorsCache.set(file, anchors);
  return anchors;
}

/** Markdown links `[text](target)` outside code fences and inline code. */
function markdownLinks(text) {
  const links = [];
  let fenced = false;
  text.split('\n').forEach((line, index) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return;
    }
    if (fenced) return;
    const withoutCode = line.replace(/`[^`]*`/g, '');
    for (const match of withoutCode.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) links.push({ target: match[1], line: index + 1 });
  });
  return links;
}

/** The broken links of `files` (paths relative to `root`; default: the repository's). */
export function brokenLinks(root = ROOT, files = repositoryFiles(root)) {
  const problems = [];
  for (const file of files.filter((name) => name.endsWith('.md') && !name.startsWith('bench/results/'))) {
    const absolute = join(root, file);
    for (const { target, line } of markdownLinks(readFileSync(absolute, 'utf8'))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, …
      const [path, anchor] = target.split('#');
      const destination = path === '' ? absolute : normalize(join(dirname(absolute), decodeURIComponent(path)));
      if (!existsSync(destination)) {
        problems.push(`${file}:${line}: ${target} — no such file`);
        continue;
      }
      if (anchor && destination.endsWith('.md') && !anchorsOf(destination).has(anchor.toLowerCase())) problems.push(`${file}:${line}: ${target} — no such heading in ${relative(root, destination)}`);
    }
  }
  // Paths of docs named in code: `docs/decisions/0101-….md`, `docs/operations.md` (the Markdown
  // files' own links are checked above; this checker's test names missing files on purpose).
  for (const file of files.filter((name) => /\.(ts|mjs|js|yaml)$/.test(name) && !name.startsWith('bench/results/') && name !== 'apps/server/test/check-links.test.ts')) {
    readFileSync(join(root, file), 'utf8')
      .split('\n')
      .forEach((text, index) => {
        for (const match of text.matchAll(/\bdocs\/((?:decisions\/)?[\w.-]+\.md)\b/g)) {
          if (!existsSync(join(root, 'docs', match[1]))) problems.push(`${file}:${index + 1}: docs/${match[1]} — no such file`);
        }
      });
  }
  const decisionIndex = existsSync(join(root, 'docs/decisions/README.md')) ? readFileSync(join(root, 'docs/decisions/README.md'), 'utf8') : '';
  for (const file of files.filter((name) => /^docs\/decisions\/\d{4}-.*\.md$/.test(name))) {
    if (!/^\*\*Status:\*\*/m.test(readFileSync(join(root, file), 'utf8'))) problems.push(`${file}: no **Status:** line`);
    // Every decision has its row in the index, where a reader looks for it.
    if (!decisionIndex.includes(`](${file.slice('docs/decisions/'.length)})`)) problems.push(`${file}: not listed in docs/decisions/README.md`);
  }
  return problems;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const problems = brokenLinks();
  if (problems.length > 0) {
    console.error(`${problems.length} broken link(s):\n${problems.join('\n')}`);
    process.exit(1);
  }
  console.log('every link of the docs and the code points somewhere');
}
