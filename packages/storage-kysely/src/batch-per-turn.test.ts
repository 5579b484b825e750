import { describe, expect, it } from 'vitest';
import { batchPerTurn } from './batch-per-turn.js';

/** A runner that notes each batch it is given and answers each item doubled. */
function doubling() {
  const batches: number[][] = [];
  const double = batchPerTurn(async (items: readonly number[]) => {
    batches.push([...items]);
    return items.map((item) => item * 2);
  });
  return { batches, double };
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('batchPerTurn (docs/decisions/0175)', () => {
  it('runs the calls of one turn as one batch, each answered with its own result, in order', async () => {
    const { batches, double } = doubling();
    expect(await Promise.all([double(1), double(2), double(3)])).toEqual([2, 4, 6]);
    expect(batches).toEqual([[1, 2, 3]]);
  });

  it('runs a lone call alone, and the calls of a later turn in a batch of their own', async () => {
    const { batches, double } = doubling();
    expect(await double(5)).toBe(10);
    const first = double(1);
    await nextTurn();
    const second = double(2);
    expect(await Promise.all([first, second])).toEqual([2, 4]);
    expect(batches).toEqual([[5], [1], [2]]);
  });

  it('gathers calls made from several callbacks of the same turn (requests whose data came together)', async () => {
    const { batches, double } = doubling();
    // Two I/O-like callbacks of one turn, each making its call after a microtask.
    const answers = await new Promise<number[]>((resolve) => {
      const calls: Array<Promise<number>> = [];
      setImmediate(() => {
        setImmediate(() => calls.push(double(1)));
        setImmediate(() => void Promise.resolve().then(() => calls.push(double(2))));
        setImmediate(() => void nextTurn().then(() => Promise.all(calls).then(resolve)));
      });
    });
    expect(answers).toEqual([2, 4]);
    expect(batches).toEqual([[1, 2]]);
  });

  it('sends a full batch at once and starts the next', async () => {
    const batches: number[][] = [];
    const echo = batchPerTurn(
      async (items: readonly number[]) => {
        batches.push([...items]);
        return items;
      },
      { maxItems: 2 },
    );
    expect(await Promise.all([echo(1), echo(2), echo(3), echo(4), echo(5)])).toEqual([1, 2, 3, 4, 5]);
    expect(batches).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('fails every call of a batch whose run fails, with its error, and runs the next batch anew', async () => {
    let fail = true;
    const flaky = batchPerTurn(async (items: readonly string[]) => {
      if (fail) throw new Error('database down');
      return items;
    });
    const outcomes = await Promise.allSettled([flaky('a'), flaky('b')]);
    expect(outcomes.map((outcome) => outcome.status === 'rejected' && (outcome.reason as Error).message)).toEqual(['database down', 'database down']);
    fail = false;
    expect(await flaky('c')).toBe('c');
  });

  it('settles each call with its own promise when the runner answers one item apart', async () => {
    const apart = batchPerTurn(async (items: readonly string[]) => items.map((item) => (item === 'bad' ? Promise.reject(new Error(`refused ${item}`)) : Promise.resolve(item))));
    const outcomes = await Promise.allSettled([apart('good'), apart('bad'), apart('fine')]);
    expect(outcomes).toEqual([
      { status: 'fulfilled', value: 'good' },
      { status: 'rejected', reason: new Error('refused bad') },
      { status: 'fulfilled', value: 'fine' },
    ]);
  });

  it('fails the calls when the runner answers a different number of items, leaving no rejection unhandled', async () => {
    const short = batchPerTurn(async (items: readonly number[]) => items.slice(1));
    await expect(Promise.all([short(1), short(2)])).rejects.toThrow('1 answers for 2 items');
    const unhandled: unknown[] = [];
    const note = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', note);
    try {
      const wrong = batchPerTurn(async (items: readonly number[]) => [Promise.reject(new Error('dropped')), ...items]);
      await expect(wrong(1)).rejects.toThrow('2 answers for 1 items');
      await nextTurn();
      await nextTurn();
    } finally {
      process.off('unhandledRejection', note);
    }
    expect(unhandled).toEqual([]);
  });

  it('refuses a batch size that is not a whole number of at least 1', () => {
    expect(() => batchPerTurn(async (items: readonly number[]) => items, { maxItems: 0 })).toThrow('maxItems');
  });
});
