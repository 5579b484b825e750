import { describe, expect, it } from 'vitest';
import { createTestGatehouse } from '@gatehouse/core/testing';
import { DomainError } from '../errors.js';
import { rejectionOf } from '../test-support/rejections.js';
import { clientLinkProblem, clientLinks } from './client-presentation.js';

const valid = { name: 'Demo', redirectUris: ['https://app.example/cb'], scopes: ['messaging.v1.send'] };
const LINKS = { clientUri: 'https://app.example/', logoUri: 'https://cdn.app.example/logo.png', policyUri: 'https://app.example/privacy', tosUri: 'http://127.0.0.1:3000/terms' };

describe('clientLinks (docs/decisions/0155)', () => {
  it('accepts https, and http on loopback except for the logo; trims; empty removes; absent keeps', () => {
    expect(clientLinks({ ...LINKS, clientUri: ' https://app.example/ ' })).toEqual(LINKS);
    expect(clientLinks({ clientUri: '', policyUri: null }, LINKS)).toEqual({ logoUri: LINKS.logoUri, tosUri: LINKS.tosUri });
    expect(clientLinkProblem('logoUri', 'http://127.0.0.1/logo.png')).toBe('must use https');
  });

  it.each([
    ['clientUri', 'http://app.example/'],
    ['policyUri', 'javascript:alert(1)'],
    ['tosUri', 'data:text/html,hi'],
    ['clientUri', '/relative'],
    ['clientUri', 'https://bank.example@evil.example/'],
    ['logoUri', 'http://127.0.0.1/logo.png'],
    ['tosUri', `https://app.example/${'x'.repeat(1000)}`],
  ])('refuses %s (case %#), naming the field', (field, uri) => {
    let error: unknown;
    try {
      clientLinks({ [field]: uri });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ kind: 'invalid', field });
  });
});

describe('a client’s links and first-party mark', () => {
  it('are stored at registration, kept by an update that does not name them, removed when emptied', async () => {
    const t = await createTestGatehouse();
    const { client } = await t.gatehouse.registerClient({ ...valid, ...LINKS, firstParty: true });
    expect(client).toMatchObject({ ...LINKS, firstParty: true });
    expect(await t.repositories.clients.findById(client.clientId)).toMatchObject({ ...LINKS, firstParty: true });
    const kept = await t.gatehouse.updateClient({ ownerUserKey: null, clientId: client.clientId, ...valid, name: 'Renamed' });
    expect(kept).toMatchObject({ ...LINKS, firstParty: true, name: 'Renamed' });
    const emptied = await t.gatehouse.updateClient({ ownerUserKey: null, clientId: client.clientId, ...valid, logoUri: '', firstParty: false });
    expect(emptied).not.toHaveProperty('logoUri');
    expect(emptied).not.toHaveProperty('firstParty');
    expect(await t.repositories.clients.findById(client.clientId)).toEqual(emptied);
  });

  it('first-party is the operator’s to set: an owner’s update naming it is refused and changes nothing', async () => {
    const t = await createTestGatehouse();
    const owner = await t.seedUser();
    const { client } = await t.gatehouse.registerClient({ ...valid, ownerUserKey: owner.userKey });
    const error = await rejectionOf(t.gatehouse.updateClient({ ownerUserKey: owner.userKey, clientId: client.clientId, ...valid, name: 'Mine', firstParty: true }));
    expect(error).toMatchObject({ kind: 'invalid', field: 'firstParty' });
    expect(await t.repositories.clients.findById(client.clientId)).toEqual(client);
  });

  it('presentClient says who registered it: the owner’s e-mail, the operator, or the client itself', async () => {
    const t = await createTestGatehouse();
    const owner = await t.seedUser();
    const owned = await t.gatehouse.registerClient({ ...valid, ownerUserKey: owner.userKey, ...LINKS });
    expect(await t.gatehouse.presentClient(owned.client)).toMatchObject({ registeredBy: { kind: 'user', email: owner.email }, links: LINKS, firstParty: false });
    const operators = await t.gatehouse.registerClient({ ...valid, firstParty: true });
    expect(await t.gatehouse.presentClient(operators.client)).toMatchObject({ registeredBy: { kind: 'operator' }, links: {}, firstParty: true });
    const agent = {
      ...operators.client,
      registration: { kind: 'dynamic' as const, registrationAccessTokenHash: 'h', anonymous: true, firstUsedAt: null, metadata: { clientUri: 'http://agent.example/', policyUri: 'https://agent.example/privacy', logoUri: 'https://agent.example/logo.png' } },
    };
    // A self-registered client's own links, those that pass the rule (http off loopback does not),
    // never its logo (decision 0174); never first-party.
    const presented = await t.gatehouse.presentClient({ ...agent, firstParty: true });
    expect(presented).toMatchObject({ registeredBy: { kind: 'itself' }, firstParty: false });
    expect(presented.links).toEqual({ policyUri: 'https://agent.example/privacy' });
    const documented = { ...agent, clientId: 'https://agent.example/client.json', registration: { kind: 'metadata-document' as const, documentHash: 'h', documentExpiresAt: new Date(0), firstUsedAt: null, metadata: { logoUri: 'https://agent.example/logo.png', tosUri: 'https://agent.example/terms' } } };
    expect((await t.gatehouse.presentClient(documented)).links).toEqual({ tosUri: 'https://agent.example/terms' });
    // The same logo on a client the operator registered is shown.
    const reviewed = await t.gatehouse.registerClient({ ...valid, logoUri: 'https://agent.example/logo.png' });
    expect((await t.gatehouse.presentClient(reviewed.client)).links).toEqual({ logoUri: 'https://agent.example/logo.png' });
  });
});
