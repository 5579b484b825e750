import { Router } from 'express';
import { STYLESHEET, STYLESHEET_PATH } from './styles.js';

/** Serves the shared stylesheet of the pages. */
export function createAssetsRouter(): Router {
  const router = Router();
  router.get(STYLESHEET_PATH, (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.type('text/css; charset=utf-8').send(STYLESHEET);
  });
  return router;
}
