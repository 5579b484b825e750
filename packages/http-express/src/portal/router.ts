import { DomainError, isPublicClient, type Client } from '@gatehouse/core';
import { Router, type NextFunction, type Request, type Response } from 'express';
import type { GatehouseHttpOptions } from '../options.js';
import { requestLogger, silentLogger } from '../logger.js';
import { pageFormBody, refuseRepeatedSecurityCookies, sendCsrfFailure } from '../oauth/page-forms.js';
import { CSRF_FIELD, csrfSettings, csrfTokenMatches, provideCsrfToken } from '../security/csrf.js';
import type { FormFields } from '../security/form-body.js';
import { loadSignedIn, requireSignedInPage } from '../security/session.js';
import { createPortalAssetsRouter } from './assets.js';
import { sendPortalPage } from './chrome.js';
import { checkClientForm, clientFormValuesOf, EMPTY_CLIENT_FORM, formErrorsOf, hasErrors, readClientForm, redirectUriLines, type ClientFormErrors, type ClientFormValues } from './client-form.js';
import { authorizedAppsPage } from './pages/authorized-apps.js';
import { clientFormPage } from './pages/client-form.js';
import { clientDetailPage, clientsListPage } from './pages/clients.js';
import { deleteConfirmPage, rotateConfirmPage } from './pages/confirm.js';
import { clientPath } from './pages/format.js';
import { clientNotFoundPage } from './pages/not-found.js';
import { secretGonePage, secretPage } from './pages/secret.js';
import { redirectToSecret, takeSecret } from './secret-reveal.js';
import { gatehouseFor } from '../request-scope.js';

/** Client IDs are alphanumeric (docs/security.md "Secrets handling"); anything else is not looked up. */
const CLIENT_ID = /^[A-Za-z0-9]{1,128}$/;

function signedInUser(res: Response) {
  const signedIn = res.locals.signedIn;
  if (!signedIn) throw new Error('requireSignedInPage must run first');
  return signedIn.user;
}

function clientIdParam(req: Request): string {
  const id = req.params.clientId;
  if (typeof id !== 'string' || !CLIENT_ID.test(id)) throw new DomainError('not_found', 'No such client.');
  return id;
}

/**
 * The developer portal (decision 0051, README "Developer portal"): server-rendered pages under /portal where a
 * signed-in user lists, registers, edits, rotates the secret of and deletes their own OAuth
 * clients ("OAuth Clients"), and withdraws the access they gave apps ("Authorized apps").
 * Sign-in is the authorize flow's (the `gatehouse_session` cookie); every form carries a CSRF
 * token; another user's client is a 404, like an unknown one.
 *
 * @example
 * const app = createGatehouseApp({ gatehouse, extraRouters: [createPortalRouter({ gatehouse })] });
 */
