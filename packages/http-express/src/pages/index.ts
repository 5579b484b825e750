export { html, escapeHtml, unsafeRaw, SafeHtml } from './html.js';
export { layout, type LayoutOptions } from './layout.js';
export { sendPage } from './send.js';
export { errorPage, type ErrorPageInput } from './error.js';
export { loginPage, signedInPage, type LoginPageInput } from './login.js';
export { consentPage, type ConsentPageInput } from './consent.js';
export { logoutConfirmPage, signedOutPage } from './logout.js';
export { createAssetsRouter } from './assets.js';
export { STYLESHEET_PATH } from './styles.js';
