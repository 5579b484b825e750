import { DomainError } from '@gatehouse/core';
import {
  accessTokenOf,
  authorizationServerMetadataRouter,
  bearerAuth,
  bearerErrorHandler,
  completeGatehouseLogin,
  createGatehouseRouter,
  issuerPath,
  logoutGatehouseUser,
  requireScope,
} from '@gatehouse/http-express';
import express from 'express';
import { orderProblem, ordersOf, placeOrder } from './orders.js';
import { homePage, loginPage, messagePage, switchAccountPage } from './pages.js';
import { cookieOf, endSessions, sessionOf, SESSION_COOKIE, startSession, userOfSession } from './sessions.js';
import { checkPassword, findUser } from './users.js';

/**
 * The orders service: its own pages, sign-in and API, with Gatehouse mounted at the issuer's
 * path (`/auth`) as its OAuth 2.0 authorization server.
 *
 * @param {{ db: import('better-sqlite3').Database, gatehouse: import('@gatehouse/core').Gatehouse, storage?: import('@gatehouse/http-express').RouterStorage }} input
 * @returns {import('express').Express}
 */
export function createOrdersApp({ db, gatehouse, storage }) {
  const issuer = gatehouse.settings.issuer;
  const origin = new URL(issuer).origin;
  const secureCookies = new URL(issuer).protocol === 'https:';
  const app = express();
  app.disable('x-powered-by');

  // RFC 8414 §3.1: an issuer with a path publishes its metadata at the host's root,
  // /.well-known/oauth-authorization-server/auth.
  app.use(authorizationServerMetadataRouter(gatehouse));
  // Every OAuth endpoint and page under the issuer's path (/auth/oauth/authorize, /auth/oauth/token,
  // …). A browser that must sign in is sent to this service's /login with a login_request.
  // Gatehouse's pages wear the service's name, logo and colour; "Not you?" on its consent page leads
  // to this service's /switch-account (its own login form is not served: this service signs in).
  // Given the storage, Gatehouse counts failures where the storage shares them and refuses to start
  // on a storage several instances share without a common csrfKey (one instance here, on SQLite).
  app.use(
    issuerPath(issuer) || '/',
    createGatehouseRouter({
      gatehouse,
      loginUrl: '/login',
      switchAccountUrl: '/switch-account',
      branding: { productName: 'Orders', logoUrl: '/logo.svg', accentColor: '#0a7f5a' },
      ...(storage === undefined ? {} : { storage }),
    }),
  );
  app.get('/logo.svg', (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.type('image/svg+xml').send(LOGO_SVG);
  });

  // ---- The service's own pages: home, sign-in, sign-out ----------------------------------------

  /** @param {import('express').Request} req */
  const signedInUser = (req) => {
    const userId = userOfSession(db, cookieOf(req, SESSION_COOKIE));
    return userId === undefined ? undefined : findUser(db, userId);
  };

  app.get('/', (req, res) => {
    const user = signedInUser(req);
    sendHtml(res, 200, homePage(user && { user, orders: ordersOf(db, user.id) }));
  });

  app.get('/login', async (req, res) => {
    const loginRequest = typeof req.query.login_request === 'string' ? req.query.login_request : '';
    const session = sessionOf(db, cookieOf(req, SESSION_COOKIE));
    // What the app asks of this sign-in: prompt=login or max_age want a password entered recently.
    const asked = loginRequest === '' ? undefined : await gatehouse.describeLoginRequest(loginRequest);
    const freshEnough = session !== undefined && (asked?.authenticatedAfter === undefined || session.authenticatedAt >= asked.authenticatedAfter);
    // Already signed in to the service, recently enough: hand the user to Gatehouse at once (it shows its consent page next).
    if (session && freshEnough && loginRequest !== '') return handToGatehouse(res, loginRequest, session.userId, session.authenticatedAt);
    const email = session ? findUser(db, session.userId)?.email : asked?.loginHint;
    const notice = session && asked ? `${asked.clientName} asks you to enter your password again.` : undefined;
    sendHtml(res, 200, loginPage({ loginRequest, ...(email ? { email } : {}), ...(notice ? { notice } : {}) }));
  });

  app.post('/login', sameOriginOnly(origin), express.urlencoded({ extended: false, limit: '8kb' }), async (req, res) => {
    const { email, password, login_request: loginRequest = '' } = /** @type {Record<string, string | undefined>} */ (req.body ?? {});
    const user = typeof email === 'string' && typeof password === 'string' ? await checkPassword(db, email, password) : undefined;
    if (!user) return sendHtml(res, 401, loginPage({ loginRequest, email, error: 'The e-mail or password is not right.' }));
    const signedInAt = new Date();
    res.cookie(SESSION_COOKIE, startSession(db, user.id, signedInAt), { httpOnly: true, sameSite: 'lax', secure: secureCookies, path: '/' });
    if (loginRequest === '') return void res.redirect(303, '/');
    await handToGatehouse(res, loginRequest, user.id, signedInAt);
  });

  /**
   * Tells Gatehouse who signed in, and when they entered their password: it sets its own session
   * cookie and sends the browser back to the authorization request, which goes on to consent (or,
   * with the consent remembered, to the app): a redirect for a GET, a page that moves on at once
   * for the form's POST, which this page's CSP `form-action 'self'` would otherwise block in Chromium.
   *
   * @param {import('express').Response} res
   * @param {string} loginRequest
   * @param {number} userId
   * @param {Date} authenticatedAt
   */
  async function handToGatehouse(res, loginRequest, userId, authenticatedAt) {
    try {
      await completeGatehouseLogin(gatehouse, res, { loginRequest, userKey: String(userId), authenticatedAt });
    } catch (error) {
      // An unknown, expired (10 minutes) or already used login request; or one that wants a
      // fresher sign-in than the one given (the form above asks for the password then).
      if (!(error instanceof DomainError)) throw error;
      sendHtml(res, 400, messagePage('This sign-in has expired', 'Go back to the app you came from and start again.'));
    }
  }

  // "Not you?": sign out of the service and of Gatehouse, then back to the app's request, which
  // asks for a sign-in again. return_to must be an authorization request of this Gatehouse.
  const authorizePrefix = `${issuerPath(issuer)}/oauth/authorize?`;
  /** @param {unknown} value */
  const requestToReturnTo = (value) => (typeof value === 'string' && value.startsWith(authorizePrefix) ? value : '/');

  app.get('/switch-account', (req, res) => {
    sendHtml(res, 200, switchAccountPage({ email: signedInUser(req)?.email, returnTo: requestToReturnTo(req.query.return_to) }));
  });

  app.post('/switch-account', sameOriginOnly(origin), express.urlencoded({ extended: false, limit: '8kb' }), async (req, res) => {
    const userId = userOfSession(db, cookieOf(req, SESSION_COOKIE));
    if (userId !== undefined) {
      endSessions(db, userId);
      await logoutGatehouseUser(gatehouse, res, String(userId));
    }
    res.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'lax', secure: secureCookies, path: '/' });
    res.redirect(303, requestToReturnTo(req.body?.return_to));
  });

  app.post('/logout', sameOriginOnly(origin), async (req, res) => {
    const userId = userOfSession(db, cookieOf(req, SESSION_COOKIE));
    if (userId !== undefined) {
      endSessions(db, userId);
      // Gatehouse's sessions of this user end too, and the apps they allowed lose their tokens.
      await logoutGatehouseUser(gatehouse, res, String(userId));
    }
    res.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'lax', secure: secureCookies, path: '/' });
    res.redirect(303, '/');
  });

  // ---- The service's API, for OAuth clients ----------------------------------------------------

  app.get('/orders', bearerAuth(gatehouse, { realm: 'orders' }), requireScope('orders.v1.read'), (_req, res) => {
    // The token's subject is the users table's id (createUserDirectory makes it the userKey).
    res.setHeader('Cache-Control', 'no-store');
    res.json({ orders: ordersOf(db, Number(accessTokenOf(res).userKey)) });
  });

  app.post('/orders', bearerAuth(gatehouse, { realm: 'orders' }), requireScope('orders.v1.write'), express.json({ limit: '8kb' }), (req, res) => {
    const problem = orderProblem(req.body);
    if (problem !== undefined) return void res.status(400).json({ error: 'invalid_order', message: problem });
    const { item, quantity } = req.body;
    res.status(201).json(placeOrder(db, { userId: Number(accessTokenOf(res).userKey), item: item.trim(), quantity }));
  });

  // 400/401/403 with WWW-Authenticate: Bearer realm="orders", error="…" (RFC 6750 §3) for the API.
  app.use(bearerErrorHandler());
  app.use((_req, res) => void res.status(404).type('text/plain').send('Not found'));
  app.use(lastErrorHandler);
  return app;
}

