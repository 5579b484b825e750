import { describe, expect, it } from 'vitest';
import { MAX_RESTART_DELAY_MS, restartDelayMs } from './supervisor.js';

// The restarts themselves are proven on real processes (test/multi-instance/workers.test.ts).
describe('restartDelayMs (docs/decisions/0171-serve-workers.md)', () => {
  it('restarts a worker that had served a while at once, one that keeps dying after 0.5 s doubling to 30 s', () => {
    expect(restartDelayMs(0)).toBe(0);
    expect([1, 2, 3, 4, 5, 6, 7].map(restartDelayMs)).toEqual([500, 1000, 2000, 4000, 8000, 16_000, MAX_RESTART_DELAY_MS]);
    expect(restartDelayMs(100)).toBe(MAX_RESTART_DELAY_MS);
  });
});
