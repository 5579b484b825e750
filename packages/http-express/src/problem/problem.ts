/** The `errorCode` member of every problem of the resource and admin APIs (openapi.yaml `Problem`, decision 0030). */
export type ErrorCode =
  | 'INVALID_REQUEST'
  | 'AUTHN_INVALID_TOKEN'
  | 'AUTHZ_INSUFFICIENT_SCOPE'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'TOO_MANY_REQUESTS'
  | 'INTERNAL';

/** One input at fault: `name` is a JSON-path-like name (`name`, `[0].key`, `pageSize`), `reason` says what is wrong. */
export interface InvalidParam {
  name: string;
  reason: string;
}

/** RFC 9457 §3 problem details, with the extension members of Gatehouse. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  errorCode: ErrorCode;
  /** The inputs at fault (400s of validation). */
  invalidParams?: InvalidParam[];
  /** The scope the request needed (403 `AUTHZ_INSUFFICIENT_SCOPE`). */
  scope?: string;
}

/** The kinds of problem Gatehouse answers with: each has one `type` URI, one title, one status, one errorCode. */
export const PROBLEM_KINDS = {
  'invalid-request': { status: 400, title: 'Invalid request', errorCode: 'INVALID_REQUEST' },
  'malformed-body': { status: 400, title: 'Malformed request body', errorCode: 'INVALID_REQUEST' },
  'payload-too-large': { status: 413, title: 'Request body too large', errorCode: 'INVALID_REQUEST' },
  'unsupported-media-type': { status: 415, title: 'Unsupported media type', errorCode: 'INVALID_REQUEST' },
  'method-not-allowed': { status: 405, title: 'Method not allowed', errorCode: 'INVALID_REQUEST' },
  unauthenticated: { status: 401, title: 'Authentication required', errorCode: 'AUTHN_INVALID_TOKEN' },
  'invalid-token': { status: 401, title: 'Invalid access token', errorCode: 'AUTHN_INVALID_TOKEN' },
  'insufficient-scope': { status: 403, title: 'Insufficient scope', errorCode: 'AUTHZ_INSUFFICIENT_SCOPE' },
  forbidden: { status: 403, title: 'Forbidden', errorCode: 'FORBIDDEN' },
  'not-found': { status: 404, title: 'Not found', errorCode: 'NOT_FOUND' },
  conflict: { status: 409, title: 'Conflict', errorCode: 'CONFLICT' },
  'too-many-requests': { status: 429, title: 'Too many requests', errorCode: 'TOO_MANY_REQUESTS' },
  internal: { status: 500, title: 'Internal error', errorCode: 'INTERNAL' },
  unavailable: { status: 503, title: 'Service unavailable', errorCode: 'INTERNAL' },
} as const satisfies Record<string, { status: number; title: string; errorCode: ErrorCode }>;

export type ProblemKind = keyof typeof PROBLEM_KINDS;

/** RFC 9457 §3.1.1: the problem type is a URI; ours are URNs, stable identifiers rather than web pages. */
export function problemTypeUri(kind: ProblemKind): string {
  return `urn:gatehouse:problem:${kind}`;
}

/**
 * Builds a problem of a known kind.
 *
 * @example
 * problem('not-found', 'No such attribute.'); // { type: 'urn:gatehouse:problem:not-found', status: 404, errorCode: 'NOT_FOUND', ... }
 */
export function problem(kind: ProblemKind, detail: string, extras: Pick<Problem, 'invalidParams' | 'scope'> = {}): Problem {
  const { status, title, errorCode } = PROBLEM_KINDS[kind];
  return { type: problemTypeUri(kind), title, status, detail, errorCode, ...extras };
}

/**
 * An error that already is a problem: thrown by the edge (validation, bearer checks) and answered as is
 * by the problem error handler, with its extra headers (`WWW-Authenticate`, `Allow`, `Retry-After`).
 * It carries its HTTP status as `status` and `statusCode`, `expose` (true below 500: the message is
 * meant for the client) and `headers`, the members Express's default error handler and the
 * `http-errors` convention read, so any error handler answers with the right status.
 *
 * @example
 * throw new HttpProblem(problem('not-found', 'No such order.'));
 */
export class HttpProblem extends Error {
  readonly problem: Problem;
  readonly headers: Readonly<Record<string, string>>;
  /** The HTTP status (`problem.status`). */
  readonly status: number;
  /** The same, under the other name error handlers read. */
  readonly statusCode: number;
  /** Whether the message may be shown to the client (`http-errors` convention): true for 4xx. */
  readonly expose: boolean;

  constructor(problem: Problem, headers: Record<string, string> = {}) {
    super(problem.detail);
    this.name = 'HttpProblem';
    this.problem = problem;
    this.headers = headers;
    this.status = problem.status;
    this.statusCode = problem.status;
    this.expose = problem.status < 500;
  }
}

/** A 400 naming the inputs at fault. */
export function invalidRequest(invalidParams: InvalidParam[], detail?: string): HttpProblem {
  const message = detail ?? invalidParams.map((param) => `${param.name}: ${param.reason}`).join(' ');
  return new HttpProblem(problem('invalid-request', message, { invalidParams }));
}
