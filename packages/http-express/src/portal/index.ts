export { createPortalRouter } from './router.js';
export { PORTAL_MENU } from './chrome.js';
