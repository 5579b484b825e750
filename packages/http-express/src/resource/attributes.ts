import type { Gatehouse, ProductApi } from '@gatehouse/core';
import { Router, type Response } from 'express';
import * as v from 'valibot';
import { bearerAuth, requireScope, userKeyOf } from '../bearer/bearer.js';
import { methodNotAllowed } from '../problem/error-handler.js';
import { jsonBody } from './body.js';
import { parseJsonBody, parsePathParam, parseQuery, wholeNumberParam } from './validation.js';

export const ACCOUNT_PATH = '/admin/rest/v1/accounts/:accountKey';
export const READ_SCOPE = 'admin.v1.attributes.read';
export const WRITE_SCOPE = 'admin.v1.attributes.write';

/** Name rules (trimmed, 1..64, no control characters, unique ignoring case) are the core's; the edge checks the shape. */
const AttributeNameBody = v.strictObject({ name: v.string('must be a string') }, 'must be a JSON object with a name');

const UserValuesBody = v.array(
  v.strictObject(
    { key: v.string('must be a string (an attribute key)'), value: v.nullable(v.string('must be a string, or null to remove the value')) },
    'must be an object { key, value }',
  ),
  'must be a JSON array of { key, value }',
);

const ListQuery = v.object({
  offset: v.optional(wholeNumberParam('offset', 0, 2_147_483_647)),
  pageSize: v.optional(wholeNumberParam('pageSize', 1, 1000)),
});

/**
 * The seven attribute routes of the API reference (openapi.yaml) under `/admin/rest/v1/accounts/{accountKey}`. Reading
 * needs `admin.v1.attributes.read`, writing `admin.v1.attributes.write` (write does not imply read,
 * ADR 0032); the core lets only an admin of the account through (member 403, others 404).
 * The routes are added to `router` (a new one by default). The bearer check is `gatehouse`'s, the
 * answers `product`'s (docs/decisions/0161).
 */
export function attributesRouter(gatehouse: Gatehouse, product: ProductApi, router: Router = Router()): Router {
  const authenticated = bearerAuth(gatehouse);
  const canRead = [authenticated, requireScope(READ_SCOPE)];
  const canWrite = [authenticated, requireScope(WRITE_SCOPE)];
  const canWriteJson = [...canWrite, jsonBody];

  router
    .route(`${ACCOUNT_PATH}/attributes`)
    .post(...canWriteJson, async (req, res) => {
      const { name } = parseJsonBody(req, AttributeNameBody);
      const accountKey = parsePathParam(req, 'accountKey');
      const attribute = await product.createAttribute({ ...actor(res), accountKey, name });
      // Under the path the router is mounted at (the issuer's, in the reference server: docs/decisions/0183).
      noStore(res).status(201).location(`${req.baseUrl}${accountPath(accountKey)}/attributes/${encodeURIComponent(attribute.key)}`).json(attribute);
    })
    .get(...canRead, async (req, res) => {
      const { offset, pageSize } = parseQuery(req, ListQuery);
      const page = await product.listAttributes({
        ...actor(res),
        accountKey: parsePathParam(req, 'accountKey'),
        ...(offset === undefined ? {} : { offset }),
        ...(pageSize === undefined ? {} : { pageSize }),
      });
      noStore(res).json({ results: page.results, total: page.total });
    })
    .all(methodNotAllowed(['GET', 'POST']));

  router
    .route(`${ACCOUNT_PATH}/attributes/:attributeKey`)
    .get(...canRead, async (req, res) => {
      const attribute = await product.getAttribute({ ...actor(res), accountKey: parsePathParam(req, 'accountKey'), key: parsePathParam(req, 'attributeKey') });
      noStore(res).json(attribute);
    })
    .put(...canWriteJson, async (req, res) => {
      const { name } = parseJsonBody(req, AttributeNameBody);
      const attribute = await product.renameAttribute({
        ...actor(res),
        accountKey: parsePathParam(req, 'accountKey'),
        key: parsePathParam(req, 'attributeKey'),
        name,
      });
      noStore(res).json(attribute);
    })
    .delete(...canWrite, async (req, res) => {
      await product.deleteAttribute({ ...actor(res), accountKey: parsePathParam(req, 'accountKey'), key: parsePathParam(req, 'attributeKey') });
      res.status(204).end();
    })
    .all(methodNotAllowed(['GET', 'PUT', 'DELETE']));

  router
    .route(`${ACCOUNT_PATH}/users/:userKey/attributes`)
    .put(...canWriteJson, async (req, res) => {
      const values = parseJsonBody(req, UserValuesBody);
      await product.setUserAttributes({ ...actor(res), accountKey: parsePathParam(req, 'accountKey'), userKey: parsePathParam(req, 'userKey'), values });
      res.status(204).end();
    })
    .get(...canRead, async (req, res) => {
      const values = await product.getUserAttributes({ ...actor(res), accountKey: parsePathParam(req, 'accountKey'), userKey: parsePathParam(req, 'userKey') });
      noStore(res).json(values.map(({ key, name, value }) => ({ key, name, value })));
    })
    .all(methodNotAllowed(['GET', 'PUT']));

  return router;
}

function actor(res: Response): { actorUserKey: string } {
  // An administrator acts: a client's own token has no user (403).
  return { actorUserKey: userKeyOf(res) };
}

function accountPath(accountKey: string): string {
  return `/admin/rest/v1/accounts/${encodeURIComponent(accountKey)}`;
}

function noStore(res: Response): Response {
  return res.setHeader('Cache-Control', 'no-store');
}
