import { createTestGatehouse } from '@gatehouse/core/testing';
import { describe, expect, it } from 'vitest';
import { createGatehouseApp } from '../app.js';
import { createMemoryFailureStore, type FailureStore, type LimitKey } from '../security/failure-store.js';
import { GatehouseSetupError } from '../security/shared-storage.js';
import { createHostApp, csrfFieldOf } from '../test-support/index.js';
import { createGatehouseRouter } from './router.js';

/** A failure store that remembers the keys it was told of (as a database shared by instances would hold them). */
function recordingStore(): FailureStore & { keys: string[] } {
  const inner = createMemoryFailureStore();
  const keys: string[] = [];
  return {
    keys,
    recentFailures: (limitKeys, since) => inner.recentFailures(limitKeys, since),
    recordFailure: (limitKeys: readonly LimitKey[], at, windowMs) => {
      keys.push(...limitKeys.map(({ key }) => key));
      return inner.recordFailure(limitKeys, at, windowMs);
    },
    admitFailure: (limitKey, at, windowMs) => {
      keys.push(limitKey.key);
      return inner.admitFailure(limitKey, at, windowMs);
    },
    withdrawFailure: (limitKeys, at) => inner.withdrawFailure(limitKeys, at),
  };
}

async function failSignIn(host: Awaited<ReturnType<typeof createHostApp>>) {
  await host.seedUser({ email: 'ada@example.com' });
  const browser = host.agent();
  const page = await browser.get('/auth/oauth/login');
  const refused = await browser.post('/auth/oauth/login').type('form').send({ email: 'ada@example.com', password: 'wrong', csrf_token: csrfFieldOf(page.text) });
  expect(refused.status).toBe(401);
}

// Issue #30 point 3 (docs/decisions/0145-embedders-production-wiring.md).
describe("the router on the host's storage", () => {
  it("counts failed sign-ins in the storage's shared failure counts when the host gives no failureStore", async () => {
    const failedAttempts = recordingStore();
    const host = await createHostApp({ routerOptions: { storage: { sharedByInstances: true, failedAttempts }, csrfKey: 'a shared csrf key of the instances' } });
    await failSignIn(host);
    expect(failedAttempts.keys).toContain('sign-in:email:ada@example.com');
  });

  it('a failureStore given by the host wins over the storage’s', async () => {
    const failedAttempts = recordingStore();
    const failureStore = recordingStore();
    const host = await createHostApp({ routerOptions: { storage: { failedAttempts }, failureStore } });
    await failSignIn(host);
    expect(failureStore.keys).toContain('sign-in:email:ada@example.com');
    expect(failedAttempts.keys).toEqual([]);
  });

  it('refuses to start on a storage shared by instances without a csrfKey, naming the fix', async () => {
    const { gatehouse } = await createTestGatehouse({ settings: { issuer: 'http://127.0.0.1/auth' } });
    const storage = { sharedByInstances: true, failedAttempts: recordingStore() };
    for (const build of [() => createGatehouseRouter({ gatehouse, storage }), () => createGatehouseApp({ gatehouse, storage }), () => createGatehouseRouter({ gatehouse, storage, csrfKey: '' })]) {
      expect(build).toThrow(GatehouseSetupError);
      expect(build).toThrow(/shared by several instances \(sharedByInstances\), but no csrfKey was given: give every instance the same csrfKey/);
    }
    expect(() => createGatehouseRouter({ gatehouse, storage, csrfKey: 'a shared csrf key of the instances' })).not.toThrow();
  });

  it('refuses to start on a storage shared by instances whose failures would be counted per process', async () => {
    const { gatehouse } = await createTestGatehouse({ settings: { issuer: 'http://127.0.0.1/auth' } });
    const build = () => createGatehouseRouter({ gatehouse, storage: { sharedByInstances: true }, csrfKey: 'a shared csrf key of the instances' });
    expect(build).toThrow(/failed sign-ins would be counted in this process's memory: give a failureStore every instance shares/);
    expect(() => createGatehouseRouter({ gatehouse, storage: { sharedByInstances: true }, csrfKey: 'k'.repeat(32), failureStore: recordingStore() })).not.toThrow();
  });

  it('starts as before on a storage of one instance, or without a storage', async () => {
    const { gatehouse } = await createTestGatehouse({ settings: { issuer: 'http://127.0.0.1/auth' } });
    expect(() => createGatehouseRouter({ gatehouse, storage: { sharedByInstances: false } })).not.toThrow();
    expect(() => createGatehouseRouter({ gatehouse })).not.toThrow();
  });
});
