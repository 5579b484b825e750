import type { Storage } from '@gatehouse/storage-kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hostSharedWriteThread, type SharedWriteThreadChannel, type SharedWriteThreadHost } from './shared-write-thread.js';
import { openSqliteStorage } from './sqlite-storage.js';
import { FIXTURE_NOW, seedClientAndCodes } from './test-support/exchange-fixtures.js';
import { tempDatabaseFile } from './test-support/temp-file.js';

/**
 * A channel to `host` as a process's IPC would carry it: each message and reply crosses
 * asynchronously, as a copy. `sent` counts the messages.
 */
function channelTo(host: SharedWriteThreadHost, peer: number): SharedWriteThreadChannel & { sent: number } {
  const listeners = new Set<Parameters<SharedWriteThreadChannel['listen']>[0]>();
  const channel = {
    sent: 0,
    send(message: string) {
      channel.sent += 1;
      setImmediate(() => host.receive(peer, message, (reply) => setImmediate(() => listeners.forEach((listener) => listener(structuredClone(reply))))));
    },
    listen(listener: Parameters<SharedWriteThreadChannel['listen']>[0]) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
  return channel;
}

/** Exchanges `code{index}` of client `c1` for grant `{grantPrefix}{index}`: true when this call won the code. */
function exchange(storage: Storage, index: number, grantPrefix: string): Promise<boolean> {
  const grantId = `${grantPrefix}${index}`;
  return storage.repositories.grants.createFromCode({
    grant: { grantId, clientId: 'c1', userKey: 'u1', scopes: ['messaging.v1.read'], sessionId: null, createdAt: FIXTURE_NOW, revokedAt: null },
    codeHash: `code${index}`,
    refreshToken: { tokenHash: `refresh-${grantId}`, grantId, createdAt: FIXTURE_NOW, lastUsedAt: FIXTURE_NOW, rotatedAt: null, supersededAt: null },
  });
}

describe('one write thread for the storages of several processes (decision 0173)', () => {
  let file: ReturnType<typeof tempDatabaseFile>;
  let host: SharedWriteThreadHost;
  let storages: Storage[] = [];

  const open = async (channel: SharedWriteThreadChannel) => {
    const storage = await openSqliteStorage({ filename: file.filename, writeThread: { shared: channel }, backgroundCheckpoints: false });
    storages.push(storage);
    return storage;
  };

  beforeEach(() => {
    file = tempDatabaseFile();
    host = hostSharedWriteThread({ filename: file.filename });
  });

  afterEach(async () => {
    for (const storage of storages) await storage.close();
    storages = [];
    await host.stop();
    file.remove();
  });

  it("writes two processes' code exchanges through the host's thread, each code once (RFC 6749 §4.1.2)", async () => {
    const toFirst = channelTo(host, 1);
    const toSecond = channelTo(host, 2);
    const first = await open(toFirst);
    const second = await open(toSecond);
    await first.migrate();
    const codes = 20;
    await seedClientAndCodes(first, Array.from({ length: codes }, (_, index) => `code${index}`));

    // Each code raced by both: the host numbers the second peer's statements as the first's.
    const outcomes = await Promise.all(Array.from({ length: codes }, (_, index) => Promise.all([exchange(first, index, 'a'), exchange(second, index, 'b')])));

    for (const [byFirst, bySecond] of outcomes) expect([byFirst, bySecond].filter(Boolean)).toHaveLength(1);
    expect(toFirst.sent).toBeGreaterThan(0);
    expect(toSecond.sent).toBeGreaterThan(0);
    for (let index = 0; index < codes; index += 1) {
      const winner = outcomes[index]?.[0] ? `a${index}` : `b${index}`;
      expect(await first.repositories.grants.findById(winner)).toMatchObject({ grantId: winner, clientId: 'c1' });
      expect(await second.repositories.codes.findByHash(`code${index}`)).toMatchObject({ grantId: winner });
    }
  });

  it("answers a write the host's thread refuses as refused, in the process that sent it", async () => {
    const toFirst = channelTo(host, 1);
    const first = await open(toFirst);
    await first.migrate();
    await seedClientAndCodes(first, ['code0']);
    expect(await exchange(first, 0, 'a')).toBe(true);
    // The code is spent: the thread's conditional write changes no row, and nothing is written.
    expect(await exchange(first, 0, 'again')).toBe(false);
    expect(await first.repositories.grants.findById('again0')).toBeUndefined();
  });

  it("writes on the process's own connection once the host's thread has stopped", async () => {
    const toFirst = channelTo(host, 1);
    const first = await open(toFirst);
    await first.migrate();
    await seedClientAndCodes(first, ['code0', 'code1']);
    expect(await exchange(first, 0, 'a')).toBe(true);
    const sentBefore = toFirst.sent;

    await host.stop();
    // The host told every peer it knows that its thread is gone before its stop ended; the reply
    // crosses in the next turn of the event loop.
    await new Promise((resolve) => setImmediate(resolve));

    expect(await exchange(first, 1, 'a')).toBe(true);
    expect(toFirst.sent).toBe(sentBefore);
    expect(await first.repositories.grants.findById('a1')).toMatchObject({ grantId: 'a1' });
  });
});
