import type { OptionValues } from '@gatehouse/cli';
import { UsageError } from './usage.js';

// Option values shared by the commands of this CLI: one rule and one message per kind of option.

/** A string option's value, trimmed; undefined when not given, a usage error when given empty. */
export function given(values: OptionValues, name: string): string | undefined {
  const value = values[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} needs a value`);
  return value.trim();
}

export interface WholeNumberRange {
  min: number;
  max: number;
  /** The value when the option is not given. */
  fallback: number;
}

/**
 * A whole-number option from `min` to `max`, `fallback` when not given;
 * anything else is wrong usage with one message naming the range.
 *
 * @example
 * const seconds = wholeNumber(values, 'timeout', { min: 0, max: 300, fallback: 5 });
 */
export function wholeNumber(values: OptionValues, name: string, { min, max, fallback }: WholeNumberRange): number {
  const value = given(values, name);
  if (value === undefined) return fallback;
  const number = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!(number >= min && number <= max)) throw new UsageError(`--${name} must be a whole number from ${min} to ${max}`);
  return number;
}

/** The range of `--limit` for every command that lists a page at a time (docs/operations.md, "Command line for operators"). */
export const LIMIT_RANGE: WholeNumberRange = { min: 1, max: 1000, fallback: 100 };

/** `--limit N`: how many a listing command shows; the same range and message for every command that takes it. */
export function limitOption(values: OptionValues): number {
  return wholeNumber(values, 'limit', LIMIT_RANGE);
}
