import { CLIENT_ID_URL_MAX_LENGTH, DomainError, isClientIdUrl, isPublicClient, StorageUnavailableError, userMayServe, type Client } from '@gatehouse/core';
import { Router, type NextFunction, type Request, type Response } from 'express';
import type { GatehouseHttpOptions } from '../options.js';
import { requestLogger, silentLogger } from '../logger.js';
import { pageFormBody, refuseRepeatedSecurityCookies, sendCsrfFailure } from '../oauth/page-forms.js';
import { CSRF_FIELD, csrfSettings, csrfTokenMatches, provideCsrfToken } from '../security/csrf.js';
import type { FormFields } from '../security/form-body.js';
import { loadSignedIn, requireSignedInPageAt } from '../security/session.js';
import { issuerPath, OAUTH_PATHS, wellKnownMetadataPath } from '../oauth/paths.js';
import { createPortalAssetsRouter } from './assets.js';
import { sendPortalPage } from './chrome.js';
import { checkClientForm, clientFormValuesOf, EMPTY_CLIENT_FORM, formErrorsOf, hasErrors, openIdRegistrationOf, readClientForm, redirectUriLines, type ClientFormErrors, type ClientFormValues } from './client-form.js';
import { authorizedAppsPage } from './pages/authorized-apps.js';
import { clientFormPage } from './pages/client-form.js';
import { clientDetailPage, clientsListPage, type ServerAddresses } from './pages/clients.js';
import { deleteConfirmPage, revokeConfirmPage, rotateConfirmPage } from './pages/confirm.js';
import { rememberDoneName, takeDoneName } from './done-notice.js';
import { clientNotFoundPage } from './pages/not-found.js';
import { authorizedAppPath, clientPath, portalPaths } from './paths.js';
import { secretGonePage, secretPage } from './pages/secret.js';
import { inPlainWords } from './plain-words.js';
import { redirectToSecret, takeSecret } from './secret-reveal.js';
import { gatehouseFor } from '../request-scope.js';
import { sendClientErrorPage, sendUnavailablePage } from '../pages/error.js';
import { clientErrorStatus, logClientError } from '../client-error.js';
import { createStorageOutages } from '../storage-outages.js';

/** Client IDs are alphanumeric (docs/security.md "Secrets handling"); anything else is not looked up. */
const CLIENT_ID = /^[A-Za-z0-9]{1,128}$/;

/**
 * The client ID of an authorized app: a generated one, or the https URL of a Client ID Metadata
 * Document (docs/decisions/0117), which the path carries percent-encoded.
 */
function appIdParam(req: Request): string {
  const id = req.params.clientId;
  if (typeof id === 'string' && (CLIENT_ID.test(id) || (isClientIdUrl(id) && id.length <= CLIENT_ID_URL_MAX_LENGTH))) return id;
  throw new DomainError('not_found', 'No such authorized app.');
}

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
 * The developer portal (decision 0051, docs/portal.md): server-rendered pages under `<issuer path>/portal`
 * (`/portal` for an issuer without a path, `/auth/portal` for `https://host.example/auth`;
 * docs/decisions/0090), where a
 * signed-in user lists, registers, edits, rotates the secret of and deletes their own OAuth
 * clients ("OAuth Clients"), and withdraws the access they gave apps ("Authorized apps").
 * Sign-in is the authorize flow's (the `gatehouse_session` cookie); every form carries a CSRF
 * token; another user's client is a 404, like an unknown one.
 *
 * Mount it where Gatehouse's router is: at the issuer's path.
 *
 * @example
 * app.use('/auth', createGatehouseRouter({ gatehouse }), createPortalRouter({ gatehouse })); // issuer https://host.example/auth
 */
