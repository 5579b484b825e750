import type { Clock } from '../ports/clock.js';

/** A clock that moves only when told to. */
export interface ControllableClock extends Clock {
  set(date: Date | string): void;
  advance(seconds: number): void;
}

/**
 * @example
 * const clock = createControllableClock('2030-01-01T00:00:00Z');
 * clock.advance(61); // a 60-second code has now expired
 */
export function createControllableClock(start: Date | string = '2030-01-01T00:00:00.000Z'): ControllableClock {
  let current = new Date(start).getTime();
  return {
    now: () => new Date(current),
    set: (date) => {
      current = new Date(date).getTime();
    },
    advance: (seconds) => {
      current += seconds * 1000;
    },
  };
}
