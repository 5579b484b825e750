import type { Client, User } from '@gatehouse/core';
import { createMemoryRepositories, createTestGatehouse, type TestGatehouse } from '@gatehouse/core/testing';
import type express from 'express';
import request from 'supertest';
import { createGatehouseApp } from '../../app.js';
import type { RateLimitSettings } from '../../security/rate-limit.js';
import { basicAuth, createRecordingLogger, TestBrowser, type RecordingLogger } from '../../test-support/index.js';
import { createStorageOutages, watchStorage, type StorageOutages } from '../../storage-outages.js';
import { recordWrites, type WriteCall } from './recording-repositories.js';

export const PASSWORD = 'password123';
export const ADMIN_PHONE = '+15550000001';
export const MEMBER_PHONE = '+15550000002';
export const ALL_SCOPES = ['messaging.v1.send', 'messaging.v1.read', 'admin.v1.attributes.read', 'admin.v1.attributes.write'];

export interface Hardened extends TestGatehouse {
  app: express.Express;
  logger: RecordingLogger;
  /** Every repository call that may write, with whether it changed anything. */
  writes: WriteCall[];
  /** Repository methods (`grants.findById`, or `*`) that throw until removed: a failing database. */
  faults: Set<string>;
  /** The same, throwing a `StorageUnavailableError`: a database outage. */
  unavailable: Set<string>;
  /** The app's outage tracker (the repositories are watched by it). */
  storageOutages: StorageOutages;
  account: { accountKey: string; name: string };
  /** Admin of `account`, owns ADMIN_PHONE. */
  admin: User;
  /** Member of `account`, owns MEMBER_PHONE. */
  member: User;
  client: Client;
  clientSecret: string;
  /** An attribute name of `account`, with a value on `admin`. */
  attributeKey: string;
  browser(): TestBrowser;
  signedInBrowser(email: string): Promise<TestBrowser>;
  /** An access token of `user` (core flow, all client scopes unless `scope`). */
  tokenFor(user: User, scope?: string): Promise<{ access_token: string; refresh_token: string }>;
  /** The code flow over HTTP for a signed-in browser: the code on the redirect. */
  codeOverHttp(browser: TestBrowser, client?: Client, extra?: Record<string, string | undefined>): Promise<string>;
  /** POST /oauth/token with Basic credentials of `client` (default: the seeded one). */
  token(fields: Record<string, string>, client?: { clientId: string; secret: string }): request.Test;
  /** The observable state of every seeded record, for before/after comparison. */
  snapshot(): Promise<string>;
}

/**
 * The whole Gatehouse app on in-memory repositories that record their writes, seeded with an
 * account (admin + member with phones), a client with every scope, an attribute with a value,
 * a signing key and one live grant. Rate limits are generous unless `rateLimit` is given.
 */
export async function createHardenedApp(options: { rateLimit?: RateLimitSettings } = {}): Promise<Hardened> {
  const logger = createRecordingLogger();
  const storageOutages = createStorageOutages({ logger });
  const recorded = recordWrites(createMemoryRepositories());
  const { writes, faults, unavailable } = recorded;
  const t = await createTestGatehouse({ repositories: watchStorage(recorded.repositories, storageOutages) });
  const app = createGatehouseApp({ gatehouse: t.gatehouse, product: t.product, logger, storageOutages, rateLimit: options.rateLimit ?? { maxFailures: 100_000, windowSeconds: 60 } });
  const account = await t.seedAccount('Acme');
  const admin = await t.seedUser({ email: 'ada@example.com', accountKey: account.accountKey, role: 'admin', phone: ADMIN_PHONE });
  const member = await t.seedUser({ email: 'mel@example.com', accountKey: account.accountKey, role: 'member', phone: MEMBER_PHONE });
  const { client, clientSecret } = await t.seedClient({ name: 'Hardening app', scopes: ALL_SCOPES, ownerUserKey: admin.userKey });
  const { key: attributeKey } = await t.product.createAttribute({ actorUserKey: admin.userKey, accountKey: account.accountKey, name: 'department' });
  await t.product.setUserAttributes({ actorUserKey: admin.userKey, accountKey: account.accountKey, userKey: admin.userKey, values: [{ key: attributeKey, value: 'Sales' }] });
  await t.obtainTokens({ client, user: admin });

  const users = [admin, member];
  const h: Hardened = {
    ...t,
    app,
    logger,
    writes,
    faults,
    unavailable,
    storageOutages,
    account,
    admin,
    member,
    client,
    clientSecret,
    attributeKey,
    browser: () => new TestBrowser(app),
    async signedInBrowser(email) {
      const browser = new TestBrowser(app);
      const res = await browser.signIn(email, PASSWORD);
      if (res.status !== 303) throw new Error(`sign-in of ${email} failed with ${res.status}`);
      return browser;
    },
    async tokenFor(user, scope) {
      const tokens = await t.obtainTokens({ client, user, ...(scope === undefined ? {} : { scope }) });
      if (tokens.refresh_token === undefined) throw new Error('the harness client is registered for the refresh_token grant: a refresh token was expected');
      return { ...tokens, refresh_token: tokens.refresh_token };
    },
    async codeOverHttp(browser, which = client, extra = {}) {
      const { code } = await browser.authorize(which, extra);
      if (code === undefined) throw new Error('no code in the redirect');
      return code;
    },
    token(fields, who = { clientId: client.clientId, secret: clientSecret }) {
      return request(app).post('/oauth/token').set('Authorization', basicAuth(who.clientId, who.secret)).type('form').send(new URLSearchParams(fields).toString());
    },
    async snapshot() {
      const r = t.repositories;
      const state = {
        clients: await r.clients.listAll(),
        users: await Promise.all(
          users.map(async (user) => ({
            user: await r.users.findByKey(user.userKey),
            phones: await r.users.listPhoneNumbers(user.userKey),
            memberships: (await r.users.findWithMemberships(user.userKey))?.memberships,
            grants: await r.grants.listActiveByUser(user.userKey),
            values: await r.attributes.listUserValues(account.accountKey, user.userKey),
          })),
        ),
        attributes: await r.attributes.list(account.accountKey, { offset: 0, limit: 10_000 }),
        messages: [await r.messages.listByOwner(ADMIN_PHONE, { limit: 10_000 }), await r.messages.listByOwner(MEMBER_PHONE, { limit: 10_000 })],
        keys: (await r.signingKeys.list()).map((key) => ({ kid: key.kid, retiredAt: key.retiredAt })),
      };
      return JSON.stringify(state);
    },
  };
  writes.length = 0;
  return h;
}
