import type { Request } from 'express';
import * as v from 'valibot';
import { HttpProblem, invalidRequest, problem, type InvalidParam } from '../problem/problem.js';

/**
 * Parses a JSON body with a valibot schema at the edge. A body that is not JSON is a 415,
 * a wrong shape a 400 naming every field at fault (`name`, `[0].value`, `contactPhoneNumbers`).
 */
export function parseJsonBody<TSchema extends v.GenericSchema>(req: Request, schema: TSchema): v.InferOutput<TSchema> {
  if (!isJsonRequest(req)) {
    throw new HttpProblem(problem('unsupported-media-type', 'The request body must be JSON, sent with Content-Type: application/json.'));
  }
  // valibot takes an array for an object (its keys "0", "1" … would be unknown fields): say what is wrong.
  if (OBJECT_SCHEMAS.has(schema.type) && Array.isArray(req.body)) throw invalidRequest([{ name: 'body', reason: 'must be a JSON object' }]);
  return parseWith(schema, req.body);
}

const OBJECT_SCHEMAS = new Set(['object', 'strict_object', 'loose_object', 'object_with_rest']);

/**
 * Parses the query string. Every parameter may appear once: a repeated one (`?pageSize=1&pageSize=2`)
 * or a structured one (`?pageSize[a]=1`) is a 400 naming it, before the schema sees the values.
 */
export function parseQuery<TSchema extends v.GenericSchema>(req: Request, schema: TSchema): v.InferOutput<TSchema> {
  const query = req.query as Record<string, unknown>;
  const repeated = Object.keys(query).filter((name) => typeof query[name] !== 'string');
  if (repeated.length > 0) {
    throw invalidRequest(repeated.map((name) => ({ name, reason: 'must be given once, as a plain value' })));
  }
  return parseWith(schema, query);
}

/** A path parameter's schema check (keys are opaque, but not unbounded). */
export function parsePathParam(req: Request, name: string): string {
  const value = req.params[name];
  if (typeof value !== 'string' || value.length < 1 || value.length > 200) {
    throw invalidRequest([{ name, reason: 'must be 1 to 200 characters' }]);
  }
  return value;
}

/** The types `jsonBody` parses; anything else never reached a schema. */
function isJsonRequest(req: Request): boolean {
  return Boolean(req.is(['application/json', 'application/*+json']));
}

function parseWith<TSchema extends v.GenericSchema>(schema: TSchema, input: unknown): v.InferOutput<TSchema> {
  const result = v.safeParse(schema, input, { abortEarly: false });
  if (result.success) return result.output;
  throw invalidRequest(dedupe(result.issues.map(toInvalidParam)));
}

/** Query parameter values are strings: a whole number in a range, written in digits only. */
export function wholeNumberParam(name: string, min: number, max: number) {
  return v.pipe(
    v.string(`${name} must be a whole number`),
    v.regex(/^\d{1,10}$/, `must be a whole number from ${min} to ${max}`),
    v.transform(Number),
    v.minValue(min, `must be a whole number from ${min} to ${max}`),
    v.maxValue(max, `must be a whole number from ${min} to ${max}`),
  );
}

function toInvalidParam(issue: v.BaseIssue<unknown>): InvalidParam {
  const path = issue.path ?? [];
  const name = pathName(path);
  const last = path[path.length - 1];
  // A missing key and an unknown one both come with the key as the path's last item (origin
  // "key"); only the missing one has no input.
  if (last && last.type === 'object' && issue.input === undefined) return { name, reason: 'is required' };
  if (last && last.type === 'object' && last.origin === 'key') return { name: name || 'body', reason: 'is not a known field' };
  return { name: name || 'body', reason: issue.message };
}

function pathName(path: ReadonlyArray<v.IssuePathItem>): string {
  return path
    .map((item) => {
      const key = (item as { key: unknown }).key;
      return typeof key === 'number' ? `[${key}]` : `.${String(key)}`;
    })
    .join('')
    .replace(/^\./, '');
}

function dedupe(params: InvalidParam[]): InvalidParam[] {
  const seen = new Set<string>();
  return params.filter((param) => {
    const id = `${param.name}\u0000${param.reason}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}
