import { describe, expect, it } from 'vitest';
import { AsyncLock } from './async-lock.js';
import { clockMs } from './deadline.js';
import { WriteGate } from './write-gate.js';

/** Lets every settled promise's callbacks run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('the gate between the serving connection and the write thread', () => {
  it('admits any number of writes for the thread at once', () => {
    const gate = new WriteGate();
    expect(gate.enterThread()).toBeUndefined();
    expect(gate.enterThread()).toBeUndefined();
    expect(gate.tryEnterServing()).toBe(false);
  });

  it('keeps the serving connection out until every write in the thread is answered', async () => {
    const gate = new WriteGate();
    gate.enterThread();
    gate.enterThread();
    let serving = false;
    void gate.enterServing().then(() => (serving = true));
    gate.leaveThread();
    await settle();
    expect(serving).toBe(false);
    gate.leaveThread();
    await settle();
    expect(serving).toBe(true);
  });

  it('makes writes for the thread wait while the serving connection holds the gate or waits for it', async () => {
    const gate = new WriteGate();
    expect(gate.tryEnterServing()).toBe(true);
    let admitted = false;
    void gate.enterThread()?.then(() => (admitted = true));
    await settle();
    expect(admitted).toBe(false);
    gate.leaveServing();
    await settle();
    expect(admitted).toBe(true);

    // A serving write waiting behind the thread's write keeps later thread writes out (no starvation).
    let served = false;
    void gate.enterServing().then(() => (served = true));
    let later = false;
    void gate.enterThread()?.then(() => (later = true));
    gate.leaveThread();
    await settle();
    expect([served, later]).toEqual([true, false]);
    gate.leaveServing();
    await settle();
    expect(later).toBe(true);
  });

  it('hands the gate from one serving write to the next', async () => {
    const gate = new WriteGate();
    expect(gate.tryEnterServing()).toBe(true);
    expect(gate.tryEnterServing()).toBe(false);
    let next = false;
    void gate.enterServing().then(() => (next = true));
    gate.leaveServing();
    await settle();
    expect(next).toBe(true);
    expect(gate.enterThread()).toBeInstanceOf(Promise);
  });

  it('lets a serving write give up at its deadline, and the thread writes it kept waiting go ahead (decision 0101)', async () => {
    const gate = new WriteGate();
    gate.enterThread();
    const serving = gate.enterServing(clockMs() + 30);
    let admitted = false;
    void gate.enterThread()?.then(() => (admitted = true));
    expect(await serving).toBe(false);
    await settle();
    expect(admitted).toBe(true);
    // The serving write that gave up holds nothing: the next one enters once the thread is done.
    gate.leaveThread();
    gate.leaveThread();
    expect(gate.tryEnterServing()).toBe(true);
  });
});

describe('the async lock', () => {
  it('hands the lock on in turn, and lets a waiter give up at its deadline without taking it', async () => {
    const lock = new AsyncLock();
    expect(await lock.acquire()).toBe(true);
    const gaveUp = lock.acquire(clockMs() + 20);
    const next = lock.acquire();
    expect(await gaveUp).toBe(false);
    lock.release();
    expect(await next).toBe(true);
    expect(lock.tryAcquire()).toBe(false);
    lock.release();
    expect(lock.tryAcquire()).toBe(true);
  });
});
