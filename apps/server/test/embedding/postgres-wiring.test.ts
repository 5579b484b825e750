import { createGatehouse, createProductApi, defineSettings } from '@gatehouse/core';
import { createGatehouseRouter, GatehouseSetupError, startMaintenance } from '@gatehouse/http-express';
import { openPostgresStorage, type PostgresStorage } from '@gatehouse/storage-postgres';
import express from 'express';
import pg from 'pg';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropSchema, freshSchemaName, POSTGRES_URL, warnIfSkipped } from '../multi-instance/support/postgres.js';

warnIfSkipped('the production wiring of an embedder on PostgreSQL');

// Issue #30 point 3 with the real adapters (docs/decisions/0145-embedders-production-wiring.md): a
// host gives Gatehouse's router its PostgreSQL storage; failures land in the table every instance
// reads, a missing shared csrfKey stops the start, and the maintenance runner purges both.
describe.skipIf(!POSTGRES_URL)('an embedder on PostgreSQL: the router on the storage', () => {
  const schema = freshSchemaName();
  let storage: PostgresStorage;
  const issuer = 'http://127.0.0.1/auth';

  beforeAll(async () => {
    storage = await openPostgresStorage({ connectionString: POSTGRES_URL as string, schema, poolSize: 2, signingKeySecret: 'a signing key secret of at least 32 characters' });
    await storage.migrate();
  });
  afterAll(async () => {
    await storage?.close();
    await dropSchema(schema);
  });

  /** The host's clock, moved by the test (the router's limits and the purge read it): the failure window passes without waiting. */
  const clock = { at: Date.now(), now: () => new Date(clock.at) };
  const gatehouseOn = () => createGatehouse({ repositories: storage.repositories, settings: defineSettings({ issuer }), clock });

  it('refuses to start without a shared csrfKey: PostgreSQL is shared by instances unless told otherwise', () => {
    const gatehouse = gatehouseOn();
    expect(storage.sharedByInstances).toBe(true);
    expect(() => createGatehouseRouter({ gatehouse, storage })).toThrow(GatehouseSetupError);
    expect(() => createGatehouseRouter({ gatehouse, storage })).toThrow(/no csrfKey was given/);
  });

  it("counts a failed sign-in in the storage's shared table, and the maintenance runner purges it once its window has passed", async () => {
    const gatehouse = gatehouseOn();
    await createProductApi({ gatehouse, repositories: storage.repositories }).createUser({ email: 'ada@example.com', password: 'a long enough password' });
    const app = express();
    app.use('/auth', createGatehouseRouter({ gatehouse, storage, csrfKey: 'a csrf key every instance shares', rateLimit: { maxFailures: 5, windowSeconds: 1 } }));
    const browser = request.agent(app);
    const page = await browser.get('/auth/oauth/login');
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(page.text)?.[1] as string;
    expect((await browser.post('/auth/oauth/login').type('form').send({ email: 'ada@example.com', password: 'wrong', csrf_token: csrf })).status).toBe(401);

    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    try {
      const keys = async () => (await client.query<{ key: string }>(`select key from "${schema}".gatehouse_failed_attempts order by key`)).rows.map((row) => row.key);
      expect(await keys()).toContain('sign-in:email:ada@example.com');
      // The window (1 s) passes on the host's clock; one run of the runner purges the counts with the core's records.
      clock.at += 1100;
      const maintenance = startMaintenance({ gatehouse, storage, intervalMs: 60_000 });
      const removed = await maintenance.runNow();
      await maintenance.stop();
      expect(removed.failedAttempts).toBeGreaterThanOrEqual(1);
      expect(await keys()).toEqual([]);
    } finally {
      await client.end();
    }
  }, 30_000);
});
