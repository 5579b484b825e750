import { describe, expect, it } from 'vitest';
import { createTestGatehouse } from './testing/index.js';

describe('gatehouse.forRequest', () => {
  it('records the audit events of its calls with the request id, and the shared gatehouse without one', async () => {
    const t = await createTestGatehouse();
    await t.seedUser({ email: 'ada@example.com', password: 'correct horse' });
    await t.gatehouse.forRequest('req-1').signIn({ email: 'ada@example.com', password: 'correct horse' }).catch(() => undefined);
    await t.gatehouse.forRequest('req-2').signIn({ email: 'ada@example.com', password: 'wrong' }).catch(() => undefined);
    await t.gatehouse.signIn({ email: 'ada@example.com', password: 'correct horse' });
    expect(t.audit.events.map(({ type, requestId }) => ({ type, requestId }))).toEqual([
      { type: 'sign_in.succeeded', requestId: 'req-1' },
      { type: 'sign_in.failed', requestId: 'req-2' },
      { type: 'sign_in.succeeded', requestId: undefined },
    ]);
    expect(t.audit.events[2]).not.toHaveProperty('requestId');
  });

  it('shares the ports: what one request writes, the others and the shared gatehouse read', async () => {
    const t = await createTestGatehouse();
    const { client, clientSecret } = await t.gatehouse.forRequest('req-1').registerClient({ name: 'App', redirectUris: ['https://app.example/cb'], scopes: ['messaging.v1.send'] });
    expect(t.audit.ofType('client.created')[0]).toMatchObject({ clientId: client.clientId, requestId: 'req-1' });
    await expect(t.gatehouse.authenticateClient({ clientId: client.clientId, clientSecret })).resolves.toMatchObject({ clientId: client.clientId });
    expect(t.gatehouse.forRequest('req-2').deps.repos).toBe(t.gatehouse.deps.repos);
    expect(t.gatehouse.forRequest('req-2').deps.keys).toBe(t.gatehouse.deps.keys);
  });
});
