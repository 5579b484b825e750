import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../support/processes.js';
import { api, basic, codeMinter, createWorkspace, exchange, PHONE, rssKb, tokenRequest, type Provisioned, type TokenResponse } from '../support/fixture.js';

// Issue 9 "Load and faults", against the real server on a SQLite file, loopback only:
// a bounded soak of mixed traffic (no errors, flat memory), and a SIGKILL in the middle of load
// that loses no token response a client received (docs/security.md "Bad input, faults, concurrency and durability", decision 0010).

/**
 * How many requests the soak sends: a fixed amount of traffic, however fast the machine answers (a
 * loaded one takes longer; it does not send less). GATEHOUSE_SOAK_MS makes it also go on for at
 * least that long, for a longer run by hand.
 */
const SOAK_REQUESTS = 2_400;
const SOAK_MS = Number(process.env.GATEHOUSE_SOAK_MS ?? 0);
/** Traffic before the first memory sample (JIT, caches and pools fill up). */
const WARM_UP_REQUESTS = 600;
/** RSS is read once every this many answers: the samples follow the traffic, not the clock. */
const SAMPLE_EVERY_REQUESTS = 20;
/** Concurrent clients of the soak. */
const WORKERS = 6;
/**
 * The soak server's V8 old-space cap. Without one, V8 grows its heap lazily under load and RSS rises
 * in a sawtooth for tens of seconds whether or not anything leaks; with it, RSS is flat (measured:
 * within 1 MB over 13,000 requests in 60 s), so what it still gains is memory the server kept.
 * A leak also ends, sooner or later, in an out-of-memory crash: an error the soak reports.
 */
const SOAK_OLD_SPACE_MB = 48;
/**
 * RSS growth allowed from the first to the last third of the soak's requests after the warm-up
 * (max of each third's samples). Even with the cap, RSS is a sawtooth: measured on a 2-core machine,
 * idle and loaded, it creeps up by 1–2 MB per 1,000 requests, then drops by 4–7 MB when V8 collects
 * its old space, moving by up to 9 MB within a run; which phase each third catches is chance (a
 * limit of 4 MB failed now and then). A leak raises the whole sawtooth instead: 16 MB is well above
 * that noise and still fails a leak of about 14 kB per request (16 MB over the 1,200 requests
 * between the middles of the first and last thirds); a smaller leak of the JS heap ends in the
 * capped heap's out-of-memory crash in a longer run (GATEHOUSE_SOAK_MS). The server has no hook to
 * force a collection before each sample (it is not started with --expose-gc, nor could the test call it).
 */
const RSS_GROWTH_LIMIT_KB = 16 * 1024;

const workspace = createWorkspace('load');

beforeAll(async () => {
  await ensureBuilt();
}, 120_000);

afterAll(() => workspace.cleanup());

type Outcome = { op: string; expected: number[]; status: number | string };

/** One round of the mix: every kind of request the server answers, with the status each must get. */
function mixedOps(p: Provisioned, state: { tokens: TokenResponse; mint: () => Promise<string> }) {
  const attributes = `/admin/rest/v1/accounts/${p.accountKey}/attributes`;
  const values = `/admin/rest/v1/accounts/${p.accountKey}/users/${p.userKey}/attributes`;
  const t = () => state.tokens.access_token;
  return [
    ['me', [200], () => api(p, t(), 'GET', '/identity/v1/Users/me')],
    ['list messages', [200], () => api(p, t(), 'GET', `/messaging/v1/messages?ownerPhoneNumber=${encodeURIComponent(PHONE)}&pageSize=5`)],
    ['send message', [201], () => api(p, t(), 'POST', '/messaging/v1/messages', { ownerPhoneNumber: PHONE, contactPhoneNumbers: ['+15550001111'], body: 'soak' })],
    ['list attributes', [200], () => api(p, t(), 'GET', `${attributes}?pageSize=10`)],
    ['set values', [204, 400], () => api(p, t(), 'PUT', values, [{ key: 'unknown-key', value: 'x' }])],
    ['read values', [200], () => api(p, t(), 'GET', values)],
    ['refresh', [200], () => tokenRequest(p, { grant_type: 'refresh_token', refresh_token: state.tokens.refresh_token as string })],
    ['introspect', [200], () => fetch(`${p.origin}/oauth/introspect`, { method: 'POST', headers: { Authorization: basic(p.clientId, p.clientSecret), 'Content-Type': 'application/x-www-form-urlencoded' }, body: `token=${t()}` })],
    ['metadata', [200], () => fetch(`${p.origin}/.well-known/oauth-authorization-server`)],
    ['jwks', [200], () => fetch(`${p.origin}/oauth/jwks`)],
    ['readyz', [200], () => fetch(`${p.origin}/readyz`)],
    ['bad token', [401], () => api(p, 'not.a.token', 'GET', '/identity/v1/Users/me')],
    ['unknown code', [400], () => exchange(p, 'x'.repeat(43))],
    ['code flow', [200], async () => exchange(p, await state.mint())],
  ] as const;
}

