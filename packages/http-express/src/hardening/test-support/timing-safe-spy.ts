import type * as NodeCrypto from 'node:crypto';
import { createRequire, syncBuiltinESMExports } from 'node:module';

/** `module.exports` of node:crypto: what its ESM named exports mirror after `syncBuiltinESMExports`. */
const crypto = createRequire(import.meta.url)('node:crypto') as typeof NodeCrypto;

/** One call of `crypto.timingSafeEqual`, its two inputs as hex (`hex('text')` to compare with text). */
export interface TimingSafeCall {
  a: string;
  b: string;
}

const toHex = (view: NodeJS.ArrayBufferView): string => Buffer.from(view.buffer, view.byteOffset, view.byteLength).toString('hex');

/** The hex of a string's UTF-8 bytes, as `TimingSafeCall` holds them. */
export const hex = (text: string): string => Buffer.from(text, 'utf8').toString('hex');

/**
 * Records every call of `node:crypto`'s `timingSafeEqual`, by any module (named ESM imports
 * of a built-in follow `module.exports` after `syncBuiltinESMExports`). No mock: the real
 * function still does the comparison. Call `restore()` when done.
 *
 * @example
 * const spy = spyOnTimingSafeEqual();
 * await authenticate(); expect(spy.calls).toContainEqual({ a: hex(sha256(secret)), b: hex(storedHash) });
 * spy.restore();
 */
export function spyOnTimingSafeEqual(): { calls: TimingSafeCall[]; clear(): void; restore(): void } {
  const original = crypto.timingSafeEqual;
  const calls: TimingSafeCall[] = [];
  const spy = (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView): boolean => {
    calls.push({ a: toHex(a), b: toHex(b) });
    return original(a, b);
  };
  crypto.timingSafeEqual = spy;
  syncBuiltinESMExports();
  return {
    calls,
    clear: () => void (calls.length = 0),
    restore() {
      crypto.timingSafeEqual = original;
      syncBuiltinESMExports();
    },
  };
}
