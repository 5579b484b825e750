import { describe, expect, it } from 'vitest';
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
});
