import { redirectUriProblem } from '@gatehouse/core';
import { redirectUriLines, type ClientFormErrors, type ClientFormValues } from './client-form.js';

/** Between the messages of one field that has several (each wrong redirect URI): the page shows each apart. */
export const FIELD_MESSAGE_SEPARATOR = '\n';

/** At most this many redirect URIs (the core's rule, `validateRegistration`). */
const MAX_REDIRECT_URIS = 20;

/** What is wrong with one redirect URI, said as what to do, naming it. */
function redirectUriAdvice(uri: string): string | undefined {
  const problem = redirectUriProblem(uri);
  if (problem === undefined) return undefined;
  if (problem.includes('absolute')) return `“${uri}” is not a full address: start it with https://`;
  if (problem.includes('fragment')) return `Remove the # part from “${uri}”`;
  if (problem.includes('user information')) return `Remove the user name or password from “${uri}”`;
  if (problem.includes('wildcards')) return `Name one host in “${uri}”: redirect URIs are compared exactly, so * matches nothing`;
  if (problem.includes('at most')) return `Shorten “${uri.slice(0, 60)}…”: a redirect URI has at most 1000 characters`;
  // The core names the spelling to use (docs/decisions/0197-redirect-uris-canonical.md).
  const canonical = /write it as (\S+)$/.exec(problem)?.[1];
  if (canonical !== undefined) return `Write “${uri}” as “${canonical}”`;
  return `Use https:// in “${uri}” (http:// only on localhost, 127.0.0.1 or [::1])`;
}

/** What to do about the name; the core's own words where they already say it (an invisible character, too many clients). */
function nameAdvice(name: string, message: string): string {
  const trimmed = name.trim();
  if (trimmed === '') return 'Enter a client name';
  if ([...trimmed].length > 100) return 'Enter a client name of at most 100 characters';
  if (message.includes('control characters')) return 'Enter a client name without line breaks or control characters';
  return message;
}

function redirectUrisAdvice(text: string): string | undefined {
  const lines = [...new Set(redirectUriLines(text))];
  if (lines.length === 0) return 'Enter at least one redirect URI';
  if (lines.length > MAX_REDIRECT_URIS) return `Enter at most ${MAX_REDIRECT_URIS} redirect URIs`;
  // Every wrong line is reported, not only the first, each its own message (`FIELD_MESSAGE_SEPARATOR`).
  const advice = lines.map(redirectUriAdvice).filter((line): line is string => line !== undefined);
  return advice.length === 0 ? undefined : advice.join(FIELD_MESSAGE_SEPARATOR);
}

/**
 * The portal form's errors said in plain words, as what to do ("Enter a client name"), and every
 * invalid redirect URI named, not only the first the core met. The core's rules decide what is
 * wrong (`checkClientForm`); only the words change. A field this does not know keeps its message.
 */
export function inPlainWords(errors: ClientFormErrors, values: ClientFormValues): ClientFormErrors {
  const plain: ClientFormErrors = { ...errors };
  if (errors.name !== undefined) plain.name = nameAdvice(values.name, errors.name);
  if (errors.redirectUris !== undefined) plain.redirectUris = redirectUrisAdvice(values.redirectUris) ?? errors.redirectUris;
  if (errors.scopes !== undefined && values.scopes.length === 0) plain.scopes = 'Choose at least one scope';
  return plain;
}
