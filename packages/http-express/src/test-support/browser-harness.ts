import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { findChromium } from './chromium.js';
import { createTestApp, type TestApp, type TestAppOptions } from './test-app.js';

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];

/** What a browser test drives: the app on a real port, headless Chromium, and maybe a client app. */
export interface BrowserHarness {
  browser: Browser;
  /** The app's origin (also its issuer), `http://127.0.0.1:<port>`. */
  origin: string;
  /** The client app's origin (its `/callback` answers "callback reached", `/signed-out` "signed out at the app"); set when asked for. */
  clientOrigin: string;
  t: TestApp;
  /** Closes the browser and both servers. */
  close(): Promise<void>;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function closeServer(server: Server | undefined): Promise<void> {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
}

/**
 * Serves the test app (on in-memory fakes, issuer = its own origin) on a free port and launches
 * headless Chromium. With `clientApp: true` also serves a client app on another origin, as in real
 * life, so the redirect after the consent POST crosses origins (what a CSP form-action would block).
 *
 * @example
 * beforeAll(async () => ({ browser, origin, t } = harness = await startBrowserHarness()), 30_000);
 * afterAll(() => harness?.close());
 */
export async function startBrowserHarness(options: { clientApp?: boolean; settings?: TestAppOptions['settings'] } = {}): Promise<BrowserHarness> {
  const server = createServer();
  let clientServer: Server | undefined;
  let browser: Browser | undefined;
  const close = async (): Promise<void> => {
    await browser?.close();
    await closeServer(server);
    await closeServer(clientServer);
  };
  try {
    const origin = await listen(server);
    let clientOrigin = '';
    if (options.clientApp === true) {
      const clientApp = express();
      clientApp.get('/callback', (_req, res) => {
        res.type('text/plain').send('callback reached');
      });
      // Where RP-initiated logout comes back to (a post-logout redirect URI).
      clientApp.get('/signed-out', (_req, res) => {
        res.type('text/plain').send('signed out at the app');
      });
      clientServer = createServer(clientApp);
      clientOrigin = await listen(clientServer);
    }
    const t = await createTestApp({ settings: { ...options.settings, issuer: origin } });
    server.on('request', t.app);
    browser = await chromium.launch({ executablePath: findChromium(), args: CHROMIUM_ARGS, headless: true });
    return { browser, origin, clientOrigin, t, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * `startBrowserHarness` in the enclosing describe's `beforeAll`, closed in its `afterAll`. Read the
 * fields inside a test (they are there once `beforeAll` has run).
 *
 * @example
 * const harness = useBrowserHarness({ clientApp: true });
 * it('…', async () => {
 *   const { browser, origin, t } = harness;
 * });
 */
export function useBrowserHarness(options: { clientApp?: boolean; settings?: TestAppOptions['settings'] } = {}, timeoutMs = 30_000): Omit<BrowserHarness, 'close'> {
  let harness: BrowserHarness | undefined;
  beforeAll(async () => {
    harness = await startBrowserHarness(options);
  }, timeoutMs);
  afterAll(async () => {
    await harness?.close();
  }, timeoutMs);
  const started = (): BrowserHarness => {
    if (harness === undefined) throw new Error('the browser harness starts in beforeAll');
    return harness;
  };
  return {
    get browser() {
      return started().browser;
    },
    get origin() {
      return started().origin;
    },
    get clientOrigin() {
      return started().clientOrigin;
    },
    get t() {
      return started().t;
    },
  };
}
