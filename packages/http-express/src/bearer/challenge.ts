/** The realm of every bearer challenge (RFC 6750 §3). */
export const BEARER_REALM = 'gatehouse';

/** RFC 6750 §3.1 error codes of a bearer challenge. */
export type BearerErrorCode = 'invalid_request' | 'invalid_token' | 'insufficient_scope';

/**
 * The `WWW-Authenticate` value of a bearer challenge (RFC 6750 §3).
 * With no error, only the realm: §3.1 says a request without credentials gets no error code.
 *
 * @example
 * bearerChallenge({ error: 'insufficient_scope', scope: 'messaging.v1.send' });
 * // 'Bearer realm="gatehouse", error="insufficient_scope", scope="messaging.v1.send"'
 */
export function bearerChallenge(options: { error?: BearerErrorCode; scope?: string } = {}): string {
  const parts = [`realm="${BEARER_REALM}"`];
  if (options.error) parts.push(`error="${options.error}"`);
  // RFC 6750 §3: scope is a space-delimited list of scope tokens, which never contain a quote or a backslash.
  if (options.scope) parts.push(`scope="${options.scope}"`);
  return `Bearer ${parts.join(', ')}`;
}
