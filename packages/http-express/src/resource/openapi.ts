import { readFile } from 'node:fs/promises';
import { Router } from 'express';
import { parse } from 'yaml';
import { HttpProblem, problem } from '../problem/problem.js';

/**
 * docs/openapi.yaml of the repository. From src/resource/ and from dist/resource/ alike it is four
 * levels up (packages/http-express/<src|dist>/resource/), so tests and the built server read the same file.
 */
export const OPENAPI_FILE = new URL('../../../../docs/openapi.yaml', import.meta.url);

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

/** `GET /openapi.json`: the API description, public (no authentication), added to `router` (a new one by default). */
export function openApiRouter(router: Router = Router()): Router {
  router.get('/openapi.json', async (_req, res) => {
    const json = await loadOpenApiJson().catch(() => {
      throw new HttpProblem(problem('not-found', 'The API description is not installed with this server.'));
    });
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.type('application/json').send(json);
  });
  return router;
}
