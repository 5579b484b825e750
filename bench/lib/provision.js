// Provisioning through the product's own command line (README "Command line") and HTTP API: an account, an
// admin user, a client with every scope, tokens, and the account's attribute names.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { secret, sha256 } from './ids.js';

const run = promisify(execFile);

export const ALL_SCOPES = ['admin.v1.attributes.read', 'admin.v1.attributes.write', 'messaging.v1.read', 'messaging.v1.send'];
export const REDIRECT_URI = 'http://127.0.0.1/bench/callback';
/** RFC 7636 §4.1–4.2: every benchmark code carries the S256 challenge of this verifier (43 characters). */
export const BENCH_CODE_VERIFIER = secret();
export const BENCH_CODE_CHALLENGE = sha256(BENCH_CODE_VERIFIER);

/** Runs `gatehouse <args> --json` and returns the one JSON object it prints. */
export async function gatehouseCli(cliPath, args, env) {
  try {
    const { stdout } = await run(process.execPath, [cliPath, ...args, '--json'], { env: { ...process.env, ...env }, maxBuffer: 16 << 20 });
    return JSON.parse(stdout);
  } catch (error) {
    const stderr = error.stderr ? `\n${String(error.stderr).trim()}` : '';
    throw new Error(`gatehouse ${args.slice(0, 2).join(' ')} failed: ${error.message}${stderr}`, { cause: error });
  }
}

/** Account, admin user and client, created with the CLI (each command migrates first). */
export async function provisionWithCli(cliPath, env) {
  const account = await gatehouseCli(cliPath, ['accounts', 'create', '--name', 'Bench account'], env);
  const password = secret();
  const user = await gatehouseCli(
    cliPath,
    ['users', 'create', '--email', 'bench@bench.invalid', '--password', password, '--given-name', 'Bench', '--family-name', 'User', '--account', account.accountKey, '--role', 'admin'],
    env,
  );
  const client = await gatehouseCli(
    cliPath,
    ['clients', 'create', '--name', 'Bench client', '--redirect-uri', REDIRECT_URI, '--scope', ALL_SCOPES.join(' ')],
    env,
  );
  return { accountKey: account.accountKey, userKey: user.userKey, email: 'bench@bench.invalid', password, clientId: client.clientId, clientSecret: client.clientSecret };
}

/** RFC 6749 §2.3.1: Basic credentials, each part form-urlencoded first. */
export function basicAuthorization(clientId, clientSecret) {
  return `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`;
}

/** The form body of a code exchange with the benchmark's PKCE verifier. */
export function codeExchangeBody(code) {
  return `grant_type=authorization_code&code=${encodeURIComponent(code)}&redirect_uri=${encodeURIComponent(REDIRECT_URI)}&code_verifier=${BENCH_CODE_VERIFIER}`;
}

/** Exchanges one code over HTTP at `tokenUrl`; returns the token response. */
export async function exchangeCode(tokenUrl, identity, code) {
  const response = await fetch(tokenUrl, {
    method: 'POST',
    headers: { authorization: basicAuthorization(identity.clientId, identity.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
    body: codeExchangeBody(code),
  });
  const body = await response.json();
  if (response.status !== 200) throw new Error(`code exchange answered ${response.status}: ${JSON.stringify(body)}`);
  return body;
}

/** Creates `count` attribute names in the account over the admin API; returns their keys. */
export async function createAttributeNames(baseUrl, identity, accessToken, count) {
  const keys = [];
  for (let i = 0; i < count; i += 1) {
    const response = await fetch(`${baseUrl}/admin/rest/v1/accounts/${identity.accountKey}/attributes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `bench attribute ${i}` }),
    });
    const body = await response.json();
    if (response.status !== 201) throw new Error(`creating an attribute name answered ${response.status}: ${JSON.stringify(body)}`);
    keys.push(body.key);
  }
  return keys;
}

/** GET that must answer 200 (a smoke check before measuring). */
export async function expectOk(url, init, expected = 200) {
  const response = await fetch(url, { redirect: 'manual', ...init });
  const text = await response.text();
  if (response.status !== expected) throw new Error(`${init?.method ?? 'GET'} ${url} answered ${response.status}, expected ${expected}: ${text.slice(0, 300)}`);
  return text;
}

/**
 * What a browser posts to sign in: the login page's double-submit CSRF cookie and its field
 * (docs/decisions/0021), read once from `GET /oauth/login`; every sign-in of the scenario reuses them.
 */
export async function loginForm(baseUrl) {
  const page = await fetch(`${baseUrl}/oauth/login`);
  const html = await page.text();
  const cookie = page.headers.getSetCookie().map((header) => header.split(';')[0]).find((pair) => /^(__Host-)?gatehouse_csrf=/.test(pair));
  const csrfToken = /name="csrf_token" value="([^"]+)"/.exec(html)?.[1];
  if (!cookie || !csrfToken) throw new Error(`the login page gave no CSRF cookie and field (${page.status})`);
  return { cookie, csrfToken };
}
