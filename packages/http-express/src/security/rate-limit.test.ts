import { createControllableClock } from '@gatehouse/core/testing';
import { describe, expect, it } from 'vitest';
import { createAttemptLimits, createFailureLimiter } from './rate-limit.js';

describe('createFailureLimiter', () => {
  it('limits a key after max failures in the window, and says when it frees up (sliding window)', async () => {
    const clock = createControllableClock();
    const limiter = createFailureLimiter(clock);
    const keys = [{ scope: 'ip' as const, key: 'k', max: 2 }];
    await limiter.recordFailure(keys, 60);
    clock.advance(20);
    await limiter.recordFailure(keys, 60);
    expect(await limiter.check(keys, 60)).toEqual({ limited: true, retryAfterSeconds: 40 });
    clock.advance(40);
    expect(await limiter.check(keys, 60)).toEqual({ limited: false });
    await limiter.recordFailure(keys, 60);
    expect(await limiter.check(keys, 60)).toEqual({ limited: true, retryAfterSeconds: 20 });
  });

  it('keys are independent; the longest wait wins when several are over', async () => {
    const clock = createControllableClock();
    const limiter = createFailureLimiter(clock);
    await limiter.recordFailure([{ scope: 'ip' as const, key: 'a', max: 1 }], 60);
    expect(await limiter.check([{ scope: 'ip' as const, key: 'b', max: 1 }], 60)).toEqual({ limited: false });
    clock.advance(30);
    await limiter.recordFailure([{ scope: 'ip' as const, key: 'b', max: 1 }], 60);
    expect(await limiter.check([{ scope: 'ip' as const, key: 'a', max: 1 }, { scope: 'ip' as const, key: 'b', max: 1 }], 60)).toEqual({ limited: true, retryAfterSeconds: 60 });
  });

  it('stays bounded under a flood of distinct keys', async () => {
    const clock = createControllableClock();
    const limiter = createFailureLimiter(clock, { maxKeys: 10 });
    for (let index = 0; index < 100; index += 1) await limiter.recordFailure([{ scope: 'ip' as const, key: `k${index}`, max: 1 }], 60);
    expect((await limiter.check([{ scope: 'ip' as const, key: 'k99', max: 1 }], 60)).limited).toBe(true);
    expect((await limiter.check([{ scope: 'ip' as const, key: 'k0', max: 1 }], 60)).limited).toBe(false);
  });
});

describe('createFailureLimiter.admit (docs/decisions/0181)', () => {
  it('attempts sent at once: only `max` are admitted, each counted before it is made; the rest are refused with Retry-After', async () => {
    const clock = createControllableClock();
    const limiter = createFailureLimiter(clock);
    const keys = [{ scope: 'email' as const, key: 'e', max: 5 }, { scope: 'ip' as const, key: 'i', max: 25 }];
    const answers = await Promise.all(Array.from({ length: 30 }, () => limiter.admit(keys, 300)));
    expect(answers.filter((answer) => !answer.limited)).toHaveLength(5);
    expect(answers.filter((answer) => answer.limited)).toEqual(Array.from({ length: 25 }, () => ({ limited: true, retryAfterSeconds: 300 })));
    // The refused ones left nothing behind: the address holds the five admitted, not thirty.
    expect(await limiter.check([{ scope: 'ip' as const, key: 'i', max: 6 }], 300)).toEqual({ limited: false });
  });

  it('a withdrawn attempt (it did not fail) frees its room on every key; a full later key withdraws the earlier ones', async () => {
    const clock = createControllableClock();
    const limiter = createFailureLimiter(clock);
    const email = { scope: 'email' as const, key: 'e', max: 2 };
    const ip = { scope: 'ip' as const, key: 'i', max: 2 };
    const first = await limiter.admit([email, ip], 60);
    if (first.limited) throw new Error('admitted expected');
    await limiter.admit([email, ip], 60);
    expect(await limiter.admit([email, ip], 60)).toMatchObject({ limited: true });
    await limiter.withdraw([email, ip], first.at);
    expect(await limiter.admit([email, ip], 60)).toMatchObject({ limited: false });
    // The address is full now (2): another e-mail from it is refused, and that e-mail keeps no failure.
    const other = { scope: 'email' as const, key: 'other', max: 2 };
    expect(await limiter.admit([other, ip], 60)).toMatchObject({ limited: true });
    expect(await limiter.check([{ ...other, max: 1 }], 60)).toEqual({ limited: false });
  });
});

describe('createAttemptLimits', () => {
  it('sign-in: per e-mail (case and spaces ignored) and per IP with a higher ceiling', async () => {
    const clock = createControllableClock();
    const limits = createAttemptLimits(clock, { maxFailures: 2, windowSeconds: 60 });
    await limits.signIn.admit('Ada@Example.com ', '10.0.0.1');
    await limits.signIn.admit('ada@example.com', '10.0.0.2');
    expect((await limits.signIn.check('ADA@example.com', '10.0.0.3')).limited).toBe(true);
    expect((await limits.signIn.check('bob@example.com', '10.0.0.1')).limited).toBe(false);
    // The IP ceiling is 5 × 2 = 10: one failure above, nine more here.
    for (let index = 0; index < 9; index += 1) await limits.signIn.admit(`u${index}@example.com`, '10.0.0.1');
    expect((await limits.signIn.check('bob@example.com', '10.0.0.1')).limited).toBe(true);
  });

  it('client auth: per client_id from one address, and per address', async () => {
    const clock = createControllableClock();
    const limits = createAttemptLimits(clock, { maxFailures: 1, windowSeconds: 60, maxFailuresPerIp: 3 });
    await limits.clientAuth.recordFailure('client', '10.0.0.1');
    expect((await limits.clientAuth.check('client', '10.0.0.1')).limited).toBe(true);
    expect((await limits.clientAuth.check('client', '10.0.0.2')).limited).toBe(false);
    await limits.clientAuth.recordFailure(undefined, '10.0.0.2');
    await limits.clientAuth.recordFailure('x', '10.0.0.2');
    await limits.clientAuth.recordFailure('y', '10.0.0.2');
    expect((await limits.clientAuth.check('client', '10.0.0.2')).limited).toBe(true);
  });
});

