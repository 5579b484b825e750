/** OIDC Core §3.1.2.1: the scope that makes an authorization request an OpenID Connect request. */
export const OPENID_SCOPE = 'openid';

/**
 * The OpenID Connect scopes (OIDC Core §3.1.2.1, §5.4, §11) with the words the consent page shows:
 * what `defineSettings({ openid: true })` adds to the catalogue (docs/decisions/0130-openid-connect-scopes-and-claims.md).
 * An embedder that lists one of them in its own `scopes` keeps its own words.
 *
 * @example
 * defineSettings({ issuer, openid: true }).scopes.map((entry) => entry.scope);
 * // ['messaging.v1.send', …, 'openid', 'profile', 'email', 'phone', 'address', 'offline_access']
 */
export const OIDC_SCOPES: ReadonlyArray<Readonly<{ scope: string; description: string }>> = Object.freeze(
  [
    { scope: 'openid', description: 'Sign you in to the app with your account' },
    { scope: 'profile', description: 'See your name and profile details, such as your language' },
    { scope: 'email', description: 'See your e-mail address' },
    { scope: 'phone', description: 'See your phone number' },
    { scope: 'address', description: 'See your postal address' },
    { scope: 'offline_access', description: 'Keep access while you are not using the app, until you sign out or withdraw it' },
  ].map((entry) => Object.freeze(entry)),
);

const OIDC_SCOPE_NAMES: ReadonlySet<string> = new Set(OIDC_SCOPES.map((entry) => entry.scope));

/**
 * Whether `scope` is one of the OpenID Connect scopes, which are not of the product's scope form.
 *
 * @example
 * isOpenIdConnectScope('email'); // true
 * isOpenIdConnectScope('messaging.v1.read'); // false
 */
export function isOpenIdConnectScope(scope: string): boolean {
  return OIDC_SCOPE_NAMES.has(scope);
}

/** OIDC Core §5.4: the claims each scope asks for (the UserInfo endpoint answers them). */
export const CLAIMS_OF_SCOPE: Readonly<Record<string, readonly string[]>> = Object.freeze({
  profile: Object.freeze([
    'name',
    'family_name',
    'given_name',
    'middle_name',
    'nickname',
    'preferred_username',
    'profile',
    'picture',
    'website',
    'gender',
    'birthdate',
    'zoneinfo',
    'locale',
    'updated_at',
  ]),
  email: Object.freeze(['email', 'email_verified']),
  address: Object.freeze(['address']),
  phone: Object.freeze(['phone_number', 'phone_number_verified']),
});

/**
 * The claims the granted scopes allow, `sub` always first (OIDC Core §5.3.2, §5.4).
 *
 * @example
 * claimsAllowedBy(['openid', 'email']); // ['sub', 'email', 'email_verified']
 */
export function claimsAllowedBy(scopes: readonly string[]): string[] {
  return ['sub', ...scopes.flatMap((scope) => CLAIMS_OF_SCOPE[scope] ?? [])];
}

/**
 * Every claim Gatehouse may issue (Discovery §3 `claims_supported`): those of the ID token and
 * those of the scopes.
 */
export const SUPPORTED_CLAIMS: readonly string[] = Object.freeze([
  'sub',
  'iss',
  'aud',
  'exp',
  'iat',
  'auth_time',
  'nonce',
  'at_hash',
  'sid',
  'amr',
  'acr',
  ...Object.values(CLAIMS_OF_SCOPE).flat(),
]);
