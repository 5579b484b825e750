import { Router } from 'express';
import { PAGE_ICON, PAGE_SCRIPT } from './script.js';
import { ICON_PATH, SCRIPT_PATH, STYLESHEET, STYLESHEET_PATH } from './styles.js';

/** Serves the shared stylesheet of the pages, their script (the sign-in page's show-password button) and their icon. */
export function createAssetsRouter(): Router {
  const router = Router();
  router.get(STYLESHEET_PATH, (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.type('text/css; charset=utf-8').send(STYLESHEET);
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
