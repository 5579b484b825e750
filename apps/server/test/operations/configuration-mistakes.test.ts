import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../support/fixture.js';
import { CLI, ensureBuilt, REPO_ROOT, runGatehouse, type CliResult } from '../support/processes.js';

// Issue 33: configuration mistakes that used to pass silently (a misspelt variable) or unnamed
// (SQLite's or Node's raw text for a database path it cannot use) each give one line naming the variable.

const workspace = createWorkspace('config-mistakes');

beforeAll(async () => {
  await ensureBuilt();
  // Another user (below) must be able to reach the files in here.
  chmodSync(workspace.dir, 0o755);
}, 300_000);

afterAll(() => workspace.cleanup());

const lines = (text: string) => text.split('\n').filter((line) => line.trim() !== '');

/**
 * `gatehouse <args>` as a user for whom the files' permission bits count: root may write anything,
 * so under root the command runs as nobody (65534).
 */
function runAsUnprivileged(args: string[], env: Record<string, string>): Promise<CliResult> {
  const asRoot = process.getuid?.() === 0;
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { cwd: REPO_ROOT, env: { ...process.env, ...env }, ...(asRoot ? { uid: 65534, gid: 65534 } : {}) }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

describe('configuration mistakes', () => {
  it('warns once per unknown GATEHOUSE_* variable, with the closest known name, and goes on', async () => {
    const result = await runGatehouse(['migrate'], {
      GATEHOUSE_DB: join(workspace.dir, 'typo.db'),
      GATEHOUSE_ACCES_TOKEN_TTL_SECONDS: '600',
      GATEHOUSE_NOTHING_LIKE_IT: 'x',
      GATEHOUSE_KEY_SECRET_FILE: '',
    });
    expect(result.code).toBe(0);
    expect(lines(result.stderr)).toEqual([
      'gatehouse migrate: warning: GATEHOUSE_ACCES_TOKEN_TTL_SECONDS is not a Gatehouse variable and is ignored; did you mean GATEHOUSE_ACCESS_TOKEN_TTL_SECONDS?',
      'gatehouse migrate: warning: GATEHOUSE_NOTHING_LIKE_IT is not a Gatehouse variable and is ignored; see docs/configuration.md for the variables',
    ]);
    expect(result.stdout).toContain('Database is up to date');
  });

  it('says in one line that GATEHOUSE_DB names a directory', async () => {
    const directory = join(workspace.dir, 'a-directory');
    mkdirSync(directory);
    const result = await runGatehouse(['migrate'], { GATEHOUSE_DB: directory });
    expect(result.code).toBe(1);
    expect(lines(result.stderr)).toEqual([`gatehouse migrate: GATEHOUSE_DB names a directory (${directory}); give the path of a file, such as ${join(directory, 'gatehouse.db')}.`]);
  });

  it('says in one line that the directory of GATEHOUSE_DB cannot be created', async () => {
    const file = join(workspace.dir, 'a-file');
    writeFileSync(file, 'not a directory');
    const result = await runGatehouse(['migrate'], { GATEHOUSE_DB: join(file, 'sub', 'gatehouse.db') });
    expect(result.code).toBe(1);
    expect(lines(result.stderr)).toEqual([
      expect.stringMatching(new RegExp(`^gatehouse migrate: GATEHOUSE_DB: the directory ${join(file, 'sub')} cannot be created \\(a part of the path is a file, E(EXIST|NOTDIR)\\); create it, or choose a path the server may write\\.$`)),
    ]);

    const locked = join(workspace.dir, 'locked');
    mkdirSync(locked, { mode: 0o555 });
    const refused = await runAsUnprivileged(['migrate'], { GATEHOUSE_DB: join(locked, 'new', 'gatehouse.db') });
    expect(refused.code).toBe(1);
    expect(lines(refused.stderr)).toEqual([`gatehouse migrate: GATEHOUSE_DB: the directory ${join(locked, 'new')} cannot be created (no permission, EACCES); create it, or choose a path the server may write.`]);
    chmodSync(locked, 0o755);
  });

  it('says in one line that GATEHOUSE_DB cannot be written, for a read-only file or directory', async () => {
    const directory = join(workspace.dir, 'read-only');
    mkdirSync(directory);
    const filename = join(directory, 'gatehouse.db');
    expect((await runGatehouse(['migrate'], { GATEHOUSE_DB: filename })).code).toBe(0);
    chmodSync(filename, 0o444);
    chmodSync(directory, 0o555);
    for (const target of [filename, join(directory, 'another.db')]) {
      const result = await runAsUnprivileged(['accounts', 'create', '--name', 'Acme'], { GATEHOUSE_DB: target });
      expect(result.code).toBe(1);
      expect(lines(result.stderr)).toEqual([
        expect.stringMatching(new RegExp(`^gatehouse accounts create: GATEHOUSE_DB: the SQLite file ${target} cannot be opened for writing \\(SQLITE_\\w+\\); the server needs to write the file and the files beside it \\(-wal, -shm\\) in ${directory}\\.$`)),
      ]);
    }
    chmodSync(directory, 0o755);
  });
});
