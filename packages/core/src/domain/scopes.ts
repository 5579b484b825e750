import { isOpenIdConnectScope } from './openid-scopes.js';

/** One scope of the catalogue: the token and the words the consent page shows for it. */
export interface ScopeDefinition {
  /** An RFC 6749 §3.3 scope-token in the product's form (docs/decisions/0015-scopes-are-configuration.md). */
  scope: string;
  /** What the scope allows, in words a user understands (shown on the consent page and in the portal). */
  description: string;
}

/** The scopes a deployment offers: every scope a client may be registered with. */
export type ScopeCatalogue = readonly ScopeDefinition[];

/**
 * The product's own four scopes (docs/architecture.md): the default catalogue of `defineSettings`.
 *
 * @example
 * defineSettings({ issuer, scopes: [...DEFAULT_SCOPES, { scope: 'orders.v1.read', description: 'Read your orders' }] });
 */
export const DEFAULT_SCOPES: ScopeCatalogue = Object.freeze([
  { scope: 'messaging.v1.send', description: 'Send text messages from your phone numbers' },
  { scope: 'messaging.v1.read', description: 'Read the messages sent from your phone numbers' },
  { scope: 'admin.v1.attributes.read', description: 'Read the attribute names of your accounts and the values set on users' },
  { scope: 'admin.v1.attributes.write', description: 'Create, rename and delete attribute names, and set the values of users' },
].map((entry) => Object.freeze(entry)));

/**
 * Whether `scope` is in the catalogue.
 *
 * @example
 * isCataloguedScope(settings.scopes, 'orders.v1.read'); // true when configured
 */
export function isCataloguedScope(catalogue: ScopeCatalogue, scope: string): boolean {
  return catalogue.some((entry) => entry.scope === scope);
}

/**
 * The words shown for a scope on the consent page (the scope itself when it is not catalogued).
 *
 * @example
 * describeScope(DEFAULT_SCOPES, 'messaging.v1.send'); // 'Send text messages from your phone numbers'
 */
export function describeScope(catalogue: ScopeCatalogue, scope: string): string {
  return catalogue.find((entry) => entry.scope === scope)?.description ?? scope;
}

/**
 * RFC 6749 §3.3: space-delimited, case-sensitive scope tokens; order and repeats do not matter.
 *
 * @example
 * parseScope('messaging.v1.read  messaging.v1.send messaging.v1.read'); // ['messaging.v1.read', 'messaging.v1.send']
 */
export function parseScope(scope: string): string[] {
  return [...new Set(scope.split(' ').filter((token) => token.length > 0))];
}

export function formatScope(scopes: readonly string[]): string {
  return scopes.join(' ');
}

/** RFC 6749 §3.3 scope-token: %x21 / %x23-5B / %x5D-7E. */
export function isValidScopeToken(token: string): boolean {
  return /^[\x21\x23-\x5B\x5D-\x7E]+$/.test(token);
}

/**
 * The product's scope form (docs/decisions/0015-scopes-are-configuration.md):
 * `<area>.<version>.<resource>.<action>` or `<area>.<version>.<action>`, each name in lower case
 * (letters, digits, `-` or `_`, starting with a letter), the version `v` and a number.
 */
const SCOPE_FORM = /^[a-z][a-z0-9_-]*\.v[0-9]+(\.[a-z][a-z0-9_-]*)?\.[a-z][a-z0-9_-]*$/;

const MAX_SCOPE_LENGTH = 100;
const MAX_DESCRIPTION_LENGTH = 200;

/**
 * What is wrong with a catalogue, or undefined when it can be used: each scope an RFC 6749 §3.3
 * scope-token in the product's form (or, with `openid`, one of the OpenID Connect scopes, whose
 * form is the standard's: docs/decisions/0130-openid-connect-scopes-and-claims.md), no scope twice,
 * each with a description of 1 to 200 characters without control characters.
 *
 * @example
 * scopeCatalogueProblem([{ scope: 'orders.read', description: 'Read orders' }]);
 * // 'the scope "orders.read" is not of the form <area>.<version>.<resource>.<action> or <area>.<version>.<action> (such as orders.v1.read)'
 */
export function scopeCatalogueProblem(catalogue: ScopeCatalogue, options: { openid?: boolean } = {}): string | undefined {
  if (catalogue.length === 0) return 'the scope catalogue is empty';
  const seen = new Set<string>();
  for (const entry of catalogue) {
    const scope: unknown = entry.scope;
    const description: unknown = entry.description;
    if (typeof scope !== 'string' || scope.length > MAX_SCOPE_LENGTH || !isValidScopeToken(scope)) {
      return `the scope ${JSON.stringify(scope)} is not an RFC 6749 §3.3 scope-token of at most ${MAX_SCOPE_LENGTH} characters`;
    }
    if (isOpenIdConnectScope(scope)) {
      if (options.openid !== true) return `the scope ${JSON.stringify(scope)} is an OpenID Connect scope: it is offered when OpenID Connect is on (openid: true)`;
    } else if (!SCOPE_FORM.test(scope)) {
      return `the scope ${JSON.stringify(scope)} is not of the form <area>.<version>.<resource>.<action> or <area>.<version>.<action> (such as orders.v1.read)`;
    }
    if (seen.has(scope)) return `the scope ${JSON.stringify(scope)} is listed twice`;
    seen.add(scope);
    if (typeof description !== 'string' || description.trim() === '' || description.length > MAX_DESCRIPTION_LENGTH || /\p{Cc}/u.test(description)) {
      return `the scope ${JSON.stringify(scope)} needs a description of 1 to ${MAX_DESCRIPTION_LENGTH} characters without control characters`;
    }
  }
  return undefined;
}
