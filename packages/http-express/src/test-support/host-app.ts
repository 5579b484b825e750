import { createTestGatehouse, type TestGatehouse } from '@gatehouse/core/testing';
import express, { type NextFunction, type Request, type Response } from 'express';
import request from 'supertest';
import { authorizationServerMetadataRouter, createGatehouseRouter } from '../embed/router.js';
import type { GatehouseRouterOptions } from '../options.js';

/** The origin supertest's cookie jar treats as ours. */
export const HOST_ORIGIN = 'http://127.0.0.1';

export interface HostApp extends TestGatehouse {
  /** The host service: its own parsers and routes, Gatehouse at `/auth`. */
  app: express.Express;
  /** A browser-like agent on the host (carries cookies). */
  agent(): ReturnType<typeof request.agent>;
}

/**
 * A small existing "orders" service embedding Gatehouse as a new user would: its own body
 * parsers first, Gatehouse's router at `/auth` (the issuer's path), the RFC 8414 §3.1 metadata at
 * the root, then its own routes, its own 404 and its own error handler.
 */
export async function createHostApp(
  options: { routerOptions?: Omit<GatehouseRouterOptions, 'gatehouse'>; gatehouse?: Parameters<typeof createTestGatehouse>[0]; beforeOwnRoutes?: (app: express.Express, t: TestGatehouse) => void } = {},
): Promise<HostApp> {
  const t = await createTestGatehouse({ ...options.gatehouse, settings: { issuer: `${HOST_ORIGIN}/auth`, ...options.gatehouse?.settings } });
  const app = express();
  app.use(express.urlencoded({ extended: false }));
  app.use(express.json());
  app.use(authorizationServerMetadataRouter(t.gatehouse));
  app.use('/auth', createGatehouseRouter({ gatehouse: t.gatehouse, rateLimit: { maxFailures: 1000, windowSeconds: 60 }, ...options.routerOptions }));
  options.beforeOwnRoutes?.(app, t);
  app.get('/orders', (_req, res) => void res.json({ orders: ['o-1'] }));
  app.get('/fails', () => {
    throw new Error('the host failed');
  });
  app.use((_req: Request, res: Response) => void res.status(404).type('text/plain').send('host 404'));
  app.use((_error: unknown, _req: Request, res: Response, _next: NextFunction) => void res.status(500).type('text/plain').send('host 500'));
  return { ...t, app, agent: () => request.agent(app) };
}

/** Every `href`, `src` and form `action` of a page (entities decoded). */
export function linksOf(html: string): string[] {
  return [...html.matchAll(/\s(?:href|src|action)="([^"]*)"/g)].map((match) => (match[1] as string).replace(/&amp;/g, '&'));
}

/**
 * Where an answer sends the browser: a redirect's `Location`, or the meta refresh of a page that
 * moves on at once (`completeGatehouseLogin` / `completeGatehouseConsent` after a POST,
 * docs/decisions/0141), entities decoded. Throws when it does neither.
 */
export function onwardOf(res: { status: number; headers: Record<string, unknown>; text: string }): string {
  if (res.status >= 300 && res.status < 400) return String(res.headers.location);
  const refresh = /<meta http-equiv="refresh" content="0;url=([^"]*)">/.exec(res.text)?.[1];
  if (res.status !== 200 || refresh === undefined) throw new Error(`the answer (${res.status}) sends the browser nowhere`);
  return refresh.replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/** The value of the `csrf_token` hidden field of a page. */
export function csrfFieldOf(html: string): string {
  const token = /name="csrf_token" value="([^"]+)"/.exec(html)?.[1];
  if (token === undefined) throw new Error('the page has no CSRF field');
  return token;
}

/**
 * Presses Allow on a consent page of the router mounted at /auth: posts its decision form with the
 * page's CSRF field. Returns the response (302 to the client with a code).
 */
export function allowOnConsentPage(browser: ReturnType<typeof request.agent>, consentHtml: string) {
  const action = linksOf(consentHtml).find((link) => link.startsWith('/auth/oauth/authorize/decision?')) as string;
  return browser.post(action).type('form').send({ csrf_token: csrfFieldOf(consentHtml), decision: 'allow' });
}
