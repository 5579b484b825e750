import { findResource, type Gatehouse, type ResourceDefinition } from '@gatehouse/core';
import { Router, type NextFunction, type Request, type Response } from 'express';
import { browserClientCors } from '../security/cors.js';
import { securityHeaders } from '../security/headers.js';

/** RFC 9728 §3: the well-known URI suffix of protected resource metadata. */
export const PROTECTED_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

/**
 * RFC 9728 §3.1: where a resource's metadata is, the well-known suffix inserted between the host
 * and the path of its identifier: `https://mcp.example.com/mcp` →
 * `https://mcp.example.com/.well-known/oauth-protected-resource/mcp`.
 *
 * @example
 * protectedResourceMetadataUrl('https://mcp.example.com/mcp'); // 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp'
 * protectedResourceMetadataUrl('https://api.example.com');     // 'https://api.example.com/.well-known/oauth-protected-resource'
 */
export function protectedResourceMetadataUrl(resource: string): string {
  const url = new URL(resource);
  return `${url.origin}${wellKnownPathOf(url)}${url.search}`;
}

/** The path of the metadata of a resource (on its own origin). */
function wellKnownPathOf(url: URL): string {
  return `${PROTECTED_RESOURCE_METADATA_PATH}${url.pathname === '/' ? '' : url.pathname}`;
}

/**
 * RFC 9728 §2 protected resource metadata of a configured resource: its identifier, the
 * authorization server (this issuer), the scopes it accepts, how it takes tokens (the
 * `Authorization` header only, RFC 6750 §2.1) and its name.
 *
 * @example
 * protectedResourceMetadata('https://auth.example.com', settings.resources[0]);
 * // { resource: 'https://mcp.example.com/mcp', authorization_servers: ['https://auth.example.com'], scopes_supported: ['orders.v1.read'], bearer_methods_supported: ['header'], resource_name: 'Orders MCP' }
 */
export function protectedResourceMetadata(issuer: string, resource: ResourceDefinition): Record<string, unknown> {
  return {
    resource: resource.resource,
    authorization_servers: [issuer],
    scopes_supported: [...resource.scopes],
    bearer_methods_supported: ['header'],
    resource_name: resource.name,
  };
}

export interface ProtectedResourceMetadataOptions {
  /**
   * The configured resources (`settings.resources`, by URI) whose metadata this host serves:
   * those it is the resource server of. Default: every configured resource.
   */
  resources?: readonly string[];
}

/**
 * RFC 9728 §3: serves `GET /.well-known/oauth-protected-resource<path>` for each resource the host
 * serves, the path being the resource identifier's (`https://mcp.example.com/mcp` →
 * `/.well-known/oauth-protected-resource/mcp`); mount it at the host's root. Paths are matched
 * exactly (a resource's path is compared as is, RFC 9728 §3.3), but the metadata of a resource
 * whose path ends with a slash is also answered without that slash, where clients that strip it
 * look (unless another configured resource's is there); everything else goes on. A
 * resource that is not configured, or two that would share a path, is a `TypeError` at once.
 * `bearerAuth(gatehouse, { resource })` points its challenges here (`resource_metadata`, §5.1).
 *
 * @example
 * app.use(protectedResourceMetadataRouter(gatehouse, { resources: ['https://mcp.example.com/mcp'] }));
 * app.use('/mcp', bearerAuth(gatehouse, { resource: 'https://mcp.example.com/mcp' }), mcpHandler);
 */
export function protectedResourceMetadataRouter(gatehouse: Pick<Gatehouse, 'settings'>, options: ProtectedResourceMetadataOptions = {}): Router {
  const { settings } = gatehouse;
  // As written: `authorization_servers` names the issuer exactly as its own metadata does (docs/decisions/0183).
  const issuer = settings.issuer;
  const served = (options.resources ?? settings.resources.map((entry) => entry.resource)).map((uri) => {
    const resource = findResource(settings.resources, uri);
    if (resource === undefined) throw new TypeError(`protectedResourceMetadataRouter: ${JSON.stringify(uri)} is not a configured resource (settings.resources).`);
    return resource;
  });
  const documents = new Map<string, string>();
  for (const resource of served) {
    const path = wellKnownPathOf(new URL(resource.resource));
    const body = JSON.stringify(protectedResourceMetadata(issuer, resource));
    if (documents.has(path) && documents.get(path) !== body) {
      throw new TypeError(`protectedResourceMetadataRouter: two resources have their metadata at ${path}; pass \`resources\` to name the ones this host serves.`);
    }
    documents.set(path, body);
  }
  // A resource whose path ends with a slash (`https://mcp.example.com/mcp/`) has its metadata at
  // `…/mcp/` (RFC 9728 §3.1); clients that discover it without a challenge, the MCP SDK among
  // them, strip that slash and ask at `…/mcp`: answered there too, unless a configured resource
  // has its own metadata there (docs/decisions/0189-protected-resource-metadata-without-trailing-slash.md).
  const configuredPaths = new Set(settings.resources.map((entry) => wellKnownPathOf(new URL(entry.resource))));
  for (const resource of served) {
    const path = wellKnownPathOf(new URL(resource.resource));
    const withoutSlash = path.slice(0, -1);
    if (!path.endsWith('/') || withoutSlash === PROTECTED_RESOURCE_METADATA_PATH || configuredPaths.has(withoutSlash) || documents.has(withoutSlash)) continue;
    documents.set(withoutSlash, documents.get(path) as string);
  }
  const headers = securityHeaders(issuer);
  const router = Router();
  // Open to browser-based clients (an MCP client in a web page discovers its server; docs/decisions/0165).
  const cors = browserClientCors(['GET', 'HEAD']);
  router.use((req: Request, res: Response, next: NextFunction) => {
    if (req.method === 'OPTIONS' && documents.has(req.path)) return cors(req, res, next);
    const body = req.method === 'GET' || req.method === 'HEAD' ? documents.get(req.path) : undefined;
    if (body === undefined) return next();
    cors(req, res, () => undefined);
    headers(req, res, () => {
      res.setHeader('Cache-Control', 'public, max-age=300');
      res.status(200).type('application/json').send(body);
    });
  });
  return router;
}
