import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, freePort, gatehouseJson, runGatehouse } from '../support/processes.js';
import { createWorkspace } from '../support/fixture.js';

// Issue 9: the server refuses to start on a corrupt or newer-schema database, with a clear
// one-line message and a non-zero exit, and leaves the file as it found it.

const workspace = createWorkspace('refusals');

beforeAll(async () => {
  await ensureBuilt();
}, 120_000);

afterAll(() => workspace.cleanup());

async function envFor(file: string): Promise<Record<string, string>> {
  const port = await freePort();
  return { GATEHOUSE_DB: join(workspace.dir, file), GATEHOUSE_ISSUER: `http://127.0.0.1:${port}`, PORT: String(port), HOST: '127.0.0.1', GATEHOUSE_DEMO: 'false' };
}

/** Runs `gatehouse <command>` and checks the refusal: exit code, one line on stderr, nothing served. */
async function expectRefusal(command: string[], env: Record<string, string>, message: RegExp): Promise<void> {
  const result = await runGatehouse(command, env);
  expect(result.code, result.stderr).not.toBe(0);
  const lines = result.stderr.split('\n').filter((line) => line.trim() !== '');
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]?.startsWith(`gatehouse ${command.join(' ')}: `), lines[0]).toBe(true);
  expect(lines[0]).toMatch(message);
  expect(result.stderr).not.toMatch(/\n\s+at |node_modules/);
  expect(result.stdout).not.toContain('listening');
  await expect(fetch(env.GATEHOUSE_ISSUER as string)).rejects.toThrow();
}

describe('a database the server cannot use', () => {
  it('a file that is not a SQLite database: refused, named, and left untouched', async () => {
    const env = await envFor('junk.db');
    const junk = Buffer.from('These bytes are not a database. '.repeat(64));
    writeFileSync(env.GATEHOUSE_DB as string, junk);
    for (const command of [['serve'], ['migrate']]) {
      await expectRefusal(command, env, new RegExp(`${(env.GATEHOUSE_DB as string).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not a SQLite database, or it is damaged`));
    }
    expect(readFileSync(env.GATEHOUSE_DB as string).equals(junk)).toBe(true);
  }, 60_000);

  it('a SQLite file damaged past its header: refused with a one-line message', async () => {
    const env = await envFor('damaged.db');
    await gatehouseJson(['accounts', 'create', '--name', 'Acme'], env);
    const bytes = readFileSync(env.GATEHOUSE_DB as string);
    bytes.fill(0x5a, 4096, Math.min(bytes.length, 6 * 4096));
    writeFileSync(env.GATEHOUSE_DB as string, bytes);
    await expectRefusal(['serve'], env, /malformed|damaged|not a (SQLite )?database/i);
  }, 60_000);

  it('a database migrated by a newer Gatehouse: refused, saying so, and its migrations left as they were', async () => {
    const env = await envFor('newer.db');
    await gatehouseJson(['accounts', 'create', '--name', 'Acme'], env);
    const raw = new BetterSqlite3(env.GATEHOUSE_DB as string);
    raw.prepare('insert into gatehouse_migration (name, timestamp) values (?, ?)').run('0099_from_the_future', new Date().toISOString());
    const before = raw.prepare('select name from gatehouse_migration order by name').all();
    raw.close();

    for (const command of [['serve'], ['migrate'], ['clients', 'list']]) {
      await expectRefusal(command, env, /migrated by a newer version of Gatehouse \(it has migration 0099_from_the_future/);
    }
    const after = new BetterSqlite3(env.GATEHOUSE_DB as string, { readonly: true });
    expect(after.prepare('select name from gatehouse_migration order by name').all()).toEqual(before);
    after.close();
  }, 60_000);
});
