import { createTestGatehouse, type TestGatehouse } from '@gatehouse/core/testing';
import type { Client, User } from '@gatehouse/core';
import type { Express } from 'express';
import supertest from 'supertest';
import { createGatehouseApp } from '../../app.js';

export const ADMIN_PHONE = '+15550000001';
export const MEMBER_PHONE = '+15550000002';

export interface ResourceHarness {
  t: TestGatehouse;
  app: Express;
  http: ReturnType<typeof supertest>;
  account: { accountKey: string; name: string };
  /** Admin of `account`, owns ADMIN_PHONE. */
  admin: User;
  /** Member (not admin) of `account`, owns MEMBER_PHONE. */
  member: User;
  /** In no account, no phone. */
  outsider: User;
  client: Client;
  /** An access token of `user` through the real authorize → consent → exchange flow (all client scopes unless `scope`). */
  tokenFor(user: User, scope?: string): Promise<string>;
}

/** The whole Gatehouse app on in-memory repositories, with an account, an admin, a member and an outsider. */
export async function createResourceHarness(
  options: Parameters<typeof createTestGatehouse>[0] = {},
): Promise<ResourceHarness> {
  const t = await createTestGatehouse(options);
  const app = createGatehouseApp({ gatehouse: t.gatehouse, product: t.product });
  const account = await t.seedAccount('Acme');
  const admin = await t.seedUser({ email: 'ada@example.com', givenName: 'Ada', familyName: 'Lovelace', accountKey: account.accountKey, role: 'admin', phone: ADMIN_PHONE });
  const member = await t.seedUser({ email: 'mel@example.com', givenName: 'Mel', familyName: 'Member', accountKey: account.accountKey, role: 'member', phone: MEMBER_PHONE });
  const outsider = await t.seedUser({ email: 'otto@example.com', givenName: 'Otto', familyName: 'Outside' });
  const { client } = await t.seedClient();
  return {
    t,
    app,
    http: supertest(app),
    account,
    admin,
    member,
    outsider,
    client,
    async tokenFor(user, scope) {
      const tokens = await t.obtainTokens({ client, user, ...(scope === undefined ? {} : { scope }) });
      return tokens.access_token;
    },
  };
}

export function bearer(token: string): Record<string, string> {
  return { Authorization: `Bearer ${token}` };
}
