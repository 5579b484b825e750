import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const readme = readFileSync(resolve(here, '../../../README.md'), 'utf8');
// A scratch folder inside the package (so '@gatehouse/core' resolves as it would for an embedder);
// `.vitest-*/` folders are git-ignored.
const scratch = resolve(here, `../.vitest-readme-${process.pid}`);

function fencedBlocks(markdown: string, info: string): string[] {
  const blocks: string[] = [];
  const fence = /^```([^\n]*)\n([\s\S]*?)^```$/gm;
  for (const match of markdown.matchAll(fence)) {
    if ((match[1] ?? '').trim() === info) blocks.push(match[2] ?? '');
  }
  return blocks;
}

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('README.md', () => {
  it('opens with the two commands of a fresh clone', () => {
    const first = fencedBlocks(readme, 'sh')[0] ?? '';
    expect(readme.trimStart().startsWith('# Gatehouse')).toBe(true);
    expect(readme.indexOf('```sh')).toBeLessThan(readme.indexOf('\n## '));
    expect(first).toMatch(/^npm install && npm start\b/m);
    expect(first).toMatch(/^npm test\b/m);
  });

  const [example] = fencedBlocks(readme, 'ts readme-example');

  it('has exactly one embedding example', () => {
    expect(fencedBlocks(readme, 'ts readme-example')).toHaveLength(1);
    expect(example).toContain('createGatehouse(');
  });

  it('embedding example type-checks against the core', () => {
    mkdirSync(scratch, { recursive: true });
    const file = join(scratch, 'example.ts');
    writeFileSync(file, `${example ?? ''}\nexport {};\n`);
    const program = ts.createProgram([file], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      // Resolve @gatehouse/core to its sources, as the tests do: no build needed.
      customConditions: ['@gatehouse/source'],
      types: ['node'],
      skipLibCheck: true,
      noUncheckedIndexedAccess: true,
    });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .filter((diagnostic) => diagnostic.file?.fileName === file)
      .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    expect(problems).toEqual([]);
  }, 30_000);

  it('embedding example runs (its own assertions hold)', async () => {
    mkdirSync(scratch, { recursive: true });
    const file = join(scratch, 'run.ts');
    writeFileSync(file, `${example ?? ''}\nexport const finished = true;\n`);
    const module = (await import(/* @vite-ignore */ pathToFileURL(file).href)) as { finished?: boolean };
    expect(module.finished).toBe(true);
  });
});
