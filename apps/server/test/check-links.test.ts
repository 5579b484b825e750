import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error — a plain .mjs script of the repository, without types.
import { brokenLinks, slugOf } from '../../../scripts/check-links.mjs';
import { REPO_ROOT } from './support/processes.js';

// scripts/check-links.mjs (npm run lint): the links of the docs and the code point somewhere (issue #31, item 5).

function runCheck(): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(REPO_ROOT, 'scripts/check-links.mjs')], { cwd: REPO_ROOT }, (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }));
  });
}

describe('the link check', () => {
  it('passes on the repository as it is', async () => {
    const result = await runCheck();
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it('names a missing file, a missing heading, a missing decision named in code, a decision without a status or missing from the index', () => {
    const root = mkdtempSync(join(tmpdir(), 'gatehouse-links-'));
    try {
      mkdirSync(join(root, 'docs/decisions'), { recursive: true });
      writeFileSync(join(root, 'README.md'), '# Title\n\n## Known heading\n\n[ok](#known-heading) [file](docs/guide.md) [gone](docs/gone.md) [anchor](#unknown) [web](https://example.com)\n');
      writeFileSync(join(root, 'docs/guide.md'), '# Guide\n');
      writeFileSync(join(root, 'docs/decisions/0001-x.md'), '# 0001 — x\n');
      writeFileSync(join(root, 'code.ts'), '// see docs/decisions/0002-missing.md\n');
      const problems = brokenLinks(root, ['README.md', 'docs/guide.md', 'docs/decisions/0001-x.md', 'code.ts']) as string[];
      expect(problems).toEqual([
        'README.md:5: docs/gone.md — no such file',
        'README.md:5: #unknown — no such heading in README.md',
        'code.ts:1: docs/decisions/0002-missing.md — no such file',
        'docs/decisions/0001-x.md: no **Status:** line',
        'docs/decisions/0001-x.md: not listed in docs/decisions/README.md',
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('makes GitHub\'s anchors of headings', () => {
    expect(slugOf('Against the targets')).toBe('against-the-targets');
    expect(slugOf('The peer: node-oidc-provider')).toBe('the-peer-node-oidc-provider');
    expect(slugOf('`npm run bench` and `--workers`')).toBe('npm-run-bench-and---workers');
  });
});