describe('a bounded soak of mixed traffic', () => {
  it(`sends ${SOAK_REQUESTS} requests with no unexpected answer and flat memory`, async () => {
    const p = await workspace.provision('soak');
    const server = await workspace.serve(p, { NODE_OPTIONS: `--max-old-space-size=${SOAK_OLD_SPACE_MB}` });
    const pid = server.child.pid as number;
    const minter = await codeMinter(p);
    const tokens = (await (await exchange(p, await minter.mint())).json()) as TokenResponse;
    const ops = mixedOps(p, { tokens, mint: () => minter.mint() });

    const started = Date.now();
    const unexpected: Outcome[] = [];
    let sent = 0;
    let answered = 0;
    /** RSS by how many requests had been answered when it was read. */
    const samples: Array<{ at: number; kb: number }> = [];
    const reads: Array<Promise<void>> = [];
    const more = () => sent < SOAK_REQUESTS || Date.now() - started < SOAK_MS;

    await Promise.all(
      Array.from({ length: WORKERS }, async (_, worker) => {
        for (let round = worker; more(); round += 1) {
          const [op, expected, send] = ops[round % ops.length] as (typeof ops)[number];
          sent += 1;
          try {
            const res = await send();
            await res.arrayBuffer();
            if (!(expected as readonly number[]).includes(res.status)) unexpected.push({ op, expected: [...expected], status: res.status });
          } catch (error) {
            unexpected.push({ op, expected: [...expected], status: String(error) });
          }
          answered += 1;
          const at = answered;
          if (at > WARM_UP_REQUESTS && at % SAMPLE_EVERY_REQUESTS === 0) reads.push(rssKb(pid).then((kb) => void samples.push({ at, kb })));
        }
      }),
    );
    await Promise.all(reads);

    expect(unexpected.slice(0, 10)).toEqual([]);
    expect(answered).toBeGreaterThanOrEqual(SOAK_REQUESTS);
    // Memory: the highest RSS of the last third of the requests against that of the first third
    // (after the warm-up), by how many had been answered, not by the clock.
    const span = answered - WARM_UP_REQUESTS;
    const third = (from: number, to: number) => Math.max(...samples.filter((s) => s.at > WARM_UP_REQUESTS + from * span && s.at <= WARM_UP_REQUESTS + to * span).map((s) => s.kb));
    const first = third(0, 1 / 3);
    const last = third(2 / 3, 1);
    expect(Number.isFinite(first) && Number.isFinite(last)).toBe(true);
    expect(last - first, `RSS ${first} kB → ${last} kB over ${answered} requests`).toBeLessThan(RSS_GROWTH_LIMIT_KB);

    // Still healthy, and no secret reached the logs under load.
    expect((await fetch(`${p.origin}/healthz`)).status).toBe(200);
    const logs = server.stdout() + server.stderr();
    expect(logs).not.toContain(tokens.refresh_token);
    expect(logs).not.toContain(tokens.access_token);
    expect(logs).not.toContain(p.clientSecret);
    // A fixed amount of traffic takes longer on a loaded machine: the timeout only bounds a stuck soak.
  }, SOAK_MS + 240_000);
});

describe('SIGKILL in the middle of load', () => {
  it('loses no token response that was sent: every one received still works after a restart', async () => {
    const p = await workspace.provision('crash');
    const server = await workspace.serve(p);
    const minter = await codeMinter(p);
    const received: TokenResponse[] = [];
    let killed = false;

    // Clients exchanging codes and refreshing as fast as they can; every 200 body is kept.
    const workers = Array.from({ length: 4 }, async (_, worker) => {
      while (!killed) {
        try {
          const res = worker % 2 === 0 || received.length === 0
            ? await exchange(p, await minter.mint())
            : await tokenRequest(p, { grant_type: 'refresh_token', refresh_token: (received[received.length - 1] as TokenResponse).refresh_token as string });
          const body = (await res.json()) as TokenResponse;
          if (res.status === 200) received.push(body);
        } catch {
          // The connection died with the server: that request's response was never received.
          return;
        }
      }
    });

    // Kill once enough responses went out, while requests are still in flight.
    while (received.length < 40) await new Promise((resolve) => setTimeout(resolve, 20));
    server.child.kill('SIGKILL');
    killed = true;
    expect(await server.exited).toBe('SIGKILL');
    await Promise.all(workers);

    await workspace.serve(p);
    const failures: string[] = [];
    for (const [index, tokens] of received.entries()) {
      const me = await api(p, tokens.access_token, 'GET', '/identity/v1/Users/me');
      if (me.status !== 200) failures.push(`#${index} access token: ${me.status}`);
      const refreshed = await tokenRequest(p, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token as string });
      if (refreshed.status !== 200) failures.push(`#${index} refresh token: ${refreshed.status} ${await refreshed.text()}`);
      else await refreshed.arrayBuffer();
    }
    expect(failures).toEqual([]);
    expect(received.length).toBeGreaterThanOrEqual(40);
  }, 90_000);
});
