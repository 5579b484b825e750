import type { Database, Storage } from '@gatehouse/storage-kysely';
import type { Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { directExecutorOf, type DirectExecutor } from './direct-executor.js';
import { openSqlite } from './sqlite-storage.js';
import { exchangeCode, FIXTURE_NOW, seedClientAndCodes } from './test-support/exchange-fixtures.js';
import { recordStatements } from './test-support/record-statements.js';
import { tempDatabaseFile } from './test-support/temp-file.js';

/** Notes whether each synchronous transaction of `db`'s direct executor ran ('written') or found the connection busy. */
function recordTries(db: Kysely<Database>): string[] {
  const direct = directExecutorOf(db) as DirectExecutor;
  const tries: string[] = [];
  const transaction = direct.transaction.bind(direct);
  direct.transaction = (body) => {
    const outcome = transaction(body);
    tries.push(outcome === undefined ? 'busy' : 'written');
    return outcome;
  };
  return tries;
}

/** A kysely transaction that holds the connection across an `await` until `release`; it notes its end in `order` before it commits. */
async function holdConnection(db: Kysely<Database>, order: string[] = []): Promise<{ release: () => void; held: Promise<void> }> {
  let inside!: () => void;
  const entered = new Promise<void>((resolve) => (inside = resolve));
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const held = db.transaction().execute(async (trx) => {
    await trx.updateTable('clients').set({ name: 'Renamed' }).where('client_id', '=', 'c1').execute();
    inside();
    await released;
    order.push('held transaction');
  });
  await entered;
  return { release, held };
}

/** Lets what was started run until it waits (a turn of the event loop). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

// The code exchange's write has one form on SQLite, chosen when the storage is opened, with its
// fallbacks beside it (docs/decisions/0162-one-exchange-write-per-dialect.md): each is driven here.
describe("SQLite's form of the code exchange's write, on a file with a write thread", () => {
  let file: ReturnType<typeof tempDatabaseFile>;
  let storage: Storage;
  let db: Kysely<Database>;
  let executed: string[];
  let handedOver: number;
  let threadStopped: boolean;

  beforeEach(async () => {
    file = tempDatabaseFile();
    const opened = await openSqlite({ filename: file.filename });
    ({ storage, db } = opened);
    executed = recordStatements(opened.database);
    await storage.migrate();
    await seedClientAndCodes(storage, ['code1', 'code2', 'code3']);
    const direct = directExecutorOf(db) as DirectExecutor;
    const handOver = direct.writeOnThread?.bind(direct);
    expect(handOver).toBeDefined();
    handedOver = 0;
    threadStopped = false;
    // As a thread that stopped or failed answers: undefined, nothing written.
    direct.writeOnThread = (statements) => {
      handedOver += 1;
      return threadStopped ? undefined : handOver?.(statements);
    };
    executed.length = 0;
  });

  afterEach(async () => {
    await storage.close();
    file.remove();
  });

  it('hands the write to the thread: the serving connection writes nothing', async () => {
    expect(await exchangeCode(storage, 1)).toBe(true);
    expect(handedOver).toBe(1);
    expect(executed).toEqual([]);
    expect((await storage.repositories.codes.findByHash('code1'))?.grantId).toBe('g1');
  });

  it('writes in one synchronous transaction on the serving connection once the thread has stopped', async () => {
    threadStopped = true;
    expect(await exchangeCode(storage, 1)).toBe(true);
    expect(handedOver).toBe(1);
    expect(executed).toEqual(['begin immediate', 'insert into "grants"', 'update "authorization_codes" set', 'insert into "refresh_tokens"', 'commit']);
    executed.length = 0;
    // The same code again: refused, rolled back, nothing written.
    const at = new Date(FIXTURE_NOW.getTime() + 1000);
    expect(
      await storage.repositories.grants.createFromCode({
        grant: { grantId: 'g9', clientId: 'c1', userKey: 'u1', scopes: ['messaging.v1.read'], sessionId: null, createdAt: at, revokedAt: null },
        codeHash: 'code1',
        refreshToken: { tokenHash: 'r9', grantId: 'g9', createdAt: at, lastUsedAt: at, rotatedAt: null, supersededAt: null },
      }),
    ).toBe(false);
    expect(executed).toEqual(['begin immediate', 'insert into "grants"', 'update "authorization_codes" set', 'rollback']);
    expect(await storage.repositories.grants.findById('g9')).toBeUndefined();
  });

  it("takes kysely's transaction, after the one holding the connection, when the thread has stopped and the connection is busy", async () => {
    threadStopped = true;
    const tries = recordTries(db);
    const order: string[] = [];
    const { release, held } = await holdConnection(db, order);
    const exchanged = exchangeCode(storage, 2).then((won) => {
      order.push('exchange');
      return won;
    });
    await settle();
    expect(tries).toEqual(['busy']);
    release();
    await held;
    expect(await exchanged).toBe(true);
    expect(order).toEqual(['held transaction', 'exchange']);
    // Kysely's transaction wrote it: the synchronous one was tried once only.
    expect(tries).toEqual(['busy']);
    expect((await storage.repositories.codes.findByHash('code2'))?.grantId).toBe('g2');
    expect((await storage.repositories.refreshTokens.findByHash('r2'))?.grantId).toBe('g2');
  });
});

describe("SQLite's form of a user's attribute values, when the connection is busy", () => {
  let storage: Storage;
  let db: Kysely<Database>;

  beforeEach(async () => {
    ({ storage, db } = await openSqlite({ filename: ':memory:' }));
    await storage.migrate();
    await seedClientAndCodes(storage, []);
    await storage.repositories.accounts.create({ accountKey: 'a1', name: 'Acme' });
    await storage.repositories.attributes.create('a1', { key: 'k1', name: 'department' }, 500);
  });

  afterEach(async () => {
    await storage.close();
  });

  it("takes kysely's transaction after the one holding the connection, with the same all-or-nothing check", async () => {
    const tries = recordTries(db);
    const { release, held } = await holdConnection(db);
    const refused = storage.repositories.attributes.setUserValues('a1', 'u1', [{ key: 'k1', value: 'Sales' }, { key: 'nope', value: 'x' }]);
    const written = storage.repositories.attributes.setUserValues('a1', 'u1', [{ key: 'k1', value: 'Sales' }]);
    await settle();
    expect(tries).toEqual(['busy', 'busy']);
    release();
    await held;
    expect(await refused).toEqual({ unknownKeys: ['nope'] });
    expect(await written).toEqual({ unknownKeys: [] });
    expect(tries).toEqual(['busy', 'busy']);
    expect(await storage.repositories.attributes.listUserValues('a1', 'u1')).toEqual([{ key: 'k1', name: 'department', value: 'Sales' }]);
  });
});
