import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, gatehouseJson, type ServerProcess } from '../support/processes.js';
import { startCluster, type Cluster } from './support/cluster.js';
import { authorizeCode, browserAt, exchange, kidOf, me, refresh, revoke, type Party, type TokenResponse } from './support/oauth.js';
import { dropSchema, freshSchemaName, POSTGRES_URL, query, warnIfSkipped } from './support/postgres.js';

// Two real `gatehouse serve` processes on one PostgreSQL schema, behind a round-robin load
// balancer whose URL is the issuer of both (docs/operations.md "Running several instances",
// docs/decisions/0080, 0081). Each instance is also called on its own port, to pin a step to it.

/** docs/operations.md: a revocation is seen by every instance on its next request (no per-instance grant cache). */
const REVOCATION_BOUND_MS = 0;
/** docs/operations.md: instances sign with a key made by `gatehouse keys rotate` from GATEHOUSE_JWKS_MAX_AGE_SECONDS (0 in this cluster) + 10 s after the rotation, not before. */
const KEY_ADOPTION_MS = 10_000;
/** docs/operations.md: every instance publishes a key made by `gatehouse keys rotate` within 5 s. */
const KEY_PUBLISHED_MS = 5_000;
/** How often the test asks an instance again while waiting. */
const POLL_MS = 500;
/** GATEHOUSE_RATE_LIMIT_MAX_FAILURES, left at its default. */
const RATE_LIMIT_MAX_FAILURES = 5;
/**
 * Scheduling slack on a shared, busy machine (two server processes, the CLI, PostgreSQL), for what
 * this test measures on its own clock: how long it waits before giving up, and one request's round
 * trip. The documented bounds themselves are judged on the server side's clock (below).
 */
const SLACK_MS = 10_000;
/**
 * Lateness within a server process, on the server side's clock: between choosing the signing key
 * and stamping the token's `iat`, and between the rotation's commit and a read of the key set that
 * just missed it. Also the whole second that a `Date` header or an `iat` rounds down.
 */
const SERVER_SLACK_MS = 2_000;

const SCOPE = 'messaging.v1.send messaging.v1.read';
const PASSWORD = 'correct horse battery';

warnIfSkipped('the two-instance test (apps/server/test/multi-instance)');

