// `@gatehouse/http-express/pages`: for a host that draws a page of its own with Gatehouse's look
// (the stylesheet, the frame, the page security headers), as the reference server's demo callback
// does. Not needed to embed Gatehouse (docs/decisions/0163-http-express-public-surface.md).
// public-api.test.ts asserts this exact list of values; api/http-express.api.md reports it.
export { html, type SafeHtml } from './html.js';
export { layout, type LayoutOptions } from './layout.js';
export type { PageBrand } from './branding.js';
export { sendPage } from './send.js';
export type { PageCspOptions } from '../security/headers.js';
export { gatehousePaths, type GatehousePaths } from '../oauth/paths.js';
