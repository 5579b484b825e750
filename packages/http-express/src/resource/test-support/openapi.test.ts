import { describe, expect, it } from 'vitest';
import { expectMatchesOpenApi, expectMatchesSchema } from './openapi.js';

const PATH = '/admin/rest/v1/accounts/{accountKey}/attributes';
const json = (status: number, body: unknown, headers: Record<string, string> = {}) => ({
  status,
  headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  text: JSON.stringify(body),
});
const problem = { type: 'urn:gatehouse:problem:conflict', title: 'Conflict', status: 409, detail: 'Taken.', errorCode: 'CONFLICT' };

describe('expectMatchesOpenApi', () => {
  it('passes a response the document describes', () => {
    expect(() => expectMatchesOpenApi(json(201, { key: 'k1', name: 'department' }, { location: '/admin/rest/v1/accounts/a/attributes/k1' }), 'post', PATH)).not.toThrow();
  });

  it('fails on an undocumented member, a missing member or a wrong type', () => {
    const location = { location: '/x' };
    expect(() => expectMatchesOpenApi(json(201, { key: 'k1', name: 'd', extra: 1 }, location), 'post', PATH)).toThrow(/additional/);
    expect(() => expectMatchesOpenApi(json(201, { key: 'k1' }, location), 'post', PATH)).toThrow(/name/);
    expect(() => expectMatchesOpenApi(json(201, { key: 1, name: 'd' }, location), 'post', PATH)).toThrow(/string/);
  });

  it('fails on an undocumented status, media type or operation, and on a missing required header', () => {
    expect(() => expectMatchesOpenApi(json(418, {}), 'post', PATH)).toThrow(/418 is not documented/);
    expect(() => expectMatchesOpenApi(json(409, problem), 'post', PATH)).toThrow(/media type/);
    expect(() => expectMatchesOpenApi(json(200, {}), 'patch', PATH)).toThrow(/no operation/);
    expect(() => expectMatchesOpenApi(json(201, { key: 'k1', name: 'd' }), 'post', PATH)).toThrow(/Location is missing/);
  });

  it('checks problem bodies and bodies where none is described', () => {
    const asProblem = { ...json(409, problem), headers: { 'content-type': 'application/problem+json; charset=utf-8' } };
    expect(() => expectMatchesOpenApi(asProblem, 'post', PATH)).not.toThrow();
    expect(() => expectMatchesOpenApi({ ...asProblem, text: JSON.stringify({ ...problem, stack: 'Error at ...' }) }, 'post', PATH)).toThrow(/additional/);
    expect(() => expectMatchesOpenApi({ ...asProblem, text: JSON.stringify({ ...problem, errorCode: 'TEAPOT' }) }, 'post', PATH)).toThrow(/allowed values/);
    const deleted = { status: 204, headers: {}, text: '' };
    expect(() => expectMatchesOpenApi(deleted, 'delete', `${PATH}/{attributeKey}`)).not.toThrow();
    expect(() => expectMatchesOpenApi({ ...deleted, text: '{}' }, 'delete', `${PATH}/{attributeKey}`)).toThrow(/without a body/);
  });

  it('checks a value against a named schema', () => {
    expect(() => expectMatchesSchema(problem, 'Problem')).not.toThrow();
    expect(() => expectMatchesSchema({ ...problem, status: 200 }, 'Problem')).toThrow(/>= 400/);
  });
});
