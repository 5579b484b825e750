import { createControllableClock } from '@gatehouse/core/testing';
import { describe, expect, it } from 'vitest';
import { createAttemptLimits, createFailureLimiter } from './rate-limit.js';

describe('createFailureLimiter', () => {
  it('limits a key after max failures in the window, and says when it frees up (sliding window)', () => {
    const clock = createControllableClock();
    const limiter = createFailureLimiter(clock);
    const keys = [{ key: 'k', max: 2 }];
    limiter.recordFailure(keys, 60);
    clock.advance(20);
    limiter.recordFailure(keys, 60);
    expect(limiter.check(keys, 60)).toEqual({ limited: true, retryAfterSeconds: 40 });
    clock.advance(40);
    expect(limiter.check(keys, 60)).toEqual({ limited: false });
    limiter.recordFailure(keys, 60);
    expect(limiter.check(keys, 60)).toEqual({ limited: true, retryAfterSeconds: 20 });
  });

  it('keys are independent; the longest wait wins when several are over', () => {
    const clock = createControllableClock();
    const limiter = createFailureLimiter(clock);
    limiter.recordFailure([{ key: 'a', max: 1 }], 60);
    expect(limiter.check([{ key: 'b', max: 1 }], 60)).toEqual({ limited: false });
    clock.advance(30);
    limiter.recordFailure([{ key: 'b', max: 1 }], 60);
    expect(limiter.check([{ key: 'a', max: 1 }, { key: 'b', max: 1 }], 60)).toEqual({ limited: true, retryAfterSeconds: 60 });
  });

  it('stays bounded under a flood of distinct keys', () => {
    const clock = createControllableClock();
    const limiter = createFailureLimiter(clock, { maxKeys: 10 });
    for (let index = 0; index < 100; index += 1) limiter.recordFailure([{ key: `k${index}`, max: 1 }], 60);
    expect(limiter.check([{ key: 'k99', max: 1 }], 60).limited).toBe(true);
    expect(limiter.check([{ key: 'k0', max: 1 }], 60).limited).toBe(false);
  });
});

describe('createAttemptLimits', () => {
  it('sign-in: per e-mail (case and spaces ignored) and per IP with a higher ceiling', () => {
    const clock = createControllableClock();
    const limits = createAttemptLimits(clock, { maxFailures: 2, windowSeconds: 60 });
    limits.signIn.recordFailure('Ada@Example.com ', '10.0.0.1');
    limits.signIn.recordFailure('ada@example.com', '10.0.0.2');
    expect(limits.signIn.check('ADA@example.com', '10.0.0.3').limited).toBe(true);
    expect(limits.signIn.check('bob@example.com', '10.0.0.1').limited).toBe(false);
    // The IP ceiling is 5 × 2 = 10: one failure above, nine more here.
    for (let index = 0; index < 9; index += 1) limits.signIn.recordFailure(`u${index}@example.com`, '10.0.0.1');
    expect(limits.signIn.check('bob@example.com', '10.0.0.1').limited).toBe(true);
  });

  it('client auth: per client_id from one address, and per address', () => {
    const clock = createControllableClock();
    const limits = createAttemptLimits(clock, { maxFailures: 1, windowSeconds: 60, maxFailuresPerIp: 3 });
    limits.clientAuth.recordFailure('client', '10.0.0.1');
    expect(limits.clientAuth.check('client', '10.0.0.1').limited).toBe(true);
    expect(limits.clientAuth.check('client', '10.0.0.2').limited).toBe(false);
    limits.clientAuth.recordFailure(undefined, '10.0.0.2');
    limits.clientAuth.recordFailure('x', '10.0.0.2');
    limits.clientAuth.recordFailure('y', '10.0.0.2');
    expect(limits.clientAuth.check('client', '10.0.0.2').limited).toBe(true);
  });
});
