/**
 * Test helpers of the HTTP adapter (not part of the build): the app on in-memory fakes, a
 * browser-like supertest client with cookie jar and CSRF handling, OAuth request helpers and a
 * recording logger. Import from '../test-support/index.js' in any *.test.ts of this package.
 */
export { createTestApp, type TestApp, type TestAppOptions } from './test-app.js';
export { TestBrowser } from './test-browser.js';
export { basicAuth, formEncode, authorizePath, formBodyOf, inputValue, formAction, exchangeCode } from './oauth-client.js';
export { createRecordingLogger, type RecordingLogger, type LogLine } from './recording-logger.js';
export { createHostApp, linksOf, csrfFieldOf, allowOnConsentPage, onwardOf, HOST_ORIGIN, type HostApp } from './host-app.js';
