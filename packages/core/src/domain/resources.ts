import { isLoopbackHost } from './redirect-uri.js';
import { isCataloguedScope, type ScopeCatalogue } from './scopes.js';

/**
 * One resource server that accepts Gatehouse's access tokens (RFC 8707 resource indicators,
 * RFC 9728 protected resource metadata; docs/decisions/0110-resource-indicators.md).
 */
export interface ResourceDefinition {
  /**
   * The resource's identifier, its URI: an access token requested for it carries it as `aud`.
   * Absolute `https` (or `http` on a loopback host), no query, no fragment; kept in canonical
   * form (scheme and host in lower case, no default port, no lone `/` path), the form MCP uses.
   */
  resource: string;
  /** What the resource is called, in words a user understands (consent page, `resource_name`). */
  name: string;
  /** The scopes the resource accepts: a token for it carries only these (each in the scope catalogue). */
  scopes: readonly string[];
  /** The lifetime of its access tokens; default: `settings.accessTokenTtlSeconds`. */
  accessTokenTtlSeconds?: number;
}

/** The resources a deployment knows: the only values `resource` may take. */
export type ResourceCatalogue = readonly ResourceDefinition[];

/** What `checkResourceUri` finds: the URI in canonical form, or why it is malformed. */
export type ResourceUriCheck = { canonical: string } | { problem: string };

const MAX_RESOURCE_LENGTH = 2048;
const MAX_NAME_LENGTH = 100;
const MAX_RESOURCE_TTL_SECONDS = 86_400;

/**
 * RFC 8707 §2: a resource indicator is an absolute URI without a fragment. Returns it in the
 * canonical form resources are compared in (the MCP authorization spec's canonical server URI):
 * scheme and host in lower case, no default port, and an empty path for a lone `/`; the path and
 * query are kept as written.
 *
 * @example
 * checkResourceUri('HTTPS://MCP.Example.com:443/mcp'); // { canonical: 'https://mcp.example.com/mcp' }
 * checkResourceUri('https://mcp.example.com/');        // { canonical: 'https://mcp.example.com' }
 * checkResourceUri('/mcp');                            // { problem: 'is not an absolute URI' }
 */
