import { checkResourceUri, findResource, userMayServe, type ResourceDefinition } from '../domain/resources.js';
import { formatScope } from '../domain/scopes.js';
import { DomainError, OAuthError } from '../errors.js';
import type { GatehouseSettings } from '../settings.js';

/**
 * The rules of RFC 8707 resource indicators, in one place (docs/decisions/0110-resource-indicators.md):
 * which resources an authorization request may name, and which audience and scopes a token gets.
 */

type ResourceSettings = Pick<GatehouseSettings, 'resources'>;

/** What an authorization request is for: its resources (none: the default audience) and its scopes. */
export interface AuthorizationTarget {
  resources: ResourceDefinition[];
  scopes: string[];
}

/** The audience of one access token: a configured resource, or undefined for the default audience, and the token's scopes. */
export interface TokenTarget {
  resource: ResourceDefinition | undefined;
  scopes: string[];
}

/**
 * RFC 8707 §2.1: the `resource` parameters of an authorization request (any number; a repeated
 * parameter arrives as an array). Each must be an absolute URI without a fragment and a configured
 * resource that accepts at least one of the request's scopes. Without a `scope` parameter
 * (`scopesDefaulted`), the client's scopes are narrowed to those the named resources accept, so
 * consent is asked only for what the tokens can carry. Returns the problem (an `invalid_target`,
 * RFC 8707 §2) or the target.
 *
 * @example
 * authorizationTarget(settings, 'https://mcp.example.com/mcp', ['orders.v1.read'], false);
 * // { resources: [{ resource: 'https://mcp.example.com/mcp', … }], scopes: ['orders.v1.read'] }
 */
export function authorizationTarget(
  settings: ResourceSettings,
  raw: string | string[] | undefined,
  scopes: readonly string[],
  scopesDefaulted: boolean,
): AuthorizationTarget | { problem: string } {
  // RFC 6749 §3.1: a parameter sent without a value is treated as omitted.
  const values = (raw === undefined ? [] : Array.isArray(raw) ? raw : [raw]).filter((value) => value !== '');
  const resources: ResourceDefinition[] = [];
  for (const value of values) {
    const found = configuredResource(settings, value);
    if ('problem' in found) return found;
    if (!resources.includes(found.resource)) resources.push(found.resource);
  }
  if (resources.length === 0) return { resources, scopes: [...scopes] };
  const narrowed = scopesDefaulted ? scopes.filter((scope) => resources.some((resource) => resource.scopes.includes(scope))) : [...scopes];
  const idle = resources.find((resource) => !narrowed.some((scope) => resource.scopes.includes(scope)));
  if (idle !== undefined) return { problem: acceptsNone(idle, scopesDefaulted ? scopes : narrowed) };
  return { resources, scopes: narrowed };
}

/**
 * RFC 8707 §2.2: the audience of an access token requested at the token endpoint. With
 * `resource`, it must be well formed, configured and one of `allowed`: the grant's resources
 * (a refresh, a code exchange: "a refresh may narrow, never widen"), or `'configured'` for a
 * client-credentials request, which may name any configured resource. Without it: the grant's one
 * resource, or the default audience when it has none; a grant of several must be told which. The
 * token's scopes are `scopes` narrowed to those the resource accepts. Throws
 * `OAuthError('invalid_target')`.
 *
 * @example
 * tokenTarget(settings, ['https://mcp.example.com/mcp'], undefined, ['orders.v1.read', 'messaging.v1.read']);
 * // { resource: { resource: 'https://mcp.example.com/mcp', … }, scopes: ['orders.v1.read'] }
 */
export function tokenTarget(
  settings: ResourceSettings,
  allowed: readonly string[] | 'configured',
  requested: string | undefined,
  scopes: readonly string[],
): TokenTarget {
  let resource: ResourceDefinition | undefined;
  if (requested !== undefined) {
    const found = configuredResource(settings, requested);
    if ('problem' in found) throw new OAuthError('invalid_target', found.problem);
    if (allowed !== 'configured' && !allowed.includes(found.resource.resource)) {
      throw new OAuthError('invalid_target', `The resource ${shown(found.resource.resource)} was not requested when the grant was made; ask for it at authorization.`);
    }
    resource = found.resource;
  } else if (allowed !== 'configured' && allowed.length > 0) {
    if (allowed.length > 1) throw new OAuthError('invalid_target', 'The grant covers several resources: name one with the resource parameter (one resource per access token).');
    resource = findResource(settings.resources, allowed[0] as string);
    if (resource === undefined) throw new OAuthError('invalid_target', 'The resource of the grant is no longer offered.', { detail: `resource ${allowed[0]} is not configured` });
  }
  if (resource === undefined) return { resource, scopes: [...scopes] };
  const accepted = scopes.filter((scope) => (resource as ResourceDefinition).scopes.includes(scope));
  if (accepted.length === 0) throw new OAuthError('invalid_target', acceptsNone(resource, scopes));
  return { resource, scopes: accepted };
}

