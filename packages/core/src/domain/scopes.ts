/** The scope catalogue (SPEC §3): every scope a client may be registered with, with its words for the consent page. */
export const SCOPE_CATALOGUE: ReadonlyArray<{ scope: string; description: string }> = [
  { scope: 'messaging.v1.send', description: 'Send text messages from your phone numbers' },
  { scope: 'messaging.v1.read', description: 'Read the messages sent from your phone numbers' },
  { scope: 'admin.v1.attributes.read', description: 'Read the attribute names of your accounts and the values set on users' },
  { scope: 'admin.v1.attributes.write', description: 'Create, rename and delete attribute names, and set the values of users' },
];

export const KNOWN_SCOPES: ReadonlySet<string> = new Set(SCOPE_CATALOGUE.map((entry) => entry.scope));

/** The words shown for a scope on the consent page. */
export function describeScope(scope: string): string {
  return SCOPE_CATALOGUE.find((entry) => entry.scope === scope)?.description ?? scope;
}

/** RFC 6749 §3.3: space-delimited, case-sensitive scope tokens; order and repeats do not matter. */
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
