import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStorage } from './sqlite-storage.js';
import { tempDatabaseFile } from './test-support/temp-file.js';
import { startWriterChild } from './test-support/writer-child.js';
import { writeRound } from './test-support/write-rounds.js';

const ROUNDS = 60;

/** How many of `who`'s grants the file holds (one per round, plus the one of the set-up). */
function countGrants(filename: string, who: string): number {
  const raw = new BetterSqlite3(filename, { readonly: true });
  try {
    return (raw.prepare('select count(*) as n from grants where grant_id like ?').get(`${who}-%`) as { n: number }).n;
  } finally {
    raw.close();
  }
}

describe('two connections on one SQLite file', () => {
  let file: ReturnType<typeof tempDatabaseFile>;

  beforeEach(() => {
    file = tempDatabaseFile();
  });

  afterEach(() => {
    file.remove();
  });

  it('lets two storages of this process write at once without SQLITE_BUSY', async () => {
    const first = await openSqliteStorage({ filename: file.filename });
    const second = await openSqliteStorage({ filename: file.filename });
    try {
      await Promise.all([first.migrate(), second.migrate()]);
      const writeAll = async (storage: typeof first, who: string): Promise<void> => {
        for (let round = 0; round < ROUNDS; round += 1) await writeRound(storage.repositories, who, round);
      };
      await Promise.all([writeAll(first, 'one'), writeAll(second, 'two')]);
    } finally {
      await first.close();
      await second.close();
    }
    expect(countGrants(file.filename, 'one')).toBe(ROUNDS + 1);
    expect(countGrants(file.filename, 'two')).toBe(ROUNDS + 1);
  }, 60_000);

  it('lets another process (the CLI beside the server) write while this one writes, without SQLITE_BUSY', async () => {
    const storage = await openSqliteStorage({ filename: file.filename });
    try {
      await storage.migrate();
      const child = startWriterChild({ db: file.filename, rounds: ROUNDS, mode: 'announce-then-write' });
      await child.firstMessage; // the child has opened the file and is about to write
      for (let round = 0; round < ROUNDS; round += 1) await writeRound(storage.repositories, 'parent', round);
      const { code, stderr } = await child.exited;
      expect(stderr).not.toMatch(/SQLITE_BUSY|database is locked/);
      expect(code).toBe(0);
    } finally {
      await storage.close();
    }
    expect(countGrants(file.filename, 'parent')).toBe(ROUNDS + 1);
    expect(countGrants(file.filename, 'child')).toBe(ROUNDS + 1);
  }, 120_000);

  it('makes a writer of another process wait for a held write lock instead of failing', async () => {
    const storage = await openSqliteStorage({ filename: file.filename });
    await storage.migrate();
    await storage.close();
    // A raw connection holds the write lock while the child migrates and writes.
    const holder = new BetterSqlite3(file.filename);
    holder.exec('begin immediate');
    holder.prepare('insert into accounts (account_key, name) values (?, ?)').run('held', 'held while the child waits');
    const child = startWriterChild({ db: file.filename, rounds: 3, mode: 'announce-then-write' });
    try {
      await child.firstMessage;
      await new Promise((resolve) => setTimeout(resolve, 750));
    } finally {
      holder.exec('commit');
      holder.close();
    }
    const { code, stderr } = await child.exited;
    expect(stderr).not.toMatch(/SQLITE_BUSY|database is locked/);
    expect(code).toBe(0);
    expect(countGrants(file.filename, 'child')).toBe(4);
  }, 120_000);

  it('keeps a committed refresh token when the writing process is killed', async () => {
    const child = startWriterChild({ db: file.filename, mode: 'token-then-hang' });
    expect(await child.firstMessage).toEqual({ ready: true });
    child.process.kill('SIGKILL');
    expect((await child.exited).signal).toBe('SIGKILL');

    const storage = await openSqliteStorage({ filename: file.filename });
    try {
      const token = await storage.repositories.refreshTokens.findByHash('child-refresh');
      expect(token?.grantId).toBe('child-grant');
      expect((await storage.repositories.grants.findById('child-grant'))?.revokedAt).toBe(null);
    } finally {
      await storage.close();
    }
  }, 120_000);
});
