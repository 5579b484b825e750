import { isOpenIdConnectScope, randomAlphanumeric, type Client, type Gatehouse, type ProductApi } from '@gatehouse/core';

/** The demo data `serve` seeds into an empty database (GATEHOUSE_DEMO, on by default). */
export const DEMO = {
  accountName: 'Demo account',
  email: 'admin@example.com',
  givenName: 'Ada',
  familyName: 'Admin',
  phone: '+15551234567',
  clientName: 'Demo client',
} as const;

export const demoRedirectUri = (issuer: string): string => `${issuer}/demo/callback`;

export interface DemoSeed {
  accountKey: string;
  userKey: string;
  email: string;
  /** Undefined when the demo user existed already (its password was shown when it was made). */
  password: string | undefined;
  phone: string;
  clientId: string;
  clientSecret: string;
}

/** The demo client: the one registered with `<issuer>/demo/callback`. */
export async function findDemoClient(gatehouse: Gatehouse, issuer: string): Promise<Client | undefined> {
  const redirectUri = demoRedirectUri(issuer);
  return (await gatehouse.listClients()).find((client) => client.redirectUris.includes(redirectUri));
}

/**
 * First run: when the database has no client at all, creates the demo account, an admin user
 * with a generated password and a phone number, and the demo client. Returns what was created
 * (with the secrets, to be shown once), or undefined when the database was not empty.
 */
export async function seedDemoIfEmpty(gatehouse: Gatehouse, product: ProductApi, issuer: string): Promise<DemoSeed | undefined> {
  if ((await gatehouse.listClients()).length > 0) return undefined;
  const account = await product.createAccount({ name: DEMO.accountName });
  const existing = await product.findUserByEmail(DEMO.email);
  const password = existing ? undefined : randomAlphanumeric(16);
  const user =
    existing ??
    (await product.createUser({ email: DEMO.email, password: password as string, givenName: DEMO.givenName, familyName: DEMO.familyName }));
  await product.setMembership({ accountKey: account.accountKey, userKey: user.userKey, role: 'admin' });
  await product.addPhoneNumber({ userKey: user.userKey, phoneNumber: DEMO.phone });
  const { client, clientSecret } = await gatehouse.registerClient({
    name: DEMO.clientName,
    redirectUris: [demoRedirectUri(issuer)],
    // Every scope of the configured catalogue (the four built-in ones, GATEHOUSE_SCOPES_FILE's and,
    // with OpenID Connect, its scopes: the README's "Sign in with" walk-through uses this client).
    scopes: gatehouse.settings.scopes.map((entry) => entry.scope),
    ownerUserKey: user.userKey,
  });
  if (clientSecret === null) throw new Error('The demo client is confidential: it has a secret.');
  return { accountKey: account.accountKey, userKey: user.userKey, email: user.email, password, phone: DEMO.phone, clientId: client.clientId, clientSecret };
}

/** RFC 6749 §4.1.1: an authorization request for the demo client, to open in a browser. */
export function authorizeUrl(input: { issuer: string; clientId: string; scopes: readonly string[]; state?: string }): string {
  const url = new URL(`${input.issuer}/oauth/authorize`);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', input.clientId);
  url.searchParams.set('redirect_uri', demoRedirectUri(input.issuer));
  url.searchParams.set('scope', input.scopes.join(' '));
  url.searchParams.set('state', input.state ?? randomAlphanumeric(12));
  return url.toString();
}

/** RFC 6749 §4.1.3: the token request for a code the demo callback received (secret from the shell). */
export function tokenExchangeCurl(input: { issuer: string; clientId: string; code: string }): string {
  return [
    `curl -s -u "${input.clientId}:$CLIENT_SECRET" \\`,
    `  -d grant_type=authorization_code \\`,
    `  --data-urlencode "code=${input.code}" \\`,
    `  --data-urlencode "redirect_uri=${demoRedirectUri(input.issuer)}" \\`,
    `  ${input.issuer}/oauth/token`,
  ].join('\n');
}

/** What `serve` prints (to stderr, outside the JSON log stream) to show how to try the flow. */
export function demoInstructions(input: { issuer: string; client: Pick<Client, 'clientId' | 'scopes'>; seed: DemoSeed | undefined }): string {
  const { issuer, client, seed } = input;
  const lines: string[] = [];
  if (seed) {
    lines.push(
      'First run: demo data created. The secrets below are shown once (only their hashes are stored).',
      `  account  ${DEMO.accountName} (accountKey ${seed.accountKey})`,
      seed.password === undefined
        ? `  admin    ${seed.email} (existing user; password unchanged)`
        : `  admin    e-mail ${seed.email}  password ${seed.password}`,
      `           userKey ${seed.userKey}, phone ${seed.phone}, admin of the demo account`,
      `  client   ${DEMO.clientName}`,
      `           export CLIENT_ID=${seed.clientId}`,
      `           export CLIENT_SECRET=${seed.clientSecret}`,
    );
  } else {
    lines.push(
      `Demo client: CLIENT_ID=${client.clientId} (its secret was shown at first start;`,
      `  \`gatehouse clients rotate-secret ${client.clientId}\` makes a new one).`,
      `Demo admin: ${DEMO.email} (its password was shown at first start;`,
      `  \`gatehouse users set-password --email ${DEMO.email} --password-stdin\` sets a new one).`,
    );
  }
  lines.push(
    '',
    'Try the authorization-code flow:',
    '  1. Open this URL in a browser, sign in as the admin and choose Allow:',
    // The OAuth walk-through: the API scopes (an OpenID request is the openid-client walk-through's).
    `     ${authorizeUrl({ issuer, clientId: client.clientId, scopes: client.scopes.filter((scope) => !isOpenIdConnectScope(scope)) })}`,
    '  2. The demo callback page shows the code. Exchange it (within 60 s):',
    ...tokenExchangeCurl({ issuer, clientId: client.clientId, code: '<CODE>' })
      .split('\n')
      .map((line) => `     ${line}`),
    '  3. Call an API with the access token:',
    `     curl -s -H "Authorization: Bearer $ACCESS_TOKEN" ${issuer}/identity/v1/Users/me`,
  );
  return lines.join('\n');
}
