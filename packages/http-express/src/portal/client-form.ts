import { CLIENT_LINK_FIELDS, clientLinks, DEFAULT_GRANT_TYPES, DomainError, GRANT_TYPES, isPublicClient, openIdClientMetadata, validateRegistration, type Client, type ClientLinks, type OpenIdClientRegistration, type ScopeCatalogue } from '@gatehouse/core';
import type { FormFields } from '../security/form-body.js';

/**
 * Each scope is its own checkbox field (`scope_<scope>`): the page form parser refuses repeated
 * parameters (RFC 6749 §3.1 is applied to every form), so one `scope` name per box cannot be used.
 */
export const SCOPE_FIELD_PREFIX = 'scope_';
/** Each grant type is its own checkbox too (`grant_type_<grant type>`). */
export const GRANT_TYPE_FIELD_PREFIX = 'grant_type_';
/**
 * A hidden field of the form saying the grant type boxes were on it: without it (a script that
 * posts the fields the form had before grant types), the grant types are not part of the post —
 * a new client gets the defaults, an edited one keeps its own — rather than "none chosen".
 */
export const GRANT_TYPES_OFFERED_FIELD = 'grant_types_offered';
/** Each configured resource the client may serve as a resource server is its own checkbox (`resource_server_<URI>`). */
export const RESOURCE_SERVER_FIELD_PREFIX = 'resource_server_';
/** The hidden field saying the resource-server boxes were on the form (as `GRANT_TYPES_OFFERED_FIELD`). */
export const RESOURCE_SERVERS_OFFERED_FIELD = 'resource_servers_offered';
/** The hidden field saying the OpenID Connect fields were on the form (an OpenID Provider's portal). */
export const OPENID_OFFERED_FIELD = 'openid_offered';

/** The hidden field saying the link fields were on the form (docs/decisions/0155). */
export const LINKS_OFFERED_FIELD = 'links_offered';
/** The form field of each link: the RFC 7591 name. */
export const LINK_FIELD_NAMES: Readonly<Record<keyof ClientLinks, string>> = { clientUri: 'client_uri', logoUri: 'logo_uri', policyUri: 'policy_uri', tosUri: 'tos_uri' };
/** The links as the form holds them, as typed (empty: none). */
export type LinkFormValues = Record<keyof ClientLinks, string>;

/** A client's OpenID Connect metadata as the form holds it (docs/decisions/0136-openid-client-metadata.md), as typed. */
export interface OpenIdFormValues {
  /** `RS256` (the default) or `ES256`. */
  idTokenSignedResponseAlg: string;
  /** The textarea as typed: one post-logout redirect URI per line. */
  postLogoutRedirectUris: string;
  /** Seconds as typed; empty: none. */
  defaultMaxAge: string;
  requireAuthTime: boolean;
}

export type ClientType = 'confidential' | 'public';

/** What the create and edit forms hold, as typed (kept when the form is shown again). */
export interface ClientFormValues {
  name: string;
  /** Chosen at creation only (`client_type`), shown on edit. */
  clientType: ClientType;
  /** The textarea as typed: one redirect URI per line. */
  redirectUris: string;
  scopes: string[];
  /** `undefined`: the post carried no grant type boxes (see `GRANT_TYPES_OFFERED_FIELD`). */
  grantTypes: string[] | undefined;
  pkceRequired: boolean;
  /**
   * The configured resources the client serves as a resource server (it may introspect their
   * tokens; docs/decisions/0112). `undefined`: the post carried no such boxes (none configured, or
   * an older form): a new client serves none, an edited one keeps its own.
   */
  resourceServerFor?: string[] | undefined;
  /** The OpenID Connect fields; `undefined`: the post carried none (no OpenID Connect): a new client has none, an edited one keeps its own. */
  openid?: OpenIdFormValues | undefined;
  /** Its home page, logo, privacy policy and terms (docs/decisions/0155); `undefined`: the post carried none (an older form): an edited one keeps its own. */
  links?: LinkFormValues | undefined;
}

export type ClientFormField = 'name' | 'redirectUris' | 'scopes' | 'grantTypes' | 'resourceServerFor' | 'idTokenSignedResponseAlg' | 'postLogoutRedirectUris' | 'defaultMaxAge' | keyof ClientLinks;
export type ClientFormErrors = Partial<Record<ClientFormField, string>>;