export function checkResourceUri(uri: string): ResourceUriCheck {
  if (typeof uri !== 'string' || uri.length > MAX_RESOURCE_LENGTH) return { problem: `is not a URI of at most ${MAX_RESOURCE_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return { problem: 'is not an absolute URI' };
  }
  // RFC 8707 §2: "MUST NOT include a fragment component" (an empty one included).
  if (uri.includes('#')) return { problem: 'has a fragment, which RFC 8707 forbids' };
  if (url.username !== '' || url.password !== '') return { problem: 'has user information' };
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { canonical: url.href };
  const path = url.pathname === '/' && url.search === '' ? '' : url.pathname;
  return { canonical: `${url.protocol}//${url.host}${path}${url.search}` };
}

/**
 * The canonical form of a resource URI (see `checkResourceUri`), or undefined when it is malformed.
 *
 * @example
 * canonicalResourceUri('https://MCP.example.com/mcp'); // 'https://mcp.example.com/mcp'
 */
export function canonicalResourceUri(uri: string): string | undefined {
  const check = checkResourceUri(uri);
  return 'canonical' in check ? check.canonical : undefined;
}

/**
 * The configured resource a URI names, compared in canonical form; undefined when none.
 *
 * @example
 * findResource(settings.resources, 'https://MCP.example.com/mcp')?.name; // 'Orders MCP'
 */
export function findResource(catalogue: ResourceCatalogue, uri: string): ResourceDefinition | undefined {
  const canonical = canonicalResourceUri(uri);
  return canonical === undefined ? undefined : catalogue.find((entry) => entry.resource === canonical);
}

/**
 * What is wrong with a resource catalogue, or undefined when it can be used: each resource an
 * absolute `https` URI (`http` on loopback) without query or fragment, listed once (in canonical
 * form), with a name of 1 to 100 characters, at least one scope, every scope in the scope
 * catalogue, and a lifetime, when given, a whole number of seconds from 1 to 86400.
 *
 * @example
 * resourceCatalogueProblem([{ resource: 'https://mcp.example.com/mcp#x', name: 'MCP', scopes: ['orders.v1.read'] }], scopes);
 * // 'the resource "https://mcp.example.com/mcp#x" has a fragment, which RFC 8707 forbids'
 */
export function resourceCatalogueProblem(catalogue: ResourceCatalogue, scopes: ScopeCatalogue): string | undefined {
  if (!Array.isArray(catalogue)) return 'the resources are not a list';
  const seen = new Set<string>();
  for (const entry of catalogue) {
    const uri: unknown = (entry as Partial<ResourceDefinition> | null)?.resource;
    const named = `the resource ${JSON.stringify(uri)}`;
    if (typeof uri !== 'string') return `${named} is not a URI`;
    const check = checkResourceUri(uri);
    if ('problem' in check) return `${named} ${check.problem}`;
    const url = new URL(uri);
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) return `${named} must use https (http is allowed on loopback only)`;
    // RFC 8707 §2: "SHOULD NOT include a query component"; RFC 9728 §3.1 builds the metadata URL from the path alone.
    if (uri.includes('?')) return `${named} must not have a query`;
    if (seen.has(check.canonical)) return `${named} is listed twice`;
    seen.add(check.canonical);
    const name: unknown = entry.name;
    if (typeof name !== 'string' || name.trim() === '' || name.length > MAX_NAME_LENGTH || /\p{Cc}/u.test(name)) {
      return `${named} needs a name of 1 to ${MAX_NAME_LENGTH} characters without control characters`;
    }
    const accepted: unknown = entry.scopes;
    if (!Array.isArray(accepted) || accepted.length === 0) return `${named} needs a list of the scopes it accepts`;
    const unknown = accepted.find((scope: unknown) => typeof scope !== 'string' || !isCataloguedScope(scopes, scope));
    if (unknown !== undefined) return `${named} accepts the scope ${JSON.stringify(unknown)}, which is not in the scope catalogue`;
    const ttl: unknown = entry.accessTokenTtlSeconds;
    if (ttl !== undefined && (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 1 || ttl > MAX_RESOURCE_TTL_SECONDS)) {
      return `${named} needs an accessTokenTtlSeconds from 1 to ${MAX_RESOURCE_TTL_SECONDS}`;
    }
  }
  return undefined;
}

/**
 * The catalogue as `defineSettings` keeps it: each URI in canonical form, scopes without
 * repeats, everything frozen. Call it on a catalogue `resourceCatalogueProblem` accepted.
 */
export function canonicalResourceCatalogue(catalogue: ResourceCatalogue): ResourceCatalogue {
  return Object.freeze(
    catalogue.map((entry) =>
      Object.freeze({
        resource: canonicalResourceUri(entry.resource) as string,
        name: entry.name.trim(),
        scopes: Object.freeze([...new Set(entry.scopes)]),
        ...(entry.accessTokenTtlSeconds === undefined ? {} : { accessTokenTtlSeconds: entry.accessTokenTtlSeconds }),
      }),
    ),
  );
}

/**
 * Whether a user (through the portal) may make their client the resource server of `resource`:
 * of any configured resource but the default audience, Gatehouse's own APIs, whose tokens are
 * every user's; only the operator may mark that one (docs/decisions/0186-own-apis-resource-server-by-the-operator.md).
 *
 * @example
 * userMayServe({ audience: 'https://auth.example.com' }, 'https://mcp.example.com/mcp'); // true
 * userMayServe({ audience: 'https://auth.example.com' }, 'https://AUTH.example.com'); // false
 */
export function userMayServe(settings: { audience: string }, resource: string): boolean {
  return canonicalResourceUri(resource) !== canonicalResourceUri(settings.audience);
}
