import request from 'supertest';
import type { HttpMethod } from '../../resource/test-support/openapi.js';
import { ADMIN_PHONE, type Hardened } from './harness.js';

/** One bearer-protected route of the resource and admin APIs, with a request that succeeds for the admin. */
export interface ResourceRoute {
  method: HttpMethod;
  /** The path template of openapi.yaml. */
  template: string;
  path: string;
  /** A JSON body that the route accepts. */
  body?: unknown;
  /** The status of a successful request. */
  okStatus: number;
}

/** Every route of the resource and attribute administration APIs in openapi.yaml: ten in all. */
export function resourceRoutes(h: Pick<Hardened, 'account' | 'admin' | 'attributeKey'>): ResourceRoute[] {
  const accounts = `/admin/rest/v1/accounts/${h.account.accountKey}`;
  return [
    { method: 'get', template: '/identity/v1/Users/me', path: '/identity/v1/Users/me', okStatus: 200 },
    { method: 'post', template: '/messaging/v1/messages', path: '/messaging/v1/messages', body: { ownerPhoneNumber: ADMIN_PHONE, contactPhoneNumbers: ['+15559990000'], body: 'hello' }, okStatus: 201 },
    { method: 'get', template: '/messaging/v1/messages', path: `/messaging/v1/messages?ownerPhoneNumber=${encodeURIComponent(ADMIN_PHONE)}`, okStatus: 200 },
    { method: 'post', template: '/admin/rest/v1/accounts/{accountKey}/attributes', path: `${accounts}/attributes`, body: { name: 'division' }, okStatus: 201 },
    { method: 'get', template: '/admin/rest/v1/accounts/{accountKey}/attributes', path: `${accounts}/attributes?offset=0&pageSize=10`, okStatus: 200 },
    { method: 'get', template: '/admin/rest/v1/accounts/{accountKey}/attributes/{attributeKey}', path: `${accounts}/attributes/${h.attributeKey}`, okStatus: 200 },
    { method: 'put', template: '/admin/rest/v1/accounts/{accountKey}/attributes/{attributeKey}', path: `${accounts}/attributes/${h.attributeKey}`, body: { name: 'dept' }, okStatus: 200 },
    { method: 'put', template: '/admin/rest/v1/accounts/{accountKey}/users/{userKey}/attributes', path: `${accounts}/users/${h.admin.userKey}/attributes`, body: [{ key: h.attributeKey, value: 'Support' }], okStatus: 204 },
    { method: 'get', template: '/admin/rest/v1/accounts/{accountKey}/users/{userKey}/attributes', path: `${accounts}/users/${h.admin.userKey}/attributes`, okStatus: 200 },
    // Last: a successful delete takes the attribute the routes above use.
    { method: 'delete', template: '/admin/rest/v1/accounts/{accountKey}/attributes/{attributeKey}', path: `${accounts}/attributes/${h.attributeKey}`, okStatus: 204 },
  ];
}

/** Sends `route`'s request with `Authorization` set to `authorization` (when given). */
export function send(app: Parameters<typeof request>[0], route: ResourceRoute, authorization?: string): request.Test {
  let test = request(app)[route.method](route.path).set('Accept', 'application/json');
  if (authorization !== undefined) test = test.set('Authorization', authorization);
  return route.body === undefined ? test : test.send(route.body as object);
}
