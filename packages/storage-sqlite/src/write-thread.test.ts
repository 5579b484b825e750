import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDatabaseFile } from './test-support/temp-file.js';
import { WriteGate } from './write-gate.js';
import { startWriteThread, type WriteThread } from './write-thread.js';

const INSERT = 'insert into items (id, size) values (?, ?)';
const GROW = 'update items set size = size + 1 where id = ?';
const SETTINGS = { busyTimeoutMs: 5000, synchronous: 'NORMAL', walSizeLimitBytes: 48 * 1024 * 1024, autocheckpointPages: 1000, cacheKib: 2000 };

const insert = (id: string, size = 1) => ({ sql: INSERT, parameters: [id, size], mustChange: false });
const grow = (id: string) => ({ sql: GROW, parameters: [id], mustChange: true });

describe('the write thread of a SQLite file', () => {
  let file: ReturnType<typeof tempDatabaseFile>;
  let reader: BetterSqlite3.Database;
  let gate: WriteGate;
  let thread: WriteThread;

  beforeEach(() => {
    file = tempDatabaseFile();
    reader = new BetterSqlite3(file.filename);
    reader.pragma('journal_mode = WAL');
    reader.exec('create table items (id text primary key, size integer not null)');
    gate = new WriteGate();
    thread = startWriteThread(file.filename, gate, SETTINGS);
  });

  afterEach(async () => {
    await thread.stop();
    reader.close();
    file.remove();
  });

  const sizes = () => reader.prepare('select id, size from items order by id').all();

  it('commits a write before it answers: another connection reads it at once', async () => {
    expect(await thread.write([insert('a'), insert('b', 2)])).toBe(true);
    expect(sizes()).toEqual([
      { id: 'a', size: 1 },
      { id: 'b', size: 2 },
    ]);
  });

  it('writes nothing of a write whose must-change statement changed no row, and answers false', async () => {
    expect(await thread.write([insert('a'), grow('missing')])).toBe(false);
    expect(sizes()).toEqual([]);
  });

  it('keeps the writes of one group apart: one refused, one failing, the others committed', async () => {
    // Posted in one turn of the event loop: the thread commits them together.
    const outcomes = await Promise.allSettled([
      thread.write([insert('a')]),
      thread.write([insert('b'), grow('missing')]),
      thread.write([insert('c'), insert('a')]),
      thread.write([insert('d'), grow('a')]),
    ]);
    expect(outcomes.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : (outcome.reason as { code?: string }).code))).toEqual([
      true,
      false,
      'SQLITE_CONSTRAINT_PRIMARYKEY',
      true,
    ]);
    expect(sizes()).toEqual([
      { id: 'a', size: 2 },
      { id: 'd', size: 1 },
    ]);
  });

  it('lets one write of a group consume what an earlier one left, as single use needs', async () => {
    reader.prepare(INSERT).run('code', 0);
    const consume = { sql: 'update items set size = 1 where id = ? and size = 0', parameters: ['code'], mustChange: true };
    const outcomes = await Promise.all(Array.from({ length: 10 }, (_, index) => thread.write([insert(`grant${index}`), consume])));
    expect(outcomes.filter(Boolean)).toHaveLength(1);
    expect(reader.prepare("select count(*) as n from items where id like 'grant%'").get()).toEqual({ n: 1 });
  });

  it('fails a write whose statement SQLite refuses, and goes on with the next', async () => {
    await expect(thread.write([insert('a'), { sql: 'insert into nowhere values (?)', parameters: [1], mustChange: false }])).rejects.toMatchObject({ code: 'SQLITE_ERROR' });
    expect(await thread.write([insert('b')])).toBe(true);
    expect(sizes()).toEqual([{ id: 'b', size: 1 }]);
  });

  it('waits for a write lock off the event loop: timers keep firing while another connection holds it', async () => {
    reader.exec('begin immediate');
    let settled = false;
    const write = thread.write([insert('a')])?.finally(() => (settled = true));
    let ticks = 0;
    const timer = setInterval(() => (ticks += 1), 5);
    await new Promise((resolve) => setTimeout(resolve, 200));
    clearInterval(timer);
    // Timers ran while the write still waits: a wait on this thread would have held them until it
    // gave up (busy) and settled the write first, however loaded the machine. No count of ticks.
    expect(ticks).toBeGreaterThan(0);
    expect(settled).toBe(false);
    expect(reader.inTransaction).toBe(true);
    reader.exec('commit');
    expect(await write).toBe(true);
    expect(sizes()).toEqual([{ id: 'a', size: 1 }]);
  });

  it('keeps the gate shut to the serving connection until the thread has answered', async () => {
    const write = thread.write([insert('a')]);
    expect(gate.tryEnterServing()).toBe(false);
    await write;
    expect(gate.tryEnterServing()).toBe(true);
    gate.leaveServing();
  });

  it('answers the writes posted before stop, then takes no more', async () => {
    const write = thread.write([insert('a')]);
    await thread.stop();
    expect(await write).toBe(true);
    expect(sizes()).toEqual([{ id: 'a', size: 1 }]);
    expect(thread.write([insert('b')])).toBeUndefined();
  });
});
