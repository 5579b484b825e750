import { Router } from 'express';
import type { Logger } from '../logger.js';

/**
 * GET /healthz: the process is up (for a liveness probe).
 * GET /readyz: the database answers and the server is not stopping (for a readiness probe / load
 * balancer): from the moment shutdown begins it answers 503, while requests in flight finish.
 */
export function healthRouter(options: { ping: () => Promise<boolean>; logger: Pick<Logger, 'warn'>; stopping?: () => boolean }): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.set('Cache-Control', 'no-store').json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    if (options.stopping?.() === true) {
      res.set('Cache-Control', 'no-store').status(503).json({ status: 'stopping' });
      return;
    }
    let ready = false;
    try {
      ready = await options.ping();
    } catch (error) {
      options.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'database ping failed');
    }
    res.set('Cache-Control', 'no-store').status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'unavailable' });
  });
  return router;
}
