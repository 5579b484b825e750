import { readFile } from 'node:fs/promises';
import { Router } from 'express';
import { parse } from 'yaml';
import { HttpProblem, problem } from '../problem/problem.js';

/**
 * The API description, openapi.yaml at the root of this package (shipped in its tarball). From
 * src/resource/ and from dist/resource/ alike it is two levels up, so tests, the workspace's server
 * and an installed copy read the same file (docs/decisions/0019-packages-as-published.md).
 */
export const OPENAPI_FILE = new URL('../../openapi.yaml', import.meta.url);

let cached: Promise<string> | undefined;

/** The OpenAPI document parsed from YAML and serialised as JSON once, on first use (a failed read is retried). */
export function loadOpenApiJson(): Promise<string> {
  if (!cached) {
    const loading = readFile(OPENAPI_FILE, 'utf8').then((text) => JSON.stringify(parse(text)));
    loading.catch(() => {
      if (cached === loading) cached = undefined;
    });
    cached = loading;
  }
  return cached;
}

/**
 * The document for APIs mounted at `mountPath` (`''` at the root): its `servers` URL is that path,
 * so that a client joining it to `/oauth/token` or `/identity/v1/Users/me` reaches them under an
 * issuer with a path (docs/decisions/0183); a path with its own `servers` (the probes, served at
 * the root) keeps them.
 */
function forMountPath(json: string, mountPath: string): string {
  if (mountPath === '') return json;
  const document = JSON.parse(json) as { servers?: Array<Record<string, unknown>> };
  document.servers = (document.servers ?? [{}]).map((server) => ({ ...server, url: mountPath }));
  return JSON.stringify(document);
}

/** `GET /openapi.json`: the API description, public (no authentication), added to `router` (a new one by default). */
export function openApiRouter(router: Router = Router()): Router {
  // By mount path: the same router may be mounted at the root and under the issuer's path.
  const byMountPath = new Map<string, string>();
  router.get('/openapi.json', async (req, res) => {
    const json = await loadOpenApiJson().catch(() => {
      throw new HttpProblem(problem('not-found', 'The API description is not installed with this server.'));
    });
    let served = byMountPath.get(req.baseUrl);
    if (served === undefined) {
      served = forMountPath(json, req.baseUrl);
      if (byMountPath.size < 8) byMountPath.set(req.baseUrl, served);
    }
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.type('application/json').send(served);
  });
  return router;
}