/** The configured resource a `resource` value names, or the `invalid_target` problem (RFC 8707 §2). */
function configuredResource(settings: ResourceSettings, value: string): { resource: ResourceDefinition } | { problem: string } {
  const check = checkResourceUri(value);
  if ('problem' in check) return { problem: `The resource ${shown(value)} ${check.problem}.` };
  const resource = settings.resources.find((entry) => entry.resource === check.canonical);
  if (resource === undefined) return { problem: `The resource ${shown(check.canonical)} is not a resource this server issues tokens for.` };
  return { resource };
}

function acceptsNone(resource: ResourceDefinition, scopes: readonly string[]): string {
  return `The resource ${shown(resource.resource)} accepts none of the scopes asked for (${shown(formatScope(scopes))}); it accepts ${formatScope(resource.scopes)}.`;
}

/**
 * A value shown in an `error_description`, which RFC 6749 §5.2 limits to printable ASCII without
 * `"` and `\`: other characters become `?`, and a long value is cut.
 */
function shown(value: string): string {
  const printable = value.replace(/[^\x20\x21\x23-\x5B\x5D-\x7E]/g, '?');
  return printable.length > 120 ? `${printable.slice(0, 120)}...` : printable;
}

/**
 * The resources a client serves as a resource server (`Client.resourceServerFor`; RFC 7662 §2.1,
 * docs/decisions/0112-introspection-by-resource-servers.md): each a configured resource (compared
 * in canonical form, kept so), without repeats. A public client cannot be one: it cannot
 * authenticate, so it cannot introspect. Throws `DomainError('invalid')` on the field `resourceServerFor`.
 *
 * @example
 * resourceServerResources(settings, ['https://MCP.example.com/mcp'], false); // ['https://mcp.example.com/mcp']
 */
export function resourceServerResources(settings: ResourceSettings, requested: readonly string[], isPublic: boolean): string[] {
  const field = { field: 'resourceServerFor' };
  if (!Array.isArray(requested)) throw new DomainError('invalid', 'The resources served must be a list of resource URIs.', field);
  if (requested.length > 0 && isPublic) {
    throw new DomainError('invalid', 'A public client cannot be a resource server: introspection needs a client that authenticates.', field);
  }
  const resources: string[] = [];
  for (const uri of requested) {
    const resource = typeof uri === 'string' ? findResource(settings.resources, uri.trim()) : undefined;
    if (resource === undefined) throw new DomainError('invalid', `${typeof uri === 'string' ? shown(uri) : 'A value'} is not a configured resource.`, field);
    if (!resources.includes(resource.resource)) resources.push(resource.resource);
  }
  return resources;
}

/**
 * Refuses a user (`actingUserKey`, the portal's signed-in user; null: the operator) who would make
 * a client the resource server of Gatehouse's own APIs (`userMayServe`), unless the client already
 * was (the operator marked it): introspecting their tokens would show the user every other user's
 * (docs/decisions/0186-own-apis-resource-server-by-the-operator.md).
 *
 * @example
 * assertUserMayServe(settings, user.userKey, ['https://mcp.example.com/mcp']); // passes
 */
export function assertUserMayServe(settings: Pick<GatehouseSettings, 'audience'>, actingUserKey: string | null, resources: readonly string[], already: readonly string[] = []): void {
  if (actingUserKey === null) return;
  if (resources.some((resource) => !userMayServe(settings, resource) && !already.includes(resource))) {
    throw new DomainError('invalid', "Only the operator can make a client the resource server of Gatehouse's own APIs: their tokens are every user's.", { field: 'resourceServerFor' });
  }
}
