/** The realm of a bearer challenge (RFC 6750 §3) unless `bearerAuth` is given another. */
export const BEARER_REALM = 'gatehouse';

/** RFC 6750 §3.1 error codes of a bearer challenge. */
export type BearerErrorCode = 'invalid_request' | 'invalid_token' | 'insufficient_scope';

/** RFC 7235 §2.2 / RFC 9110 §5.6.4: the realm is a quoted-string; we allow printable ASCII without `"` or `\`. */
const REALM = /^[\x20\x21\x23-\x5B\x5D-\x7E]{1,100}$/;

/**
 * Checks a realm for a challenge: 1 to 100 printable ASCII characters without `"` or `\` (so it
 * needs no escaping inside the quoted-string). Throws a `TypeError` otherwise.
 *
 * @example
 * checkedRealm('orders'); // 'orders'
 */
export function checkedRealm(realm: string): string {
  if (!REALM.test(realm)) throw new TypeError(`The bearer realm must be 1 to 100 printable ASCII characters without " or \\ (got ${JSON.stringify(realm)}).`);
  return realm;
}

/**
 * The `WWW-Authenticate` value of a bearer challenge (RFC 6750 §3).
 * With no error, only the realm: §3.1 says a request without credentials gets no error code.
 * With `resourceMetadata`, the URL of the resource's RFC 9728 metadata (§5.1), so a client that
 * was refused can find the authorization server.
 *
 * @example
 * bearerChallenge({ error: 'insufficient_scope', scope: 'messaging.v1.send' });
 * // 'Bearer realm="gatehouse", error="insufficient_scope", scope="messaging.v1.send"'
 * bearerChallenge({ resourceMetadata: 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp' });
 * // 'Bearer realm="gatehouse", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"'
 */
export function bearerChallenge(options: { error?: BearerErrorCode; scope?: string; realm?: string; resourceMetadata?: string } = {}): string {
  const parts = [`realm="${options.realm ?? BEARER_REALM}"`];
  if (options.error) parts.push(`error="${options.error}"`);
  // RFC 6750 §3: scope is a space-delimited list of scope tokens, which never contain a quote or a backslash.
  if (options.scope) parts.push(`scope="${options.scope}"`);
  // A URL as `URL` serializes it: a quote or a backslash in it is percent-encoded.
  if (options.resourceMetadata) parts.push(`resource_metadata="${options.resourceMetadata}"`);
  return `Bearer ${parts.join(', ')}`;
}
