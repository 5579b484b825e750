import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser, formWithAction } from '../support/browser.js';
import { codeMinter, createWorkspace, exchange, tokenRequest, type TokenResponse } from '../support/fixture.js';
import { ensureBuilt, freePort } from '../support/processes.js';

// `gatehouse serve` with GATEHOUSE_METRICS_PORT, as its own process: a real code exchange, then a
// scrape of /metrics on the separate listener (docs/operations.md "Metrics").

const workspace = createWorkspace('metrics');

beforeAll(async () => {
  await ensureBuilt();
}, 300_000);

afterAll(() => workspace.cleanup());

/** The value of one sample line (`name{labels} value`), or undefined when the scrape has none. */
function sample(scrape: string, series: string): number | undefined {
  const line = scrape.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('Prometheus metrics', () => {
  it('counts a code exchange, requests by route and status, failures, and shows no secret, e-mail or token', async () => {
    const p = await workspace.provision('scrape');
    const metricsPort = await freePort();
    const server = await workspace.serve(p, { GATEHOUSE_METRICS_PORT: String(metricsPort) });
    const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    expect(server.logs.find((line) => line.msg === 'metrics listening')).toMatchObject({ host: '127.0.0.1', port: metricsPort });

    // A sign-in (through the minter), a code, its exchange, a replay of the code, a wrong client secret, a ready probe.
    const minter = await codeMinter(p);
    const code = await minter.mint();
    const issued = await exchange(p, code);
    expect(issued.status).toBe(200);
    const tokens = (await issued.json()) as TokenResponse;
    expect((await exchange(p, code)).status).toBe(400);
    expect((await tokenRequest({ ...p, clientSecret: 'not-the-secret' }, { grant_type: 'authorization_code', code: 'x', redirect_uri: p.redirectUri })).status).toBe(401);
    expect((await fetch(`${p.origin}/readyz`)).status).toBe(200);
    const stranger = new Browser(p.origin);
    const login = formWithAction(await (await stranger.navigate('GET', '/oauth/login')).text(), '/oauth/login');
    const refused = await stranger.request('POST', login.action, { ...login.hidden, email: 'nobody@example.com', password: 'not-the-password' });
    expect(refused.status).toBe(401);
    expect((await fetch(`${p.origin}/api/v1/nothing/${tokens.access_token}`)).status).toBe(404);

    const response = await fetch(metricsUrl);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const scrape = await response.text();

    expect(sample(scrape, 'gatehouse_tokens_issued_total{grant_type="authorization_code"}')).toBe(1);
    expect(sample(scrape, 'gatehouse_http_request_duration_seconds_count{method="POST",route="/oauth/token",status="200"}')).toBe(1);
    expect(sample(scrape, 'gatehouse_http_request_duration_seconds_count{method="POST",route="/oauth/token",status="400"}')).toBe(1);
    expect(sample(scrape, 'gatehouse_http_request_duration_seconds_count{method="GET",route="/readyz",status="200"}')).toBe(1);
    // A URL that matched no route is counted under one label, never as sent.
    expect(sample(scrape, 'gatehouse_http_request_duration_seconds_count{method="GET",route="unmatched",status="404"}')).toBe(1);
    expect(sample(scrape, 'gatehouse_authorization_code_replays_total')).toBe(1);
    expect(sample(scrape, 'gatehouse_client_authentication_failures_total')).toBe(1);
    expect(sample(scrape, 'gatehouse_sign_in_failures_total{reason="unknown_email"}')).toBe(1);
    expect(sample(scrape, 'gatehouse_database_ping_seconds_count{result="ok"}')).toBe(1);
    // Node process metrics, on the server's own registry.
    expect(sample(scrape, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(scrape).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
    expect(scrape).toMatch(/^process_resident_memory_bytes \d/m);

    for (const secret of [p.clientSecret, p.email, 'nobody@example.com', 'not-the-password', code, tokens.access_token, tokens.refresh_token as string, p.clientId, 'not-the-secret']) {
      expect(scrape).not.toContain(secret);
    }
    // Every route label is a pattern of the code (or "unmatched"), never a URL with an id in it.
    const routes = new Set([...scrape.matchAll(/route="([^"]*)"/g)].map((match) => match[1]));
    expect([...routes].sort()).toEqual(['/oauth/authorize', '/oauth/authorize/decision', '/oauth/login', '/oauth/token', '/readyz', 'unmatched'].sort());
    expect((await fetch(`http://127.0.0.1:${metricsPort}/other`)).status).toBe(404);

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    // The metrics listener stopped with the server.
    await expect(fetch(metricsUrl)).rejects.toThrow();
  }, 60_000);
});
