import { DomainError, OAuthError, StorageUnavailableError, type DomainErrorKind, type OAuthErrorCode } from '@gatehouse/core';
import { bearerChallenge } from '../bearer/challenge.js';
import { clientErrorStatus } from '../client-error.js';
import { retryAfterSeconds } from '../storage-outages.js';
import { HttpProblem, problem, type Problem, type ProblemKind } from './problem.js';
import { REPEATED_MEMBER } from '../security/json-members.js';

/** What an error becomes on the wire, and whether it is the server's fault (then it is logged). */
export interface MappedProblem {
  problem: Problem;
  headers: Record<string, string>;
  /** True for 5xx: an unexpected failure the operator must see in the logs. */
  unexpected: boolean;
}

const DOMAIN_KINDS: Record<DomainErrorKind, ProblemKind> = {
  invalid: 'invalid-request',
  not_found: 'not-found',
  forbidden: 'forbidden',
  conflict: 'conflict',
  unauthenticated: 'invalid-token',
  unavailable: 'unavailable',
};

const OAUTH_KINDS: Partial<Record<OAuthErrorCode, ProblemKind>> = {
  invalid_token: 'invalid-token',
  insufficient_scope: 'insufficient-scope',
  access_denied: 'forbidden',
  server_error: 'internal',
  temporarily_unavailable: 'unavailable',
};

/** body-parser's error types (`err.type`), answered with fixed words: its own messages echo the input. */
const BODY_PARSER_PROBLEMS: Record<string, [ProblemKind, string]> = {
  'entity.too.large': ['payload-too-large', 'The request body is larger than the API accepts.'],
  'entity.parse.failed': ['malformed-body', 'The request body is not valid JSON (a JSON object or array is expected).'],
  'entity.verify.failed': ['malformed-body', 'The request body could not be read.'],
  [REPEATED_MEMBER]: ['malformed-body', 'The request body names a member twice in one object.'],
  'request.aborted': ['malformed-body', 'The request body ended early.'],
  'request.size.invalid': ['malformed-body', 'The request body does not match its Content-Length.'],
  'stream.encoding.set': ['internal', 'The request body could not be read.'],
  'parameters.too.many': ['payload-too-large', 'The request body has too many parameters.'],
  'charset.unsupported': ['unsupported-media-type', 'Only UTF-8 request bodies are accepted.'],
  'encoding.unsupported': ['unsupported-media-type', 'The Content-Encoding of the request body is not supported.'],
};

const STATUS_KINDS: Record<number, ProblemKind> = {
  400: 'invalid-request',
  401: 'invalid-token',
  403: 'forbidden',
  404: 'not-found',
  405: 'method-not-allowed',
  409: 'conflict',
  413: 'payload-too-large',
  415: 'unsupported-media-type',
  429: 'too-many-requests',
};

/**
 * Maps anything thrown by a route to an RFC 9457 problem. Only public words go out: a
 * `DomainError`'s message and an `OAuthError`'s `description` are written for clients; an
 * unavailable storage is a 503 with `Retry-After` (an outage, not a fault: not `unexpected`, its
 * handler reports it to the outage tracker; docs/decisions/0100); anything else becomes a 500
 * whose detail says nothing about the cause.
 */
export function toProblem(error: unknown): MappedProblem {
  if (error instanceof HttpProblem) return mapped(error.problem, { ...error.headers });
  if (error instanceof StorageUnavailableError) {
    return { problem: problem('unavailable', 'The service cannot reach its database right now; nothing was changed. Try again later.'), headers: { 'Retry-After': String(retryAfterSeconds(error)) }, unexpected: false };
  }
  if (error instanceof DomainError) {
    const kind = DOMAIN_KINDS[error.kind];
    const extras = kind === 'invalid-request' && error.field ? { invalidParams: [{ name: error.field, reason: error.message }] } : {};
    const headers: Record<string, string> = kind === 'invalid-token' ? { 'WWW-Authenticate': bearerChallenge({ error: 'invalid_token' }) } : {};
    return mapped(problem(kind, error.message, extras), headers);
  }
  if (error instanceof OAuthError) return fromOAuthError(error);
  const bodyParserType = typeof (error as { type?: unknown } | null)?.type === 'string' ? (error as { type: string }).type : undefined;
  const known = bodyParserType === undefined ? undefined : BODY_PARSER_PROBLEMS[bodyParserType];
  if (known) return mapped(problem(known[0], known[1]), {});
  if (undecompressable(error)) return mapped(problem('malformed-body', 'The request body could not be decompressed as its Content-Encoding says.'), {});
  const status = clientErrorStatus(error);
  if (status !== undefined) {
    // A 4xx without a kind of its own (416 of a range, 431 …) keeps its status (docs/decisions/0180).
    const byStatus = STATUS_KINDS[status];
    return byStatus ? mapped(problem(byStatus, genericDetail(byStatus)), {}) : mapped({ ...problem('invalid-request', genericDetail('invalid-request')), status }, {});
  }
  return mapped(problem('internal', 'The server failed to answer this request; the failure is logged.'), {});
}

/**
 * body-parser passes zlib's own error on, with no `type`, when a body is not what its
 * Content-Encoding says (gzip and deflate: `Z_DATA_ERROR`, `Z_BUF_ERROR`; brotli: `ERR__ERROR_…`).
 */
function undecompressable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^(Z_|ERR__)/.test(code) && clientErrorStatus(error) === 400;
}

function fromOAuthError(error: OAuthError): MappedProblem {
  const kind = OAUTH_KINDS[error.code] ?? 'invalid-request';
  if (kind === 'invalid-token') {
    // RFC 6750 §3.1: invalid_token answers 401 with the challenge naming the error.
    return mapped(problem(kind, error.description), { 'WWW-Authenticate': bearerChallenge({ error: 'invalid_token' }) });
  }
  if (kind === 'insufficient-scope') {
    const scope = error.scope;
    return mapped(problem(kind, error.description, scope ? { scope } : {}), {
      'WWW-Authenticate': bearerChallenge({ error: 'insufficient_scope', ...(scope ? { scope } : {}) }),
    });
  }
  return mapped(problem(kind, kind === 'internal' || kind === 'unavailable' ? genericDetail(kind) : error.description), {});
}

function mapped(value: Problem, headers: Record<string, string>): MappedProblem {
  return { problem: value, headers, unexpected: value.status >= 500 };
}

function genericDetail(kind: ProblemKind): string {
  switch (kind) {
    case 'not-found':
      return 'No such resource.';
    case 'method-not-allowed':
      return 'The resource does not support this method.';
    case 'payload-too-large':
      return 'The request body is larger than the API accepts.';
    case 'unsupported-media-type':
      return 'The request body has a media type the API does not accept.';
    case 'too-many-requests':
      return 'Too many requests; try again later.';
    case 'unavailable':
      return 'The service is temporarily unavailable; try again later.';
    case 'internal':
      return 'The server failed to answer this request; the failure is logged.';
    default:
      return 'The request could not be processed.';
  }
}