describe('per-IP keys bucket IPv6 addresses by prefix (docs/decisions/0023, amended)', () => {
  it('two addresses of one /64 share a counter; another /64 has its own', async () => {
    const limits = createAttemptLimits(createControllableClock(), { maxFailures: 100, windowSeconds: 60, maxFailuresPerIp: 2 });
    await limits.clientAuth.recordFailure(undefined, '2001:db8:1:2::1');
    await limits.clientAuth.recordFailure(undefined, '2001:db8:1:2:ffff:ffff:ffff:fff0');
    expect(await limits.clientAuth.check(undefined, '2001:0db8:0001:0002:0000:0000:0000:abcd')).toMatchObject({ limited: true });
    expect(await limits.clientAuth.check(undefined, '2001:db8:1:3::1')).toEqual({ limited: false });
  });

  it('the prefix length is a setting (here /48)', async () => {
    const limits = createAttemptLimits(createControllableClock(), { maxFailures: 100, windowSeconds: 60, maxFailuresPerIp: 1, ipv6PrefixLength: 48 });
    await limits.signIn.admit('a@example.com', '2001:db8:1:2::1');
    expect(await limits.signIn.check('b@example.com', '2001:db8:1:ffff::1')).toMatchObject({ limited: true });
    expect(await limits.signIn.check('b@example.com', '2001:db8:2::1')).toEqual({ limited: false });
  });

  it('an IPv4-mapped IPv6 address counts as the IPv4 address; IPv4 addresses stay whole', async () => {
    const limits = createAttemptLimits(createControllableClock(), { maxFailures: 100, windowSeconds: 60, maxFailuresPerIp: 1 });
    await limits.signIn.admit('a@example.com', '::ffff:192.0.2.7');
    expect(await limits.signIn.check('b@example.com', '192.0.2.7')).toMatchObject({ limited: true });
    expect(await limits.signIn.check('b@example.com', '::FFFF:c000:0207')).toMatchObject({ limited: true });
    expect(await limits.signIn.check('b@example.com', '192.0.2.8')).toEqual({ limited: false });
  });

  it('the per-client_id key is bucketed the same way', async () => {
    const limits = createAttemptLimits(createControllableClock(), { maxFailures: 1, windowSeconds: 60, maxFailuresPerIp: 100 });
    await limits.clientAuth.recordFailure('client', '2001:db8:5:5::1');
    expect(await limits.clientAuth.check('client', '2001:db8:5:5::2')).toMatchObject({ limited: true });
    expect(await limits.clientAuth.check('client', '2001:db8:5:6::1')).toEqual({ limited: false });
  });
});

describe('per-IP traffic cannot flush per-account counters', () => {
  it('a flood of cheap client-auth failures from more addresses than the limiter keeps leaves a victim’s per-e-mail counter in place', async () => {
    const limits = createAttemptLimits(createControllableClock(), { maxFailures: 5, windowSeconds: 300 });
    for (let attempt = 0; attempt < 5; attempt += 1) await limits.signIn.admit('victim@example.com', '192.0.2.1');
    expect(await limits.signIn.check('victim@example.com', '198.51.100.1')).toMatchObject({ limited: true });
    // Every failure from a distinct /64: more distinct per-IP keys than the 100 000 the limiter keeps.
    for (let index = 0; index < 100_050; index += 1) {
      await limits.clientAuth.recordFailure(undefined, `2001:db8:${(index >>> 16).toString(16)}:${(index & 0xffff).toString(16)}::1`);
    }
    expect(await limits.signIn.check('victim@example.com', '198.51.100.1')).toMatchObject({ limited: true });
  });
});

describe('the in-memory store is bounded per scope, with least-recently-used eviction', () => {
  it('keeps at most maxKeys keys per scope and forgets the key least recently failed first', async () => {
    const limiter = createFailureLimiter(createControllableClock(), { maxKeys: 3 });
    const key = (name: string) => [{ scope: 'ip' as const, key: name, max: 1 }];
    // `a` fails again after `b`: `b` is now the least recently used, though `a` came first.
    for (const name of ['a', 'b', 'a', 'c', 'd']) await limiter.recordFailure(key(name), 60);
    expect(await limiter.check(key('b'), 60)).toEqual({ limited: false });
    for (const name of ['a', 'c', 'd']) expect(await limiter.check(key(name), 60)).toMatchObject({ limited: true });
  });

  it('scopes have separate capacity: keys of one scope never evict another’s', async () => {
    const limiter = createFailureLimiter(createControllableClock(), { maxKeys: 2 });
    await limiter.recordFailure([{ scope: 'email', key: 'victim', max: 1 }], 60);
    await limiter.recordFailure([{ scope: 'client', key: 'app', max: 1 }], 60);
    for (let index = 0; index < 10; index += 1) await limiter.recordFailure([{ scope: 'ip', key: `ip${index}`, max: 1 }], 60);
    expect(await limiter.check([{ scope: 'email', key: 'victim', max: 1 }], 60)).toMatchObject({ limited: true });
    expect(await limiter.check([{ scope: 'client', key: 'app', max: 1 }], 60)).toMatchObject({ limited: true });
  });
});