/** The service's logo, shown on Gatehouse's pages too (a same-origin path: their CSP loads images from here only). */
const LOGO_SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><rect width="24" height="24" rx="5" fill="#0a7f5a"/><path d="M6 8h12l-1.5 9h-9z" fill="#fff"/></svg>';

/**
 * The service's last error handler: a client's mistake (a body parser's 400 or 413) keeps its
 * status, anything else is logged and answered 500 without details.
 *
 * @param {any} error
 * @param {import('express').Request} _req
 * @param {import('express').Response} res
 * @param {import('express').NextFunction} _next
 */
function lastErrorHandler(error, _req, res, _next) {
  const status = typeof error?.status === 'number' && error.status >= 400 && error.status < 500 ? error.status : 500;
  if (status === 500) console.error(error);
  res.status(status).type('text/plain').send(status === 500 ? 'Something went wrong' : 'Bad request');
}

/**
 * The service's own forms accept only posts from its own pages: a browser sends `Origin` with
 * every form post, and another site's form has its own. (Gatehouse's forms carry CSRF tokens of
 * their own.) Requests without `Origin`, such as curl's, go through.
 *
 * @param {string} origin
 * @returns {import('express').RequestHandler}
 */
function sameOriginOnly(origin) {
  return (req, res, next) => {
    const from = req.get('origin');
    if (from !== undefined && from !== origin) return void res.status(403).type('text/plain').send('Cross-site form posts are refused.');
    next();
  };
}

/**
 * @param {import('express').Response} res
 * @param {number} status
 * @param {string} html
 */
function sendHtml(res, status, html) {
  res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Cache-Control', 'no-store');
  res.status(status).type('html').send(html);
}