describe.skipIf(!POSTGRES_URL)('two gatehouse instances on one PostgreSQL database', () => {
  const schema = freshSchemaName();
  let cluster: Cluster | undefined;
  let a: ServerProcess;
  let b: ServerProcess;
  let party: Party;
  /** The tokens of a grant made on A, used across the tests below. */
  let grant: TokenResponse;

  beforeAll(async () => {
    await ensureBuilt();
    // Both start at once on an empty schema: the migrations and the first signing key race.
    cluster = await startCluster({ postgresUrl: POSTGRES_URL as string, schema, count: 2 });
    [a, b] = cluster.instances as [ServerProcess, ServerProcess];

    // Provisioned with the CLI, on the same database, while both instances run.
    const email = 'ada@example.com';
    await gatehouseJson(['users', 'create', '--email', email, '--password', PASSWORD, '--given-name', 'Ada', '--family-name', 'Lovelace'], cluster.env);
    const redirectUri = 'http://127.0.0.1:9/callback';
    const client = await gatehouseJson<{ clientId: string; clientSecret: string }>(
      ['clients', 'create', '--name', 'Two-instance app', '--redirect-uri', redirectUri, '--scope', SCOPE, '--owner', email],
      cluster.env,
    );
    party = { issuer: cluster.lb.origin, clientId: client.clientId, clientSecret: client.clientSecret, redirectUri, email, password: PASSWORD, scope: SCOPE };
  }, 120_000);

  afterAll(async () => {
    const exits = await cluster?.stop();
    await dropSchema(schema);
    // A clean stop of both (SIGTERM → exit code 0), and no secret in any log line.
    expect(exits).toEqual([0, 0]);
    const everything = cluster?.instances.map((instance) => instance.stdout() + instance.stderr()).join('\n') ?? '';
    for (const secret of [PASSWORD, party?.clientSecret, grant?.access_token, grant?.refresh_token, cluster?.env.GATEHOUSE_KEY_SECRET]) {
      if (secret) expect(everything).not.toContain(secret);
    }
    // Room for the instances' stop (cluster.ts: up to 30 s each, side by side) and the schema's drop.
  }, 60_000);

  it('started together on an empty schema: migrated once, both ready, one issuer for both', async () => {
    const migrations = await query<{ name: string }>(`select name from "${schema}".gatehouse_migration order by name`);
    expect(migrations.length).toBeGreaterThan(0);
    expect(new Set(migrations.map((row) => row.name)).size).toBe(migrations.length);
    for (const origin of [a.origin, b.origin, cluster?.lb.origin as string]) {
      expect((await fetch(`${origin}/readyz`)).status).toBe(200);
      const metadata = (await (await fetch(`${origin}/.well-known/oauth-authorization-server`)).json()) as { issuer: string; token_endpoint: string };
      expect(metadata.issuer).toBe(party.issuer);
      expect(metadata.token_endpoint).toBe(`${party.issuer}/oauth/token`);
    }
  });

  it('signs in through the load balancer across both instances; a code issued by A is exchanged on B, once', async () => {
    const lb = cluster?.lb as Cluster['lb'];
    const browser = browserAt(party.issuer);
    const before = lb.served.length;
    const code = await authorizeCode(browser, party, a.origin);
    // The sign-in hopped between the instances (sessions and CSRF tokens are not per instance).
    expect(new Set(lb.served.slice(before).map((entry) => entry.backend))).toEqual(new Set([a.origin, b.origin]));

    const first = await exchange(b.origin, party, code);
    expect(first.status).toBe(200);
    const tokens = (await first.json()) as TokenResponse;
    expect(tokens).toMatchObject({ token_type: 'Bearer', scope: SCOPE, principal: party.email, expires_in: 3600 });

    // A token signed by B verifies on A and on B.
    expect((await me(a.origin, tokens.access_token)).status).toBe(200);
    expect((await me(b.origin, tokens.access_token)).status).toBe(200);

    // The second exchange fails on either instance, and revokes the grant of the first (RFC 6749 §4.1.2).
    for (const origin of [a.origin, b.origin]) {
      const replay = await exchange(origin, party, code);
      expect(replay.status).toBe(400);
      expect(await replay.json()).toMatchObject({ error: 'invalid_grant' });
    }
    for (const origin of [a.origin, b.origin]) {
      const refused = await me(origin, tokens.access_token);
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
    }
  });

  it('one code raced on both instances at once yields exactly one token response', async () => {
    const code = await authorizeCode(browserAt(party.issuer), party, b.origin);
    const attempts = [a, b, a, b, a, b].map((instance) => exchange(instance.origin, party, code));
    const responses = await Promise.all(attempts);
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 400)).toHaveLength(5);
    for (const response of responses.filter((r) => r.status === 400)) expect(await response.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('an access token issued by A works at B (B verifies A\'s kid); a refresh on A works on B and on B works on A', async () => {
    const code = await authorizeCode(browserAt(party.issuer), party, a.origin);
    const response = await exchange(a.origin, party, code);
    expect(response.status).toBe(200);
    grant = (await response.json()) as TokenResponse;

    const atB = await me(b.origin, grant.access_token);
    expect(atB.status).toBe(200);
    expect(await atB.json()).toMatchObject({ userName: party.email, name: { givenName: 'Ada', familyName: 'Lovelace' } });

    const onA = await refresh(a.origin, party, grant.refresh_token as string);
    expect(onA.status).toBe(200);
    const fromA = (await onA.json()) as TokenResponse;
    expect((await me(b.origin, fromA.access_token)).status).toBe(200);

    const onB = await refresh(b.origin, party, grant.refresh_token as string);
    expect(onB.status).toBe(200);
    const fromB = (await onB.json()) as TokenResponse;
    expect((await me(a.origin, fromB.access_token)).status).toBe(200);
    expect(new Set([grant.access_token, fromA.access_token, fromB.access_token]).size).toBe(3);
  });

  it('`gatehouse keys rotate` on the database: both instances move to the new key, and each verifies the other\'s tokens', async () => {
    const before = await refresh(a.origin, party, grant.refresh_token as string);
    const old = (await before.json()) as TokenResponse;
    const oldKid = kidOf(old.access_token);

    const rotationStarted = Date.now();
    const { kid: newKid, signsFrom } = await gatehouseJson<{ kid: string; signsFrom: string }>(['keys', 'rotate'], cluster?.env as Record<string, string>);
    const rotationDone = Date.now();
    expect(newKid).not.toBe(oldKid);
    // The hand-over's times, set by the rotation (the CLI, on the machine's clock that the
    // instances share): the new key was made during the command and signs KEY_ADOPTION_MS later.
    const signsFromMs = Date.parse(signsFrom);
    const createdAtMs = signsFromMs - KEY_ADOPTION_MS;
    expect(createdAtMs).toBeGreaterThanOrEqual(rotationStarted);
    expect(createdAtMs).toBeLessThanOrEqual(rotationDone);

    // The new key is published before it is used: every instance lists it in its JWKS within
    // KEY_PUBLISHED_MS, and signs with it from KEY_ADOPTION_MS after the rotation, not before.
    // Both are judged by what the instances stamped (a JWKS answer's Date, a token's iat), not by
    // when this test, on a busy machine, got round to asking.
    const [published, adopted] = await Promise.all([
      Promise.all([a, b].map((instance) => jwksUntilListing(instance, newKid))),
      Promise.all([a, b].map((instance) => tokensUntilSignedWith(instance, party, grant.refresh_token as string, newKid))),
    ]);
    for (const { kids, unlistedAt } of published) {
      expect(kids).toEqual(expect.arrayContaining([oldKid, newKid]));
      // Every answer without the key was served within KEY_PUBLISHED_MS of its creation.
      for (const servedAt of unlistedAt) expect(servedAt - createdAtMs).toBeLessThanOrEqual(KEY_PUBLISHED_MS + SERVER_SLACK_MS);
    }
    for (const { token, at, before } of adopted) {
      expect(kidOf(token)).toBe(newKid);
      // Tokens issued right after the rotation still carried an older kid…
      expect(before.length).toBeGreaterThan(0);
      expect(before.map((earlier) => earlier.kid)).not.toContain(newKid);
      // …signed before the new key's time (not later: the instance switched when it was due)…
      for (const earlier of before) expect(earlier.iat * 1000 - signsFromMs).toBeLessThanOrEqual(SERVER_SLACK_MS);
      // …and the new key signed from its time, not before (iat counts whole seconds, rounded down).
      expect(iatOf(token)).toBeGreaterThanOrEqual(Math.floor(signsFromMs / 1000));
      expect(at - rotationStarted).toBeGreaterThanOrEqual(KEY_ADOPTION_MS);
    }
    const [fromA, fromB] = adopted.map((entry) => entry.token) as [string, string];

    // Each verifies the other's new tokens on the first try, and the old key's tokens still.
    expect((await me(b.origin, fromA)).status).toBe(200);
    expect((await me(a.origin, fromB)).status).toBe(200);
    for (const instance of [a, b]) {
      expect((await me(instance.origin, old.access_token)).status).toBe(200);
      const { keys } = (await (await fetch(`${instance.origin}/oauth/jwks`)).json()) as { keys: Array<{ kid: string }> };
      expect(keys.map((key) => key.kid)).toEqual(expect.arrayContaining([oldKid, newKid]));
    }
  }, 90_000);

  it(`a grant revoked on A is refused by B within the documented bound (${REVOCATION_BOUND_MS} ms: the next request)`, async () => {
    const current = (await (await refresh(b.origin, party, grant.refresh_token as string)).json()) as TokenResponse;
    // B has verified (and cached) the token before the revocation.
    expect((await me(b.origin, current.access_token)).status).toBe(200);

    const revoked = await revoke(a.origin, party, grant.refresh_token as string, 'refresh_token');
    expect(revoked.status).toBe(200);
    const revokedAt = Date.now();

    const refused = await untilStatus(() => me(b.origin, current.access_token), 401, REVOCATION_BOUND_MS);
    expect(refused.response.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(refused.at - revokedAt).toBeLessThanOrEqual(REVOCATION_BOUND_MS + SLACK_MS);
    expect(refused.attempts).toBe(1);

    const refreshOnB = await refresh(b.origin, party, grant.refresh_token as string);
    expect(refreshOnB.status).toBe(400);
    expect(await refreshOnB.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it(`failed client authentications are counted across instances: ${RATE_LIMIT_MAX_FAILURES} in all, wherever they land (docs/decisions/0023)`, async () => {
    // Last: it leaves this client limited from this address for the window.
    const wrong = { ...party, clientSecret: 'not-the-secret-of-this-client-at-all-0000000' };
    for (let attempt = 1; attempt <= RATE_LIMIT_MAX_FAILURES; attempt += 1) {
      const refused = await refresh((attempt % 2 === 1 ? a : b).origin, wrong, 'whatever');
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ error: 'invalid_client' });
    }
    for (const instance of [a, b]) {
      const limited = await refresh(instance.origin, wrong, 'whatever');
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      // Limited before the secret is checked: the right secret is refused too, on either instance.
      expect((await refresh(instance.origin, party, 'whatever')).status).toBe(429);
    }
  });
});

/**
 * Refreshes on `instance` every POLL_MS until the access token's kid is `kid` (giving up after the
 * bound and its slack): that token, when it came, and the kid and iat of the tokens before it.
 */
async function tokensUntilSignedWith(instance: ServerProcess, party: Party, refreshToken: string, kid: string): Promise<{ token: string; at: number; before: Array<{ kid: string; iat: number }> }> {
  const before: Array<{ kid: string; iat: number }> = [];
  const { value: token, at } = await until(
    async () => {
      const response = await refresh(instance.origin, party, refreshToken);
      if (response.status !== 200) throw new Error(`refresh on ${instance.origin} answered ${response.status}: ${await response.text()}`);
      return ((await response.json()) as TokenResponse).access_token;
    },
    (token) => {
      if (kidOf(token) === kid) return true;
      before.push({ kid: kidOf(token), iat: iatOf(token) });
      return false;
    },
    KEY_ADOPTION_MS + POLL_MS + SLACK_MS + 1000,
  );
  return { token, at, before };
}

/**
 * Reads an instance's JWKS every POLL_MS until it lists `kid` (giving up after the bound and its
 * slack): the kids of the last answer, and when the instance served each answer without `kid` (its
 * Date header: whole seconds, rounded down).
 */
async function jwksUntilListing(instance: ServerProcess, kid: string): Promise<{ kids: string[]; unlistedAt: number[] }> {
  const unlistedAt: number[] = [];
  const { value } = await until(
    () => jwksKids(instance),
    ({ kids, servedAt }) => {
      if (kids.includes(kid)) return true;
      unlistedAt.push(servedAt);
      return false;
    },
    KEY_PUBLISHED_MS + SLACK_MS,
  );
  return { kids: value.kids, unlistedAt };
}

/**
 * Calls `request` until it answers `status`: at least once, and again while less than `boundMs`
 * has passed since the first call. Returns the last response, when it came, and how many calls.
 */
async function untilStatus(request: () => Promise<Response>, status: number, boundMs: number): Promise<{ response: Response; at: number; attempts: number }> {
  const start = Date.now();
  let attempts = 0;
  for (;;) {
    const response = await request();
    attempts += 1;
    if (response.status === status || Date.now() - start >= boundMs) return { response, at: Date.now(), attempts };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The kids an instance publishes at /oauth/jwks, and when it served them (its Date header). */
async function jwksKids(instance: ServerProcess): Promise<{ kids: string[]; servedAt: number }> {
  const response = await fetch(`${instance.origin}/oauth/jwks`);
  const { keys } = (await response.json()) as { keys: Array<{ kid: string }> };
  return { kids: keys.map((key) => key.kid), servedAt: Date.parse(response.headers.get('date') ?? '') };
}

/** A JWT's `iat` (whole seconds since the epoch), as the server stamped it. */
function iatOf(jwt: string): number {
  return (JSON.parse(Buffer.from(jwt.split('.')[1] as string, 'base64url').toString('utf8')) as { iat: number }).iat;
}

/** Calls `read` every POLL_MS until `done` holds of its value, or `boundMs` has passed; the last value and when it came. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, boundMs: number): Promise<{ value: T; at: number }> {
  const start = Date.now();
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() - start > boundMs) return { value, at: Date.now() };
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
