import { Router } from 'express';
import { accentRules } from './branding.js';
import { PAGE_ICON, PAGE_SCRIPT } from './script.js';
import { ICON_PATH, SCRIPT_PATH, STYLESHEET, STYLESHEET_PATH } from './styles.js';

/**
 * Serves the shared stylesheet of the pages (with the host's accent colour, already checked by
 * `pageBrand`, when given), their script (the sign-in page's show-password button) and their icon.
 */
export function createAssetsRouter(accentColor?: string): Router {
  const router = Router();
  const stylesheet = accentColor === undefined ? STYLESHEET : `${STYLESHEET}${accentRules(accentColor)}`;
  router.get(STYLESHEET_PATH, (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.type('text/css; charset=utf-8').send(stylesheet);
  });
  router.get(SCRIPT_PATH, (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.type('text/javascript; charset=utf-8').send(PAGE_SCRIPT);
  });
  router.get(ICON_PATH, (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=86400');
    res.type('image/svg+xml').send(PAGE_ICON);
  });
  return router;
}
