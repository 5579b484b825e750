import { describe, expect, it } from 'vitest';
import type { afterEach as jestAfterEach, beforeEach as jestBeforeEach, describe as jestDescribe, expect as jestExpect, it as jestIt } from '@jest/globals';
import type { ContractMatchers, ContractRunner } from '@gatehouse/core/testing';

// `tsc -p tsconfig.tests.json` (npm run lint) checks this file: Vitest does not type-check, so the
// assignments below are the test that Jest's runner fits `describeRepositoryContract`'s parameter.

/** Jest's globals as `import { describe, it, expect, beforeEach, afterEach } from '@jest/globals'` gives them (types only). */
interface JestGlobals {
  describe: typeof jestDescribe;
  it: typeof jestIt;
  expect: typeof jestExpect;
  beforeEach: typeof jestBeforeEach;
  afterEach: typeof jestAfterEach;
}

/** Jest's real globals are a `ContractRunner` (TS2322 "Property 'not' is missing" when `not` required a `not`). */
export const jestGlobalsAreARunner = (jest: JestGlobals): ContractRunner => jest;

/** The shape of Jest's matchers, reduced to what the contract uses: `not` has no `not` of its own. */
interface JestShapedMatchers {
  toBe(expected: unknown): void;
  toEqual(expected: unknown): void;
  toBeUndefined(): void;
  toHaveLength(length: number): void;
  toBeInstanceOf(expected: unknown): void;
  toMatchObject(expected: object): void;
}

/** A Jest-shaped `expect` built on Vitest's, so the shape is exercised at run time as well. */
function jestShapedExpect(actual: unknown): JestShapedMatchers & { not: JestShapedMatchers } {
  const matchers = (negated: boolean): JestShapedMatchers => {
    const assertion = negated ? expect(actual).not : expect(actual);
    return {
      toBe: (expected) => assertion.toBe(expected),
      toEqual: (expected) => assertion.toEqual(expected),
      toBeUndefined: () => assertion.toBeUndefined(),
      toHaveLength: (length) => assertion.toHaveLength(length),
      toBeInstanceOf: (expected) => assertion.toBeInstanceOf(expected as abstract new (...args: never[]) => unknown),
      toMatchObject: (expected) => assertion.toMatchObject(expected),
    };
  };
  return { ...matchers(false), not: matchers(true) };
}

describe('the contract runner type', () => {
  it('accepts an expect whose `not` has no `not` of its own, as Jest\'s has', () => {
    const runnerExpect: ContractRunner['expect'] = jestShapedExpect;
    const matchers: ContractMatchers = runnerExpect([1, 2]);
    matchers.toHaveLength(2);
    matchers.not.toHaveLength(3);
    matchers.not.toBeUndefined();
    expect(() => matchers.not.toEqual([1, 2])).toThrow();
  });
});
