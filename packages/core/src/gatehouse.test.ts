import { decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import { createTestGatehouse } from './testing/index.js';
import { depsOf } from './gatehouse.js';

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

  it('offers every use case of the shared gatehouse, destructured or not, each carrying the request id', async () => {
    const t = await createTestGatehouse();
    await t.seedUser({ email: 'ada@example.com', password: 'correct horse' });
    const scoped = t.gatehouse.forRequest('req-3');
    const useCaseNames = Object.keys(t.gatehouse).filter((name) => name !== 'forRequest').sort();
    for (const name of useCaseNames) expect(typeof (scoped as unknown as Record<string, unknown>)[name], name).toBe(typeof (t.gatehouse as unknown as Record<string, unknown>)[name]);
    const { signIn } = scoped;
    await signIn({ email: 'ada@example.com', password: 'correct horse' });
    expect(t.audit.events.map(({ type, requestId }) => ({ type, requestId }))).toEqual([{ type: 'sign_in.succeeded', requestId: 'req-3' }]);
  });

  it('shares the ports: what one request writes, the others and the shared gatehouse read', async () => {
    const t = await createTestGatehouse();
    const { client, clientSecret } = await t.gatehouse.forRequest('req-1').registerClient({ name: 'App', redirectUris: ['https://app.example/cb'], scopes: ['messaging.v1.send'] });
    expect(t.audit.ofType('client.created')[0]).toMatchObject({ clientId: client.clientId, requestId: 'req-1' });
    await expect(t.gatehouse.authenticateClient({ clientId: client.clientId, clientSecret })).resolves.toMatchObject({ clientId: client.clientId });
    expect(depsOf(t.gatehouse.forRequest('req-2')).repos).toBe(depsOf(t.gatehouse).repos);
    expect(depsOf(t.gatehouse.forRequest('req-2')).keys).toBe(depsOf(t.gatehouse).keys);
  });
});

describe('the Gatehouse interface', () => {
  it('shows its settings and clock, and no ports', async () => {
    const t = await createTestGatehouse({ settings: { scopes: [{ scope: 'orders.v1.read', description: 'See your orders' }] } });
    expect(t.gatehouse.settings).toBe(t.settings);
    expect(t.gatehouse.settings.scopes).toEqual([{ scope: 'orders.v1.read', description: 'See your orders' }]);
    expect(t.gatehouse.clock).toBe(t.clock);
    expect(t.gatehouse.forRequest('req-1').settings).toBe(t.settings);
    expect(t.gatehouse).not.toHaveProperty('deps');
    expect(t.gatehouse.forRequest('req-1')).not.toHaveProperty('deps');
  });

  it('finds users (without the password hash) and accounts, and lists phone numbers', async () => {
    const t = await createTestGatehouse();
    const { accountKey } = await t.seedAccount('Acme');
    const user = await t.seedUser({ email: 'ada@example.com', phone: '+15551234567' });
    const found = await t.product.findUserByEmail(' ada@example.com ');
    expect(found).toEqual({ userKey: user.userKey, email: 'ada@example.com', givenName: user.givenName, familyName: user.familyName, locale: user.locale });
    expect(found).not.toHaveProperty('passwordHash');
    expect(await t.product.findUserByEmail('nobody@example.com')).toBeUndefined();
    expect(await t.product.findAccount(accountKey)).toEqual({ accountKey, name: 'Acme' });
    expect(await t.product.findAccount('nope')).toBeUndefined();
    expect(await t.product.listPhoneNumbers(user.userKey)).toEqual(['+15551234567']);
  });

  it('names the key new tokens are signed with', async () => {
    const t = await createTestGatehouse();
    const kid = await t.gatehouse.currentSigningKeyId();
    expect((await t.gatehouse.jwks()).keys.map((key) => key.kid)).toEqual([kid]);
    const tokens = await t.obtainTokens({ client: (await t.seedClient()).client, user: await t.seedUser() });
    expect(decodeProtectedHeader(tokens.access_token).kid).toBe(kid);
  });
});