export function createPortalRouter(options: GatehouseHttpOptions): Router {
  const { gatehouse } = options;
  const logger = options.logger ?? silentLogger;
  const storageOutages = options.storageOutages ?? createStorageOutages({ logger });
  // As written, as the metadata and every `iss` (docs/decisions/0183).
  const issuer = gatehouse.settings.issuer;
  const csrf = csrfSettings(issuer, options.csrfKey);
  // Under the issuer's path, like Gatehouse's own pages (docs/decisions/0090).
  // The routes are relative to where the router is mounted (the issuer's path, as Gatehouse's own
  // router); the links, redirects and stylesheets are absolute, built from the issuer's path.
  const paths = portalPaths(issuerPath(issuer));
  const local = portalPaths('');
  // What a client's page tells its developer to configure (docs/decisions/0157): absolute URLs under the issuer.
  const origin = new URL(issuer).origin;
  const addresses: ServerAddresses = {
    issuer,
    discovery: gatehouse.settings.openid ? `${issuer}${OAUTH_PATHS.openidConfiguration}` : `${origin}${wellKnownMetadataPath(issuer)}`,
    authorize: `${origin}${paths.gatehouse.authorize}`,
    token: `${origin}${paths.gatehouse.token}`,
  };
  // Full paths (`/portal/…`), so the route Express matched names the page (the metrics' route label).
  const router = Router();
  router.use(createPortalAssetsRouter(local));
  router.get([local.root, `${local.root}/`], (_req, res) => res.redirect(302, paths.clients));
  router.post(`${local.root}/*rest`, pageFormBody);
  router.use(local.root, refuseRepeatedSecurityCookies(issuer), loadSignedIn(gatehouse), requireSignedInPageAt(paths.gatehouse.login), provideCsrfToken(csrf));

  /** Checks the CSRF token of a POST; answers 403 and returns false when it is missing or wrong. */
  function csrfOk(req: Request, res: Response, form: string, back: string): boolean {
    if (csrfTokenMatches(req, res, csrf, (req.body as FormFields)[CSRF_FIELD])) return true;
    requestLogger(logger, res).warn({ event: 'csrf_refused', form }, 'portal form without a valid CSRF token');
    sendCsrfFailure(res, { href: back, label: 'Open the page again' }, paths.gatehouse);
    return false;
  }

  function sendForm(res: Response, status: number, mode: 'create' | 'edit', clientId: string | undefined, values: ClientFormValues, errors: ClientFormErrors): void {
    const email = signedInUser(res).email;
    const page = clientFormPage({
      mode,
      paths,
      email,
      csrfToken: res.locals.csrfToken as string,
      action: clientId === undefined ? paths.clients : clientPath(paths, clientId),
      cancelHref: clientId === undefined ? paths.clients : clientPath(paths, clientId),
      values,
      errors,
      catalogue: gatehouse.settings.scopes,
      // Gatehouse's own APIs are the operator's to serve (docs/decisions/0186): no box for them.
      resources: gatehouse.settings.resources.filter((entry) => userMayServe(gatehouse.settings, entry.resource)),
      openid: gatehouse.settings.openid,
    });
    sendPortalPage(res, status, page);
  }

  // --- OAuth Clients ---------------------------------------------------------------------------

  router.get('/portal/clients', async (req, res) => {
    const user = signedInUser(res);
    const clients = await gatehouse.listClients(user.userKey);
    const sorted = [...clients].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || a.name.localeCompare(b.name));
    const doneName = takeDoneName(req, res, issuer, paths, req.query.done);
    sendPortalPage(res, 200, clientsListPage({ paths, email: user.email, clients: sorted, catalogue: gatehouse.settings.scopes, done: req.query.done, doneName }));
  });

  router.get('/portal/clients/new', (_req, res) => sendForm(res, 200, 'create', undefined, EMPTY_CLIENT_FORM, {}));

  router.post('/portal/clients', async (req, res) => {
    if (!csrfOk(req, res, 'client_create', paths.newClient)) return;
    const user = signedInUser(res);
    const values = readClientForm(req.body as FormFields);
    const errors = inPlainWords(checkClientForm(values, gatehouse.settings.scopes), values);
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
        ...(values.resourceServerFor === undefined ? {} : { resourceServerFor: values.resourceServerFor }),
        ...(values.openid === undefined ? {} : openIdRegistrationOf(values.openid)),
        // Shown on the consent page (docs/decisions/0155); never the first-party mark, which is the operator's.
        ...(values.links ?? {}),
      });
      requestLogger(logger, res).info({ event: 'client_created', clientId: client.clientId, userKey: user.userKey }, 'client registered in the portal');
      // A public client has no secret to show once: straight to its page.
      if (clientSecret === null) return void res.redirect(303, `${clientPath(paths, client.clientId)}?done=created`);
      redirectToSecret(res, issuer, paths, client.clientId, clientSecret, 'created');
    } catch (error) {
      const fieldErrors = formErrorsOf(error);
      if (fieldErrors === undefined) throw error;
      sendForm(res, 400, 'create', undefined, values, inPlainWords(fieldErrors, values));
    }
  });

  router.get('/portal/clients/:clientId', async (req, res) => {
    const user = signedInUser(res);
    const client = await gatehouse.findOwnedClient(user.userKey, clientIdParam(req));
    sendPortalPage(res, 200, clientDetailPage({ paths, email: user.email, client, catalogue: gatehouse.settings.scopes, resources: gatehouse.settings.resources, done: req.query.done, addresses }), { allowScript: true });
  });

  router.get('/portal/clients/:clientId/secret', async (req, res) => {
    const user = signedInUser(res);
    const client = await gatehouse.findOwnedClient(user.userKey, clientIdParam(req));
    const taken = takeSecret(req, res, issuer, paths, client);
    if (taken === undefined) {
      return sendPortalPage(res, 200, secretGonePage({ paths, email: user.email, clientId: client.clientId, clientName: client.name }));
    }
    const page = secretPage({ paths, email: user.email, clientId: client.clientId, clientName: client.name, clientSecret: taken.secret, created: taken.reason === 'created' });
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
    if (!csrfOk(req, res, 'client_edit', clientPath(paths, clientId, '/edit'))) return;
    const existing = await gatehouse.findOwnedClient(user.userKey, clientId);
    // The type is fixed at registration: the edit form does not change it.
    const posted = readClientForm(req.body as FormFields);
    const values = {
      ...posted,
      clientType: clientFormValuesOf(existing).clientType,
      grantTypes: posted.grantTypes ?? existing.grantTypes,
      resourceServerFor: posted.resourceServerFor ?? existing.resourceServerFor ?? [],
      openid: posted.openid ?? clientFormValuesOf(existing).openid,
      links: posted.links ?? clientFormValuesOf(existing).links,
    };
    const errors = inPlainWords(checkClientForm(values, gatehouse.settings.scopes), values);
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
        // Kept unless the form offered the boxes (docs/decisions/0112).
        ...(posted.resourceServerFor === undefined ? {} : { resourceServerFor: posted.resourceServerFor }),
        // Kept unless the form had the OpenID Connect fields (docs/decisions/0136).
        ...(posted.openid === undefined ? {} : openIdRegistrationOf(posted.openid)),
        // Kept unless the form had the link fields (docs/decisions/0155); an empty one removes it.
        ...(posted.links ?? {}),
      });
    } catch (error) {
      const fieldErrors = formErrorsOf(error);
      if (fieldErrors === undefined) throw error;
      return sendForm(res, 400, 'edit', clientId, values, inPlainWords(fieldErrors, values));
    }
    requestLogger(logger, res).info({ event: 'client_updated', clientId, userKey: user.userKey }, 'client edited in the portal');
    res.redirect(303, `${clientPath(paths, clientId)}?done=updated`);
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
    sendPortalPage(res, 200, rotateConfirmPage({ paths, email: user.email, csrfToken: res.locals.csrfToken as string, client }));
  });

  router.post('/portal/clients/:clientId/rotate-secret', async (req, res) => {
    const user = signedInUser(res);
    const clientId = clientIdParam(req);
    if (!csrfOk(req, res, 'client_rotate', clientPath(paths, clientId, '/rotate-secret'))) return;
    await confidentialClient(user.userKey, clientId);
    const { clientSecret } = await gatehouseFor(gatehouse, res).rotateClientSecret({ ownerUserKey: user.userKey, clientId });
    requestLogger(logger, res).info({ event: 'client_secret_rotated', clientId, userKey: user.userKey }, 'client secret rotated in the portal');
    redirectToSecret(res, issuer, paths, clientId, clientSecret, 'rotated');
  });

  router.get('/portal/clients/:clientId/delete', async (req, res) => {
    const user = signedInUser(res);
    const client = await gatehouse.findOwnedClient(user.userKey, clientIdParam(req));
    sendPortalPage(res, 200, deleteConfirmPage({ paths, email: user.email, csrfToken: res.locals.csrfToken as string, client }));
  });

  router.post('/portal/clients/:clientId/delete', async (req, res) => {
    const user = signedInUser(res);
    const clientId = clientIdParam(req);
    if (!csrfOk(req, res, 'client_delete', clientPath(paths, clientId, '/delete'))) return;
    const { name } = await gatehouse.findOwnedClient(user.userKey, clientId);
    await gatehouseFor(gatehouse, res).deleteClient({ ownerUserKey: user.userKey, clientId });
    rememberDoneName(res, issuer, paths, 'deleted', name);
    requestLogger(logger, res).info({ event: 'client_deleted', clientId, userKey: user.userKey }, 'client deleted in the portal');
    res.redirect(303, `${paths.clients}?done=deleted`);
  });

  // --- Authorized apps -------------------------------------------------------------------------

  router.get('/portal/authorized-apps', async (req, res) => {
    const user = signedInUser(res);
    const apps = await gatehouse.listAuthorizedApps(user.userKey);
    const sorted = [...apps].sort((a, b) => a.clientName.localeCompare(b.clientName));
    const doneName = takeDoneName(req, res, issuer, paths, req.query.done);
    sendPortalPage(res, 200, authorizedAppsPage({ paths, email: user.email, apps: sorted, catalogue: gatehouse.settings.scopes, done: req.query.done, doneName }));
  });

  /** The app `clientId` among those the user authorized; a 404 otherwise. */
  async function authorizedApp(userKey: string, clientId: string) {
    const app = (await gatehouse.listAuthorizedApps(userKey)).find((candidate) => candidate.clientId === clientId);
    if (app === undefined) throw new DomainError('not_found', 'No such authorized app.');
    return app;
  }

  router.get('/portal/authorized-apps/:clientId/revoke', async (req, res) => {
    const user = signedInUser(res);
    const app = await authorizedApp(user.userKey, appIdParam(req));
    sendPortalPage(res, 200, revokeConfirmPage({ paths, email: user.email, csrfToken: res.locals.csrfToken as string, app }));
  });

  router.post('/portal/authorized-apps/:clientId/revoke', async (req, res) => {
    const user = signedInUser(res);
    const clientId = appIdParam(req);
    if (!csrfOk(req, res, 'authorized_app_revoke', authorizedAppPath(paths, clientId, '/revoke'))) return;
    const { clientName } = await authorizedApp(user.userKey, clientId);
    const { revokedGrantIds } = await gatehouseFor(gatehouse, res).revokeAuthorizedApp({ userKey: user.userKey, clientId });
    requestLogger(logger, res).info({ event: 'authorized_app_revoked', clientId, userKey: user.userKey, revokedGrants: revokedGrantIds.length }, 'access withdrawn in the portal');
    rememberDoneName(res, issuer, paths, 'revoked', clientName);
    res.redirect(303, `${paths.authorizedApps}?done=revoked`);
  });

  // A client that is not the user's (or an app never authorized) is a 404 page in the portal's frame.
  router.use(local.root, (error: unknown, req: Request, res: Response, next: NextFunction) => {
    // An outage of the storage: 503 with Retry-After, logged once per outage (decision 0100).
    if (error instanceof StorageUnavailableError && !res.headersSent) {
      storageOutages.failed(error);
      sendUnavailablePage(res, error, { paths: paths.gatehouse });
      return;
    }
    // What Express or a parser refused as the client's mistake (a malformed %-escape in a path
    // parameter: 400), raised before the sign-in check: that status, as a page (decision 0180).
    const clientError = clientErrorStatus(error);
    if (clientError !== undefined && !res.headersSent) {
      logClientError(logger, res, clientError, error);
      sendClientErrorPage(res, clientError, { paths: paths.gatehouse, link: { href: paths.clients, label: 'Go to your OAuth clients' } });
      return;
    }
    if (!(error instanceof DomainError) || error.kind !== 'not_found' || !res.locals.signedIn) return next(error);
    const message = req.path.startsWith('/authorized-apps') ? 'You have not authorized this app, or its access was already withdrawn.' : undefined;
    sendPortalPage(res, 404, clientNotFoundPage({ paths, email: res.locals.signedIn.user.email, ...(message === undefined ? {} : { message }) }));
  });

  return router;
}