export function createPortalRouter(options: GatehouseHttpOptions): Router {
  const { gatehouse } = options;
  const logger = options.logger ?? silentLogger;
  const issuer = gatehouse.settings.issuer.replace(/\/+$/, '');
  const csrf = csrfSettings(issuer, options.csrfKey);
  const router = Router();

  router.use(createPortalAssetsRouter());
  router.get(['/portal', '/portal/'], (_req, res) => res.redirect(302, '/portal/clients'));
  router.post('/portal/*rest', pageFormBody);
  router.use('/portal', refuseRepeatedSecurityCookies(issuer), loadSignedIn(gatehouse), requireSignedInPage, provideCsrfToken(csrf));

  /** Checks the CSRF token of a POST; answers 403 and returns false when it is missing or wrong. */
  function csrfOk(req: Request, res: Response, form: string, back: string): boolean {
    if (csrfTokenMatches(req, res, csrf, (req.body as FormFields)[CSRF_FIELD])) return true;
    requestLogger(logger, res).warn({ event: 'csrf_refused', form }, 'portal form without a valid CSRF token');
    sendCsrfFailure(res, { href: back, label: 'Open the page again' });
    return false;
  }

  function sendForm(res: Response, status: number, mode: 'create' | 'edit', clientId: string | undefined, values: ClientFormValues, errors: ClientFormErrors): void {
    const email = signedInUser(res).email;
    const page = clientFormPage({
      mode,
      email,
      csrfToken: res.locals.csrfToken as string,
      action: clientId === undefined ? '/portal/clients' : clientPath(clientId),
      cancelHref: clientId === undefined ? '/portal/clients' : clientPath(clientId),
      values,
      errors,
      catalogue: gatehouse.settings.scopes,
    });
    sendPortalPage(res, status, page);
  }

  // --- OAuth Clients ---------------------------------------------------------------------------

  router.get('/portal/clients', async (req, res) => {
    const user = signedInUser(res);
    const clients = await gatehouse.listClients(user.userKey);
    const sorted = [...clients].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || a.name.localeCompare(b.name));
    sendPortalPage(res, 200, clientsListPage({ email: user.email, clients: sorted, catalogue: gatehouse.settings.scopes, done: req.query.done }));
  });

  router.get('/portal/clients/new', (_req, res) => sendForm(res, 200, 'create', undefined, EMPTY_CLIENT_FORM, {}));

  router.post('/portal/clients', async (req, res) => {
    if (!csrfOk(req, res, 'client_create', '/portal/clients/new')) return;
    const user = signedInUser(res);
    const values = readClientForm(req.body as FormFields);
    const errors = checkClientForm(values, gatehouse.settings.scopes);
    if (hasErrors(errors)) return sendForm(res, 400, 'create', undefined, values, errors);
    try {
      const { client, clientSecret } = await gatehouseFor(gatehouse, res).registerClient({
        name: values.name,
        public: values.clientType === 'public',
        redirectUris: redirectUriLines(values.redirectUris),
        scopes: values.scopes,
        ...(values.grantTypes === undefined ? {} : { grantTypes: values.grantTypes }),
        pkceRequired: values.pkceRequired,
        ownerUserKey: user.userKey,
      });
      requestLogger(logger, res).info({ event: 'client_created', clientId: client.clientId, userKey: user.userKey }, 'client registered in the portal');
      // A public client has no secret to show once: straight to its page.
      if (clientSecret === null) return void res.redirect(303, `${clientPath(client.clientId)}?done=created`);
      redirectToSecret(res, issuer, client.clientId, clientSecret, 'created');
    } catch (error) {
      const fieldErrors = formErrorsOf(error);
      if (fieldErrors === undefined) throw error;
      sendForm(res, 400, 'create', undefined, values, fieldErrors);
    }
  });

  router.get('/portal/clients/:clientId', async (req, res) => {
    const user = signedInUser(res);
    const client = await gatehouse.findOwnedClient(user.userKey, clientIdParam(req));
    sendPortalPage(res, 200, clientDetailPage({ email: user.email, client, catalogue: gatehouse.settings.scopes, done: req.query.done }));
  });

  router.get('/portal/clients/:clientId/secret', async (req, res) => {
    const user = signedInUser(res);
    const client = await gatehouse.findOwnedClient(user.userKey, clientIdParam(req));
    const taken = takeSecret(req, res, issuer, client);
    if (taken === undefined) {
      return sendPortalPage(res, 200, secretGonePage({ email: user.email, clientId: client.clientId, clientName: client.name }));
    }
    const page = secretPage({ email: user.email, clientId: client.clientId, clientName: client.name, clientSecret: taken.secret, created: taken.reason === 'created' });
    sendPortalPage(res, 200, page, { allowScript: true });
  });

  router.get('/portal/clients/:clientId/edit', async (req, res) => {
    const user = signedInUser(res);
    const client = await gatehouse.findOwnedClient(user.userKey, clientIdParam(req));
    sendForm(res, 200, 'edit', client.clientId, clientFormValuesOf(client), {});
  });

  router.post('/portal/clients/:clientId', async (req, res) => {
    const user = signedInUser(res);
    const clientId = clientIdParam(req);
    if (!csrfOk(req, res, 'client_edit', clientPath(clientId, '/edit'))) return;
    const existing = await gatehouse.findOwnedClient(user.userKey, clientId);
    // The type is fixed at registration: the edit form does not change it.
    const posted = readClientForm(req.body as FormFields);
    const values = { ...posted, clientType: clientFormValuesOf(existing).clientType, grantTypes: posted.grantTypes ?? existing.grantTypes };
    const errors = checkClientForm(values, gatehouse.settings.scopes);
    if (hasErrors(errors)) return sendForm(res, 400, 'edit', clientId, values, errors);
    try {
      await gatehouseFor(gatehouse, res).updateClient({
        ownerUserKey: user.userKey,
        clientId,
        name: values.name,
        redirectUris: redirectUriLines(values.redirectUris),
        scopes: values.scopes,
        grantTypes: values.grantTypes,
        pkceRequired: values.pkceRequired,
      });
    } catch (error) {
      const fieldErrors = formErrorsOf(error);
      if (fieldErrors === undefined) throw error;
      return sendForm(res, 400, 'edit', clientId, values, fieldErrors);
    }
    requestLogger(logger, res).info({ event: 'client_updated', clientId, userKey: user.userKey }, 'client edited in the portal');
    res.redirect(303, `${clientPath(clientId)}?done=updated`);
  });

  /** A public client has no secret: its rotation pages are not there. */
  async function confidentialClient(userKey: string, clientId: string): Promise<Client> {
    const client = await gatehouse.findOwnedClient(userKey, clientId);
    if (isPublicClient(client)) throw new DomainError('not_found', 'A public client has no secret.');
    return client;
  }

  router.get('/portal/clients/:clientId/rotate-secret', async (req, res) => {
    const user = signedInUser(res);
    const client = await confidentialClient(user.userKey, clientIdParam(req));
    sendPortalPage(res, 200, rotateConfirmPage({ email: user.email, csrfToken: res.locals.csrfToken as string, client }));
  });

  router.post('/portal/clients/:clientId/rotate-secret', async (req, res) => {
    const user = signedInUser(res);
    const clientId = clientIdParam(req);
    if (!csrfOk(req, res, 'client_rotate', clientPath(clientId, '/rotate-secret'))) return;
    await confidentialClient(user.userKey, clientId);
    const { clientSecret } = await gatehouseFor(gatehouse, res).rotateClientSecret({ ownerUserKey: user.userKey, clientId });
    requestLogger(logger, res).info({ event: 'client_secret_rotated', clientId, userKey: user.userKey }, 'client secret rotated in the portal');
    redirectToSecret(res, issuer, clientId, clientSecret, 'rotated');
  });

  router.get('/portal/clients/:clientId/delete', async (req, res) => {
    const user = signedInUser(res);
    const client = await gatehouse.findOwnedClient(user.userKey, clientIdParam(req));
    sendPortalPage(res, 200, deleteConfirmPage({ email: user.email, csrfToken: res.locals.csrfToken as string, client }));
  });

  router.post('/portal/clients/:clientId/delete', async (req, res) => {
    const user = signedInUser(res);
    const clientId = clientIdParam(req);
    if (!csrfOk(req, res, 'client_delete', clientPath(clientId, '/delete'))) return;
    await gatehouseFor(gatehouse, res).deleteClient({ ownerUserKey: user.userKey, clientId });
    requestLogger(logger, res).info({ event: 'client_deleted', clientId, userKey: user.userKey }, 'client deleted in the portal');
    res.redirect(303, '/portal/clients?done=deleted');
  });

  // --- Authorized apps -------------------------------------------------------------------------

  router.get('/portal/authorized-apps', async (req, res) => {
    const user = signedInUser(res);
    const apps = await gatehouse.listAuthorizedApps(user.userKey);
    const sorted = [...apps].sort((a, b) => a.clientName.localeCompare(b.clientName));
    sendPortalPage(res, 200, authorizedAppsPage({ email: user.email, csrfToken: res.locals.csrfToken as string, apps: sorted, catalogue: gatehouse.settings.scopes, done: req.query.done }));
  });

  router.post('/portal/authorized-apps/:clientId/revoke', async (req, res) => {
    const user = signedInUser(res);
    if (!csrfOk(req, res, 'authorized_app_revoke', '/portal/authorized-apps')) return;
    const clientId = clientIdParam(req);
    const { revokedGrantIds } = await gatehouseFor(gatehouse, res).revokeAuthorizedApp({ userKey: user.userKey, clientId });
    requestLogger(logger, res).info({ event: 'authorized_app_revoked', clientId, userKey: user.userKey, revokedGrants: revokedGrantIds.length }, 'access withdrawn in the portal');
    res.redirect(303, '/portal/authorized-apps?done=revoked');
  });

  // A client that is not the user's (or an app never authorized) is a 404 page in the portal's frame.
  router.use('/portal', (error: unknown, req: Request, res: Response, next: NextFunction) => {
    if (!(error instanceof DomainError) || error.kind !== 'not_found' || !res.locals.signedIn) return next(error);
    const message = req.path.startsWith('/authorized-apps') ? 'You have not authorized this app, or its access was already withdrawn.' : undefined;
    sendPortalPage(res, 404, clientNotFoundPage({ email: res.locals.signedIn.user.email, ...(message === undefined ? {} : { message }) }));
  });

  return router;
}
