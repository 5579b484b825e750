import type { CurrentUser, Gatehouse, ProductApi } from '@gatehouse/core';
import { Router } from 'express';
import { bearerAuth, userKeyOf } from '../bearer/bearer.js';
import { sendJsonAnswer } from '../json-answer.js';
import { methodNotAllowed } from '../problem/error-handler.js';

export const SCIM_USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const ACCOUNTS_EXTENSION_SCHEMA = 'urn:gatehouse:scim:schemas:extension:accounts:1.0';

/** RFC 7644 §3.1: the SCIM media type, sent when the client asks for it. */
const SCIM_MEDIA_TYPE = 'application/scim+json';

/** The SCIM-style user of the API reference, openapi.yaml `User` (RFC 7643 §4.1 attribute names, plus the accounts extension). */
export interface ScimUser {
  schemas: [typeof SCIM_USER_SCHEMA, typeof ACCOUNTS_EXTENSION_SCHEMA];
  id: string;
  userName: string;
  name: { givenName: string; familyName: string };
  displayName: string;
  emails: Array<{ value: string; primary: true }>;
  locale: string;
  [ACCOUNTS_EXTENSION_SCHEMA]: { accounts: Array<{ value: string; display: string; roles: string[] }> };
}

export function toScimUser({ user, memberships }: CurrentUser): ScimUser {
  const fullName = `${user.givenName} ${user.familyName}`.trim();
  return {
    schemas: [SCIM_USER_SCHEMA, ACCOUNTS_EXTENSION_SCHEMA],
    id: user.userKey,
    userName: user.email,
    name: { givenName: user.givenName, familyName: user.familyName },
    displayName: fullName === '' ? user.email : fullName,
    emails: [{ value: user.email, primary: true }],
    locale: user.locale,
    [ACCOUNTS_EXTENSION_SCHEMA]: {
      accounts: memberships.map(({ account, role }) => ({ value: account.accountKey, display: account.name, roles: [role] })),
    },
  };
}

/** `GET /identity/v1/Users/me`: any valid user's token, no particular scope (a client's own token is a 403). Added to `router` (a new one by default). The bearer check is `gatehouse`'s, the answer `product`'s (docs/decisions/0161). */
export function identityRouter(gatehouse: Gatehouse, product: ProductApi, router: Router = Router()): Router {
  router
    .route('/identity/v1/Users/me')
    .get(bearerAuth(gatehouse), async (req, res) => {
      const body = toScimUser(await product.currentUser(userKeyOf(res)));
      // application/json unless the client prefers the SCIM type (decision 0033).
      const type = req.accepts(['application/json', SCIM_MEDIA_TYPE]) === SCIM_MEDIA_TYPE ? SCIM_MEDIA_TYPE : 'application/json';
      // The type follows Accept: a cache (were it allowed one) must key on it (RFC 9110 §12.5.5).
      sendJsonAnswer(res, 200, body, { 'Cache-Control': 'no-store', Vary: 'Accept' }, type);
    })
    .all(methodNotAllowed(['GET']));
  return router;
}
