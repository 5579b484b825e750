import type { Client, ClientMetadataDocumentFetcher, PasswordHasher } from '@gatehouse/core';
import { createTestGatehouse, type TestGatehouse } from '@gatehouse/core/testing';
import type express from 'express';
import request from 'supertest';
import { createGatehouseApp } from '../app.js';
import type { GatehouseRouterOptions } from '../options.js';
import type { RegistrationLimits } from '../oauth/register.js';
import type { RateLimitSettings } from '../security/rate-limit.js';
import { basicAuth } from './oauth-client.js';
import { createRecordingLogger, type RecordingLogger } from './recording-logger.js';
import { TestBrowser } from './test-browser.js';

export interface TestAppOptions {
  settings?: NonNullable<Parameters<typeof createTestGatehouse>[0]>['settings'];
  /** Fetches Client ID Metadata Documents, for `settings.clientMetadataDocuments`. */
  clientMetadataDocumentFetcher?: ClientMetadataDocumentFetcher;
  /** The registration endpoint's limits (default: generous, 1000 per window, so only their tests meet them). */
  registrationLimits?: RegistrationLimits;
  /** Default: generous (1000 failures per key), so only rate-limit tests meet the limit. */
  rateLimit?: RateLimitSettings;
  trustProxy?: boolean | number | string;
  /** The sign-in page's "Forgot your password?" (`GatehouseRouterOptions.passwordHelp`). */
  passwordHelp?: GatehouseRouterOptions['passwordHelp'];
  /** Routers to mount as `extraRouters` (the portal and resource tests add theirs). */
  extraRouters?: (t: TestGatehouse) => express.Router[];
  /** The password hasher (default: the test kit's fast one). */
  passwords?: PasswordHasher;
}

export interface TestApp extends TestGatehouse {
  app: express.Express;
  logger: RecordingLogger;
  /** A new browser-like client with its own cookie jar. */
  browser(): TestBrowser;
  /** Signs `email` in on a new browser. */
  signedInBrowser(email: string, password?: string): Promise<TestBrowser>;
  /**
   * The whole code flow over HTTP: sign in, authorize, Allow, exchange at /oauth/token with Basic.
   * Returns the token response body and the sign-in browser.
   */
  tokensOverHttp(input: { client: Client; clientSecret: string; email: string; password?: string; extra?: Record<string, string | undefined>; codeVerifier?: string }): Promise<{ body: Record<string, unknown>; browser: TestBrowser }>;
}

/**
 * The Gatehouse app on `createTestGatehouse()` (in-memory repositories, controllable clock,
 * recording audit log) with a recording logger. Issuer `http://localhost:3000` unless overridden.
 *
 * @example
 * const t = await createTestApp();
 * const user = await t.seedUser();
 * const { client, clientSecret } = await t.seedClient();
 * const { body } = await t.tokensOverHttp({ client, clientSecret, email: user.email });
 */
export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const t = await createTestGatehouse({
    ...(options.settings === undefined ? {} : { settings: options.settings }),
    ...(options.clientMetadataDocumentFetcher === undefined ? {} : { clientMetadataDocumentFetcher: options.clientMetadataDocumentFetcher }),
    ...(options.passwords === undefined ? {} : { passwords: options.passwords }),
  });
  const logger = createRecordingLogger();
  const app = createGatehouseApp({
    gatehouse: t.gatehouse,
    product: t.product,
    logger,
    rateLimit: options.rateLimit ?? { maxFailures: 1000, windowSeconds: 60 },
    registrationLimits: options.registrationLimits ?? { maxPerIp: 1000 },
    ...(options.trustProxy === undefined ? {} : { trustProxy: options.trustProxy }),
    ...(options.passwordHelp === undefined ? {} : { passwordHelp: options.passwordHelp }),
    extraRouters: options.extraRouters?.(t) ?? [],
  });
  const testApp: TestApp = {
    ...t,
    app,
    logger,
    browser: () => new TestBrowser(app),
    async signedInBrowser(email, password = 'password123') {
      const browser = new TestBrowser(app);
      const res = await browser.signIn(email, password);
      if (res.status !== 303) throw new Error(`sign-in of ${email} failed with ${res.status}`);
      return browser;
    },
    async tokensOverHttp({ client, clientSecret, email, password, extra, codeVerifier }) {
      const browser = await testApp.signedInBrowser(email, password);
      const { code } = await browser.authorize(client, extra);
      if (code === undefined) throw new Error('no code in the redirect');
      const res = await request(app)
        .post('/oauth/token')
        .set('Authorization', basicAuth(client.clientId, clientSecret))
        .type('form')
        .send({ grant_type: 'authorization_code', code, redirect_uri: extra?.redirect_uri ?? client.redirectUris[0], ...(codeVerifier === undefined ? {} : { code_verifier: codeVerifier }) });
      if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${res.text}`);
      return { body: res.body as Record<string, unknown>, browser };
    },
  };
  return testApp;
}
