import { isLoopbackHost } from '../domain/redirect-uri.js';
import type { Client } from '../domain/model.js';
import { DomainError } from '../errors.js';
import { clientOrigin, type ClientOrigin } from './client-origin.js';

/**
 * The links a client shows people (RFC 7591 §2): its home page (`client_uri`), logo (`logo_uri`),
 * privacy policy (`policy_uri`) and terms of service (`tos_uri`)
 * (docs/decisions/0155-who-is-asking-on-the-consent-page.md).
 */
export type ClientLinks = Pick<Client, 'clientUri' | 'logoUri' | 'policyUri' | 'tosUri'>;

/** The same, as a registration or an update sends them: unchecked; `''` or `null` removes one (an update), `undefined` keeps it. */
export type ClientLinksRegistration = { [Key in keyof ClientLinks]?: string | null | undefined };

/** The link fields, in the order the consent page and the portal show them. */
export const CLIENT_LINK_FIELDS = ['clientUri', 'logoUri', 'policyUri', 'tosUri'] as const;

/** What each link is called in errors and on pages. */
export const CLIENT_LINK_LABELS: Readonly<Record<keyof ClientLinks, string>> = Object.freeze({
  clientUri: 'home page',
  logoUri: 'logo',
  policyUri: 'privacy policy',
  tosUri: 'terms of service',
});

/** The longest link accepted (as RFC 7591 fields are bounded, `METADATA_LIMITS.uri`). */
const MAX_LINK_LENGTH = 1000;

/**
 * Why a link cannot be shown to people, or undefined when it can: an absolute `https` URL, or
 * `http` on a loopback host (a developer's machine); a logo, which the browser loads by itself,
 * `https` only. No user information (`https://bank.example@evil.example/`) is accepted.
 *
 * @example
 * clientLinkProblem('clientUri', 'http://127.0.0.1:3000/'); // undefined
 * clientLinkProblem('logoUri', 'http://127.0.0.1:3000/logo.png'); // 'must use https'
 */
export function clientLinkProblem(field: keyof ClientLinks, uri: string): string | undefined {
  if (uri.length > MAX_LINK_LENGTH) return `must be at most ${MAX_LINK_LENGTH} characters`;
  if (!URL.canParse(uri)) return 'must be an absolute URL';
  const url = new URL(uri);
  if (url.username !== '' || url.password !== '') return 'must not contain user information';
  if (url.protocol === 'https:') return undefined;
  if (field === 'logoUri') return 'must use https';
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return undefined;
  return 'must use https (http is allowed on loopback only)';
}

/**
 * Checks a client's links (`DomainError('invalid')` naming the field) and returns them as stored:
 * each as given (trimmed), else as `existing` has it (an update), else absent; `''` or `null` removes one.
 *
 * @example
 * clientLinks({ clientUri: 'https://app.example', logoUri: '' }, { logoUri: 'https://app.example/logo.png' });
 * // { clientUri: 'https://app.example' }
 */
export function clientLinks(input: ClientLinksRegistration, existing: ClientLinks = {}): ClientLinks {
  const links: ClientLinks = {};
  for (const field of CLIENT_LINK_FIELDS) {
    const given = input[field];
    if (given !== undefined && given !== null && typeof given !== 'string') {
      throw new DomainError('invalid', `The ${CLIENT_LINK_LABELS[field]} must be a URL.`, { field });
    }
    const uri = given === undefined ? existing[field] : (given ?? '').trim();
    if (uri === undefined || uri === '') continue;
    const problem = clientLinkProblem(field, uri);
    if (problem !== undefined) throw new DomainError('invalid', `The ${CLIENT_LINK_LABELS[field]} ${uri} ${problem}.`, { field });
    links[field] = uri;
  }
  return links;
}

