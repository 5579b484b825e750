import { Router } from 'express';
import { accentRules } from './branding.js';
import { STYLESHEET, STYLESHEET_PATH } from './styles.js';

/** Serves the shared stylesheet of the pages, with the host's accent colour (already checked: `pageBrand`) when given. */
export function createAssetsRouter(accentColor?: string): Router {
  const router = Router();
  const stylesheet = accentColor === undefined ? STYLESHEET : `${STYLESHEET}${accentRules(accentColor)}`;
  router.get(STYLESHEET_PATH, (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.type('text/css; charset=utf-8').send(stylesheet);
  });
  return router;
}