export const EMPTY_CLIENT_FORM: ClientFormValues = {
  name: '',
  clientType: 'confidential',
  redirectUris: '',
  scopes: [],
  grantTypes: [...DEFAULT_GRANT_TYPES],
  pkceRequired: false,
  openid: { idTokenSignedResponseAlg: 'RS256', postLogoutRedirectUris: '', defaultMaxAge: '', requireAuthTime: false },
  links: { clientUri: '', logoUri: '', policyUri: '', tosUri: '' },
};

export function clientFormValuesOf(client: Client): ClientFormValues {
  return {
    name: client.name,
    clientType: isPublicClient(client) ? 'public' : 'confidential',
    redirectUris: client.redirectUris.join('\n'),
    scopes: [...client.scopes],
    grantTypes: [...client.grantTypes],
    pkceRequired: client.pkceRequired,
    resourceServerFor: [...(client.resourceServerFor ?? [])],
    openid: {
      idTokenSignedResponseAlg: client.idTokenSignedResponseAlg ?? 'RS256',
      postLogoutRedirectUris: (client.postLogoutRedirectUris ?? []).join('\n'),
      defaultMaxAge: client.defaultMaxAge === undefined ? '' : String(client.defaultMaxAge),
      requireAuthTime: client.requireAuthTime === true,
    },
    links: { clientUri: client.clientUri ?? '', logoUri: client.logoUri ?? '', policyUri: client.policyUri ?? '', tosUri: client.tosUri ?? '' },
  };
}

/** Reads the posted form. Any `scope_*` or `grant_type_*` box counts, so a forged one meets the core's checks. */
export function readClientForm(fields: FormFields): ClientFormValues {
  const checked = (prefix: string) =>
    Object.keys(fields)
      .filter((name) => name.startsWith(prefix))
      .map((name) => name.slice(prefix.length));
  return {
    name: fields.name ?? '',
    clientType: fields.client_type === 'public' ? 'public' : 'confidential',
    redirectUris: fields.redirect_uris ?? '',
    scopes: checked(SCOPE_FIELD_PREFIX),
    grantTypes: fields[GRANT_TYPES_OFFERED_FIELD] === undefined ? undefined : checked(GRANT_TYPE_FIELD_PREFIX),
    pkceRequired: fields.pkce_required !== undefined,
    resourceServerFor: fields[RESOURCE_SERVERS_OFFERED_FIELD] === undefined ? undefined : checked(RESOURCE_SERVER_FIELD_PREFIX),
    openid:
      fields[OPENID_OFFERED_FIELD] === undefined
        ? undefined
        : {
            idTokenSignedResponseAlg: fields.id_token_signed_response_alg ?? 'RS256',
            postLogoutRedirectUris: fields.post_logout_redirect_uris ?? '',
            defaultMaxAge: (fields.default_max_age ?? '').trim(),
            requireAuthTime: fields.require_auth_time !== undefined,
          },
    links:
      fields[LINKS_OFFERED_FIELD] === undefined
        ? undefined
        : (Object.fromEntries(CLIENT_LINK_FIELDS.map((field) => [field, (fields[LINK_FIELD_NAMES[field]] ?? '').trim()])) as LinkFormValues),
  };
}

/**
 * The OpenID Connect metadata of the form's fields, as a registration sends it: post-logout
 * redirect URIs one per line, no default max age when the field is empty (`null`: removed on an
 * edit), a `defaultMaxAge` of NaN when it is not a number (the core then names the field).
 */
export function openIdRegistrationOf(values: OpenIdFormValues): OpenIdClientRegistration {
  return {
    idTokenSignedResponseAlg: values.idTokenSignedResponseAlg,
    postLogoutRedirectUris: redirectUriLines(values.postLogoutRedirectUris),
    defaultMaxAge: values.defaultMaxAge === '' ? null : /^\d{1,9}$/.test(values.defaultMaxAge) ? Number(values.defaultMaxAge) : Number.NaN,
    requireAuthTime: values.requireAuthTime,
  };
}

