import { DomainError, validateRegistration, type Client, type ScopeCatalogue } from '@gatehouse/core';
import type { FormFields } from '../security/form-body.js';

/**
 * Each scope is its own checkbox field (`scope_<scope>`): the page form parser refuses repeated
 * parameters (RFC 6749 §3.1 is applied to every form), so one `scope` name per box cannot be used.
 */
export const SCOPE_FIELD_PREFIX = 'scope_';

/** What the create and edit forms hold, as typed (kept when the form is shown again). */
export interface ClientFormValues {
  name: string;
  /** The textarea as typed: one redirect URI per line. */
  redirectUris: string;
  scopes: string[];
  pkceRequired: boolean;
}

export type ClientFormField = 'name' | 'redirectUris' | 'scopes';
export type ClientFormErrors = Partial<Record<ClientFormField, string>>;

export const EMPTY_CLIENT_FORM: ClientFormValues = { name: '', redirectUris: '', scopes: [], pkceRequired: false };

export function clientFormValuesOf(client: Client): ClientFormValues {
  return { name: client.name, redirectUris: client.redirectUris.join('\n'), scopes: [...client.scopes], pkceRequired: client.pkceRequired };
}

/** Reads the posted form. Any `scope_*` box counts, so a forged scope meets the core's catalogue check. */
export function readClientForm(fields: FormFields): ClientFormValues {
  const scopes = Object.keys(fields)
    .filter((name) => name.startsWith(SCOPE_FIELD_PREFIX))
    .map((name) => name.slice(SCOPE_FIELD_PREFIX.length));
  return {
    name: fields.name ?? '',
    redirectUris: fields.redirect_uris ?? '',
    scopes,
    pkceRequired: fields.pkce_required !== undefined,
  };
}

/** The non-empty lines of the redirect URIs textarea. */
export function redirectUriLines(text: string): string[] {
  return text
    .split(/\r\n|\r|\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/** Values known to pass, to check one field at a time. */
function passingFields(catalogue: ScopeCatalogue) {
  return { name: 'x', redirectUris: ['https://client.invalid/callback'], scopes: [catalogue[0]?.scope ?? ''] };
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
  const problems = [
    problemOf(() => validateRegistration({ ...passing, name: values.name }, catalogue), 'name'),
    problemOf(() => validateRegistration({ ...passing, redirectUris }, catalogue), 'redirectUris'),
    problemOf(() => validateRegistration({ ...passing, scopes: values.scopes }, catalogue), 'scopes'),
  ];
  const errors: ClientFormErrors = {};
  for (const problem of problems) {
    if (problem && errors[problem[0]] === undefined) errors[problem[0]] = problem[1];
  }
  return errors;
}

/** The field errors of a `DomainError` the core raised anyway (the last word is the core's). */
export function formErrorsOf(error: unknown): ClientFormErrors | undefined {
  if (!(error instanceof DomainError) || error.kind !== 'invalid') return undefined;
  const field = error.field === 'name' || error.field === 'redirectUris' || error.field === 'scopes' ? error.field : 'name';
  return { [field]: error.message };
}

export function hasErrors(errors: ClientFormErrors): boolean {
  return Object.keys(errors).length > 0;
}
