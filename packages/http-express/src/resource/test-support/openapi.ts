import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';
import { OPENAPI_FILE } from '../openapi.js';

/** The shape of a supertest response this helper reads. */
export interface RecordedResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export type HttpMethod = 'get' | 'post' | 'put' | 'delete' | 'patch';

type Json = Record<string, unknown>;

const DOCUMENT_ID = 'https://gatehouse.invalid/openapi.json';

// ajv-formats is CommonJS; its default export is the plugin itself or sits under `.default`.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => void;

let loaded: { document: Json; ajv: Ajv2020; validators: Map<string, ValidateFunction> } | undefined;

/** openapi.yaml, parsed, and an Ajv (JSON Schema 2020-12, OpenAPI 3.1's dialect) that knows it. */
export function openApi(): { document: Json; ajv: Ajv2020; validators: Map<string, ValidateFunction> } {
  if (!loaded) {
    const document = parse(readFileSync(OPENAPI_FILE, 'utf8')) as Json;
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    // The whole document is one schema resource, so `#/components/...` references resolve against it.
    ajv.addSchema({ ...document, $id: DOCUMENT_ID }, undefined, undefined, false);
    loaded = { document, ajv, validators: new Map() };
  }
  return loaded;
}

/**
 * Fails unless the response is one the document describes for `method path`: its status is
 * listed, its media type is listed with a schema the body matches (or the response has no
 * body when none is described), and the headers marked required are there and match.
 *
 * @example
 * expectMatchesOpenApi(response, 'post', '/admin/rest/v1/accounts/{accountKey}/attributes');
 */
export function expectMatchesOpenApi(response: RecordedResponse, method: HttpMethod, path: string): void {
  const { document } = openApi();
  const where = `${method.toUpperCase()} ${path} → ${response.status}`;
  const paths = document.paths as Record<string, Json> | undefined;
  const operation = paths?.[path]?.[method] as Json | undefined;
  if (!operation) throw new Error(`openapi.yaml has no operation ${method.toUpperCase()} ${path}`);
  const responses = operation.responses as Record<string, Json>;
  const status = String(response.status);
  const entry = responses[status];
  if (!entry) throw new Error(`${where}: status ${status} is not documented (documented: ${Object.keys(responses).join(', ')})`);
  const [described, pointer] = resolve(entry, ['paths', path, method, 'responses', status]);

  const content = described.content as Record<string, Json> | undefined;
  if (!content) {
    if (response.text !== undefined && response.text !== '') throw new Error(`${where}: documented without a body, but a body was sent: ${response.text.slice(0, 200)}`);
  } else {
    const contentType = String(response.headers['content-type'] ?? '');
    const mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
    if (!content[mediaType]) {
      throw new Error(`${where}: media type "${contentType}" is not documented (documented: ${Object.keys(content).join(', ')})`);
    }
    let body: unknown;
    try {
      body = JSON.parse(response.text);
    } catch {
      throw new Error(`${where}: the body is not JSON: ${response.text.slice(0, 200)}`);
    }
    assertValid([...pointer, 'content', mediaType, 'schema'], body, `${where} body`);
  }

  const headers = (described.headers ?? {}) as Record<string, Json>;
  for (const [name, raw] of Object.entries(headers)) {
    const [header, headerPointer] = resolve(raw, [...pointer, 'headers', name]);
    const value = response.headers[name.toLowerCase()];
    if (value === undefined) {
      if (header.required === true) throw new Error(`${where}: the required header ${name} is missing`);
      continue;
    }
    if (header.schema) assertValid([...headerPointer, 'schema'], Array.isArray(value) ? value.join(', ') : value, `${where} header ${name}`);
  }
}

/** Fails unless `value` matches the named schema of `components/schemas` (for answers outside any operation, e.g. a 405). */
export function expectMatchesSchema(value: unknown, schemaName: string): void {
  assertValid(['components', 'schemas', schemaName], value, `schema ${schemaName}`);
}

/** Every operation of the document, as `METHOD path` (for coverage checks). */
export function documentedOperations(): string[] {
  const paths = openApi().document.paths as Record<string, Json>;
  return Object.entries(paths).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((key) => ['get', 'post', 'put', 'delete', 'patch'].includes(key))
      .map((method) => `${method.toUpperCase()} ${path}`),
  );
}

function assertValid(pointer: string[], value: unknown, what: string): void {
  const { ajv, validators } = openApi();
  const ref = `${DOCUMENT_ID}#/${pointer.map(escapePointerToken).join('/')}`;
  let validate = validators.get(ref);
  if (!validate) {
    validate = ajv.compile({ $ref: ref });
    validators.set(ref, validate);
  }
  if (!validate(value)) {
    const errors = (validate.errors ?? []).map((error) => `${error.instancePath || '(root)'} ${error.message ?? ''} ${JSON.stringify(error.params)}`);
    throw new Error(`${what} does not match openapi.yaml:\n  ${errors.join('\n  ')}\nvalue: ${JSON.stringify(value).slice(0, 500)}`);
  }
}

/** Follows a local `$ref` (`#/components/...`) and returns the object with its pointer. */
function resolve(node: Json, pointer: string[]): [Json, string[]] {
  const ref = node.$ref;
  if (typeof ref !== 'string') return [node, pointer];
  if (!ref.startsWith('#/')) throw new Error(`Only local references are supported: ${ref}`);
  const target = ref.slice(2).split('/').map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
  let current: unknown = openApi().document;
  for (const token of target) current = (current as Json | undefined)?.[token];
  if (typeof current !== 'object' || current === null) throw new Error(`Dangling reference ${ref}`);
  return resolve(current as Json, target);
}

/** RFC 6901 escaping, then URI-encoding for the fragment (paths hold `/`, `{` and `}`). */
function escapePointerToken(token: string): string {
  return encodeURIComponent(token.replace(/~/g, '~0').replace(/\//g, '~1'));
}