/** The grant types the form offers, in their usual order. */
export const OFFERED_GRANT_TYPES = GRANT_TYPES;

/** The non-empty lines of the redirect URIs textarea. */
export function redirectUriLines(text: string): string[] {
  return text
    .split(/\r\n|\r|\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/** Values known to pass, to check one field at a time. */
function passingFields(catalogue: ScopeCatalogue) {
  return { name: 'x', redirectUris: ['https://client.invalid/callback'], scopes: [catalogue[0]?.scope ?? ''], grantTypes: ['authorization_code'] };
}

function problemOf(check: () => unknown, field: ClientFormField): [ClientFormField, string] | undefined {
  try {
    check();
    return undefined;
  } catch (error) {
    if (!(error instanceof DomainError) || error.kind !== 'invalid') throw error;
    return [(error.field as ClientFormField | undefined) ?? field, error.message];
  }
}

/**
 * Checks the form with the core's own rules (`validateRegistration`, decision 0051: absolute https
 * redirect URIs or http on loopback, no fragment; scopes from the configured catalogue), one field at a
 * time so that every wrong field gets its message at once.
 */
export function checkClientForm(values: ClientFormValues, catalogue: ScopeCatalogue): ClientFormErrors {
  const redirectUris = redirectUriLines(values.redirectUris);
  const passing = passingFields(catalogue);
  const isPublic = values.clientType === 'public';
  // Redirect URIs are needed only with the code flow (docs/decisions/0028-grant-types-per-client.md).
  const codeFlow = values.grantTypes === undefined || values.grantTypes.includes('authorization_code') ? ['authorization_code'] : ['client_credentials'];
  const problems = [
    problemOf(() => validateRegistration({ ...passing, name: values.name }, catalogue), 'name'),
    problemOf(() => validateRegistration({ ...passing, redirectUris, grantTypes: codeFlow }, catalogue), 'redirectUris'),
    problemOf(() => validateRegistration({ ...passing, scopes: values.scopes }, catalogue), 'scopes'),
    problemOf(() => validateRegistration({ ...passing, grantTypes: values.grantTypes ?? DEFAULT_GRANT_TYPES, public: isPublic }, catalogue), 'grantTypes'),
    // OpenID Connect metadata (docs/decisions/0136): the core's rules, one field at a time.
    ...(values.openid === undefined ? [] : openIdProblems(openIdRegistrationOf(values.openid))),
    // The links (docs/decisions/0155): the core's rules, one field at a time.
    ...(values.links === undefined ? [] : CLIENT_LINK_FIELDS.map((field) => problemOf(() => clientLinks({ [field]: values.links?.[field] }), field))),
  ];
  const errors: ClientFormErrors = {};
  for (const problem of problems) {
    if (problem && errors[problem[0]] === undefined) errors[problem[0]] = problem[1];
  }
  return errors;
}

function openIdProblems(registration: OpenIdClientRegistration): Array<[ClientFormField, string] | undefined> {
  return [
    problemOf(() => openIdClientMetadata({ idTokenSignedResponseAlg: registration.idTokenSignedResponseAlg }), 'idTokenSignedResponseAlg'),
    problemOf(() => openIdClientMetadata({ postLogoutRedirectUris: registration.postLogoutRedirectUris }), 'postLogoutRedirectUris'),
    problemOf(() => openIdClientMetadata({ defaultMaxAge: registration.defaultMaxAge }), 'defaultMaxAge'),
  ];
}

const FORM_FIELDS: readonly string[] = ['name', 'redirectUris', 'scopes', 'grantTypes', 'resourceServerFor', 'idTokenSignedResponseAlg', 'postLogoutRedirectUris', 'defaultMaxAge', ...CLIENT_LINK_FIELDS];

/** The field errors of a `DomainError` the core raised anyway (the last word is the core's). */
export function formErrorsOf(error: unknown): ClientFormErrors | undefined {
  if (!(error instanceof DomainError) || error.kind !== 'invalid') return undefined;
  const field = FORM_FIELDS.includes(error.field ?? '') ? (error.field as ClientFormField) : 'name';
  return { [field]: error.message };
}

export function hasErrors(errors: ClientFormErrors): boolean {
  return Object.keys(errors).length > 0;
}
