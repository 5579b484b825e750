import { randomBytes } from 'node:crypto';
import type { Express } from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeExpired } from '../cli/serve.js';
import { loadConfig } from '../config.js';
import { createContainer, resolve, systemClock, TOKENS } from '../container.js';
import { dropSchema, POSTGRES_URL, warnIfSkipped } from '../../test/multi-instance/support/postgres.js';
// The limiter itself is internal to http-express (docs/decisions/0163): this test reaches its source.
import { createAttemptLimits } from '../../../../packages/http-express/src/security/rate-limit.js';

// Two server instances on one PostgreSQL schema (two containers, so two pools) count failures
// together (docs/decisions/0023-rate-limiting-failed-attempts.md): the 6th failure across both is limited.
warnIfSkipped('the shared rate-limit tests on PostgreSQL');

describe.skipIf(!POSTGRES_URL)('failure counts shared by instances on PostgreSQL', () => {
  const schema = `gh_limits_${randomBytes(6).toString('hex')}`;
  const config = loadConfig({ GATEHOUSE_DATABASE_URL: POSTGRES_URL, GATEHOUSE_DATABASE_SCHEMA: schema, GATEHOUSE_DATABASE_POOL_SIZE: '2', GATEHOUSE_DEMO: 'false', GATEHOUSE_LOG_LEVEL: 'silent' });
  let instances: Array<Awaited<ReturnType<typeof createContainer>>> = [];

  beforeAll(async () => {
    instances = [];
    for (let index = 0; index < 2; index += 1) instances.push(await createContainer(config, { logDestination: { write: () => undefined } }));
  }, 60_000);

  afterAll(async () => {
    for (const instance of instances) await resolve(instance, TOKENS.storage).close();
    await dropSchema(schema);
  });

  it('failed client authentications: 5 spread over two instances, then the 6th is 429 with Retry-After on both', async () => {
    const [a, b] = instances.map((instance) => resolve(instance, TOKENS.httpApp)) as [Express, Express];
    const attempt = (app: Express, secret: string) =>
      request(app).post('/oauth/token').auth('shared-limit-client', secret).type('form').send({ grant_type: 'refresh_token', refresh_token: 'x' });
    for (const app of [a, b, a, b, a]) {
      const refused = await attempt(app, 'wrong');
      expect(refused.status).toBe(401);
      expect(refused.body).toMatchObject({ error: 'invalid_client' });
    }
    for (const app of [b, a]) {
      const limited = await attempt(app, 'wrong');
      expect(limited.status).toBe(429);
      expect(limited.body).toMatchObject({ error: 'temporarily_unavailable' });
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(300);
    }
  });

  it('failed sign-ins: the per-e-mail count is one across both stores; purge keeps live rows', async () => {
    const [storeA, storeB] = instances.map((instance) => resolve(instance, TOKENS.storage).failedAttempts);
    expect(storeA).toBeDefined();
    const limitsA = createAttemptLimits(systemClock, config.rateLimit, storeA);
    const limitsB = createAttemptLimits(systemClock, config.rateLimit, storeB);
    for (const [index, limits] of [limitsA, limitsB, limitsA, limitsB, limitsA].entries()) {
      expect(await limits.signIn.check('ada@example.com', `192.0.2.${index + 1}`)).toEqual({ limited: false });
      await limits.signIn.admit('ada@example.com', `192.0.2.${index + 1}`);
    }
    expect(await limitsB.signIn.check('ADA@example.com', '198.51.100.1')).toMatchObject({ limited: true });
    expect(await limitsB.signIn.check('bob@example.com', '198.51.100.1')).toEqual({ limited: false });
    expect(await storeB?.purgeExpired(Date.now())).toBe(0);
    expect(await limitsA.signIn.check('ada@example.com', '198.51.100.1')).toMatchObject({ limited: true });
  });

  it('sign-in attempts sent to both instances at once: only the limit is admitted (docs/decisions/0181)', async () => {
    const [storeA, storeB] = instances.map((instance) => resolve(instance, TOKENS.storage).failedAttempts);
    const limits = [createAttemptLimits(systemClock, config.rateLimit, storeA), createAttemptLimits(systemClock, config.rateLimit, storeB)];
    const answers = await Promise.all(Array.from({ length: 16 }, (_, index) => limits[index % 2]!.signIn.admit('burst@example.com', `203.0.113.${index + 1}`)));
    expect(answers.filter((answer) => !answer.limited)).toHaveLength(config.rateLimit.maxFailures);
  });

  it('the housekeeping purges the failure rows that have left the window, and only those', async () => {
    const [instance] = instances as [Awaited<ReturnType<typeof createContainer>>];
    const storage = resolve(instance, TOKENS.storage);
    const windowMs = config.rateLimit.windowSeconds * 1000;
    await storage.failedAttempts?.recordFailure([{ scope: 'email', key: 'sign-in:email:gone@example.com', max: 5 }], Date.now() - 2 * windowMs, windowMs);
    const removed = await purgeExpired(resolve(instance, TOKENS.gatehouse), storage);
    expect(removed.failedAttempts).toBe(1);
    expect((await storage.failedAttempts?.recentFailures([{ scope: 'email', key: 'sign-in:email:ada@example.com', max: 5 }], 0))?.[0]).toHaveLength(5);
  });
});
