/**
 * RFC 6749 §4.1.2.1, §5.2, RFC 6750 §3.1, RFC 7009 §2.2.1, RFC 7591 §3.2.2, RFC 8707 §2 and OIDC Core §3.1.2.6 error codes.
 * The HTTP status is the adapter's business: the core only names the error.
 */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_scope'
  /** RFC 8707 §2: the `resource` is malformed, unknown, or not one the grant allows. */
  | 'invalid_target'
  | 'access_denied'
  | 'server_error'
  | 'temporarily_unavailable'
  | 'invalid_token'
  | 'insufficient_scope'
  | 'unsupported_token_type'
  // RFC 7591 §3.2.2: a client registration that cannot be accepted.
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  /** OIDC Core §3.1.2.6: what an OpenID Connect authorization request may be answered with. */
  | 'login_required'
  | 'consent_required'
  | 'interaction_required'
  | 'account_selection_required'
  | 'request_not_supported'
  | 'request_uri_not_supported'
  | 'registration_not_supported';

/** Typographic characters and their ASCII stand-ins in an `error_description`. */
const ASCII_STAND_INS: Readonly<Record<string, string>> = { '"': "'", '\\': '/', '\u2018': "'", '\u2019': "'", '\u201C': "'", '\u201D': "'", '\u2013': '-', '\u2014': '-', '\u2026': '...' };

/**
 * RFC 6749 §5.2 (and RFC 6750 §3): `error_description` holds only %x20-21 / %x23-5B / %x5D-7E,
 * printable ASCII without `"` and `\`. Quotes become `'`, a backslash `/`, dashes `-`, an ellipsis
 * `...`, anything else outside the set `?` — whatever a description quotes of a request.
 *
 * @example
 * errorDescriptionText('The scope "x" is not available.'); // "The scope 'x' is not available."
 */
export function errorDescriptionText(text: string): string {
  return text.replace(/[^\x20\x21\x23-\x5B\x5D-\x7E]/gu, (character) => ASCII_STAND_INS[character] ?? '?');
}

/**
 * The one error type of the OAuth flows. `description` is public (it becomes
 * `error_description`, kept to RFC 6749 §5.2's characters by `errorDescriptionText`); `detail` is
 * private and only ever reaches the logs.
 *
 * @example
 * throw new OAuthError('invalid_grant', 'The authorization code has expired.', { detail: `code of client ${clientId}` });
 */
export class OAuthError extends Error {
  readonly code: OAuthErrorCode;
  readonly description: string;
  /** Private detail for logs; never sent to a client. */
  readonly detail: string | undefined;
  /** Scope needed, for `insufficient_scope` (RFC 6750 §3). */
  readonly scope: string | undefined;

  constructor(code: OAuthErrorCode, description: string, options: { detail?: string; scope?: string; cause?: unknown } = {}) {
    super(description, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'OAuthError';
    this.code = code;
    this.description = errorDescriptionText(description);
    this.detail = options.detail;
    this.scope = options.scope;
  }
}

/**
 * Failure kinds of the resource and administration use cases. `unavailable`: the server refuses
 * for now what it would do later (a bound on work in progress was reached), to be tried again.
 */
export type DomainErrorKind = 'invalid' | 'not_found' | 'forbidden' | 'conflict' | 'unauthenticated' | 'unavailable';

/**
 * An error of the resource and admin use cases; the HTTP adapter maps `kind` to a status
 * and an RFC 9457 problem. `field` names the input at fault, when there is one.
 *
 * @example
 * throw new DomainError('conflict', 'An attribute named "department" already exists.', { field: 'name' });
 */
export class DomainError extends Error {
  readonly kind: DomainErrorKind;
  readonly field: string | undefined;

  constructor(kind: DomainErrorKind, message: string, options: { field?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DomainError';
    this.kind = kind;
    this.field = options.field;
  }
}

/**
 * Why the storage could not do its work, for the operator (logs, metrics) and for how soon a
 * client should try again: the database cannot be reached or dropped the connection
 * (`unreachable`), is locked past its timeout or overloaded (`busy`), has no space left (`full`),
 * cannot be written (`read_only`), or fails to read or write its files (`io`).
 */
export type StorageFailureReason = 'unreachable' | 'busy' | 'full' | 'read_only' | 'io';

/**
 * The storage cannot be used right now: an outage of the database, not a fault of the request.
 * A storage adapter throws it in place of its driver's error (kept as `cause`); whatever the
 * failed call was writing was rolled back, so the request may be sent again once the database
 * is back. The HTTP adapter answers it with 503 and `Retry-After` (docs/decisions/0100-storage-outages-answered-503.md).
 *
 * @example
 * throw new StorageUnavailableError('full', 'The database has no space left.', { cause: sqliteError });
 */
export class StorageUnavailableError extends Error {
  readonly reason: StorageFailureReason;

  constructor(reason: StorageFailureReason, message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'StorageUnavailableError';
    this.reason = reason;
  }
}