/** What a user is shown of a client before allowing it (docs/decisions/0155). */
export interface ClientPresentation {
  /** How it came to be: who vouches for its name. */
  origin: ClientOrigin;
  /**
   * Who registered it: the portal user's e-mail (`user`), the operator or the host (`operator`: no
   * owner), or the client itself (`itself`: Dynamic Client Registration or a metadata document).
   */
  registeredBy: { kind: 'user'; email: string } | { kind: 'operator' } | { kind: 'itself' };
  /** The links that may be shown: those of `clientLinkProblem`'s rules, read again (a rule may be stricter than when they were stored). */
  links: ClientLinks;
  /** Marked first-party by the operator. */
  firstParty: boolean;
}

/**
 * The links a client shows: its own (registered by the operator, a portal user or the host), or
 * those of its RFC 7591 metadata (a self-registered client), each only when it passes
 * `clientLinkProblem` (a link stored under an older, looser rule is left out). A self-registered
 * client's logo is never shown: nobody reviewed it, and it could be any brand's
 * (docs/decisions/0174-no-logo-for-self-registered-clients.md).
 *
 * @example
 * shownClientLinks(client); // { clientUri: 'https://app.example', policyUri: 'https://app.example/privacy' }
 */
export function shownClientLinks(client: Client): ClientLinks {
  const source: ClientLinks = client.registration?.metadata ?? client;
  const links: ClientLinks = {};
  for (const field of CLIENT_LINK_FIELDS) {
    // The Client ID Metadata Document draft's "Displaying Logos to End-Users": a logo a client
    // asserts itself is shown only after the server fetched and moderated it, which Gatehouse does not.
    if (field === 'logoUri' && client.registration !== undefined) continue;
    const uri = source[field];
    if (uri !== undefined && clientLinkProblem(field, uri) === undefined) links[field] = uri;
  }
  return links;
}

/**
 * What the consent page shows of a client: who registered it, its links, whether the operator
 * marked it first-party. `ownerEmail`: the e-mail of its owner (`client.ownerUserKey`), when it
 * has one that still exists.
 *
 * @example
 * clientPresentation(client, 'dev@example.com');
 * // { origin: { registration: 'static', … }, registeredBy: { kind: 'user', email: 'dev@example.com' }, links: { … }, firstParty: false }
 */
export function clientPresentation(client: Client, ownerEmail: string | undefined): ClientPresentation {
  const origin = clientOrigin(client);
  const registeredBy: ClientPresentation['registeredBy'] =
    origin.registration !== 'static' ? { kind: 'itself' } : ownerEmail !== undefined ? { kind: 'user', email: ownerEmail } : { kind: 'operator' };
  // A self-registered client cannot be first-party: the flag is the operator's, for clients the operator registered.
  return { origin, registeredBy, links: shownClientLinks(client), firstParty: client.firstParty === true && origin.registration === 'static' };
}

/** What a user allowed a client, as the consent page showed it and as codes go: its name, links, redirect URIs and scopes. */
export type WhatUsersAllowed = Pick<Client, 'name' | 'redirectUris' | 'scopes'> & Partial<ClientLinks>;

/**
 * Whether a change of a client changes what the users who allowed it allowed
 * (docs/decisions/0195-client-updates-forget-remembered-consent.md): what the consent page showed —
 * the name, the links (docs/decisions/0155) and whether every redirect URI is loopback
 * (docs/decisions/0117) — where codes go (the redirect URIs, compared as a set), or scopes the client
 * did not have. Narrower scopes or another order of the same redirect URIs change none of that. One
 * rule for an RFC 7592 update and for an edit in the portal or the CLI.
 *
 * @example
 * changesWhatUsersAllowed(client, { ...client, redirectUris: ['https://elsewhere.example/cb'] }); // true
 */
export function changesWhatUsersAllowed(before: WhatUsersAllowed, after: WhatUsersAllowed): boolean {
  if (after.name !== before.name) return true;
  if (!sameSet(after.redirectUris, before.redirectUris)) return true;
  if (after.scopes.some((scope) => !before.scopes.includes(scope))) return true;
  return CLIENT_LINK_FIELDS.some((field) => after[field] !== before[field]);
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((entry) => b.includes(entry)) && b.every((entry) => a.includes(entry));
}
