import { describe, expect, it } from 'vitest';
import { randomIdGenerator } from '../crypto.js';
import { createSequentialIds } from '../testing/doubles.js';
import { timeOrderedId } from './time-ordered-id.js';

describe('timeOrderedId', () => {
  it('starts with the millisecond in eight base-62 digits, then the generator’s id', () => {
    expect(timeOrderedId(new Date('2026-01-01T00:00:00Z'), createSequentialIds('g'))).toBe('0V70MWDgg1');
    expect(timeOrderedId(new Date(0), createSequentialIds('g'))).toBe('00000000g1');
  });

  it('sorts bytewise in the order of the times, across digit, upper-case and lower-case boundaries', () => {
    const times = [0, 9, 10, 35, 36, 61, 62, 3843, 3844, Date.UTC(2026, 10, 22), Date.UTC(2026, 10, 22) + 1, Date.UTC(2100, 0, 1)];
    const ids = times.map((time) => timeOrderedId(new Date(time), randomIdGenerator));
    // Buffer.compare is the order of SQLite's BINARY collation and of PostgreSQL's "C".
    const sorted = [...ids].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    expect(sorted).toEqual(ids);
  });

  it('uses only [A-Za-z0-9], as the IdGenerator port promises, and stays unique within a millisecond', () => {
    const now = new Date('2026-11-22T12:00:00.123Z');
    const ids = Array.from({ length: 1000 }, () => timeOrderedId(now, randomIdGenerator));
    expect(new Set(ids).size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9]{30}$/);
  });

  it('refuses a time it cannot encode', () => {
    expect(() => timeOrderedId(new Date(-1), randomIdGenerator)).toThrow(RangeError);
    expect(() => timeOrderedId(new Date(Number.NaN), randomIdGenerator)).toThrow(RangeError);
  });
});
