import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Browser, formWithAction } from '../support/browser.js';
import { useServerOnEveryBackend } from '../support/backends.js';
import { ALL_SCOPES, codeMinter, exchange, PASSWORD, REDIRECT_URI, tokenRequest, type Provisioned } from '../support/fixture.js';
import { freePort, REPO_ROOT } from '../support/processes.js';

// Issue 33: the metrics an operator of Hydra or Keycloak expects (token errors by grant and
// code, consents, sessions and grants, build information, the database's connection), on each
// backend, and the Grafana dashboard of docs/ naming only metrics a real scrape has.

const { workspace, backends } = useServerOnEveryBackend('metrics-dashboard', 'the metrics dashboard test');
const DASHBOARD = join(REPO_ROOT, 'docs/grafana/gatehouse-dashboard.json');

/** The value of one sample line (`name{labels} value`), or undefined when the scrape has none. */
function sample(scrape: string, series: string): number | undefined {
  const line = scrape.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** Every metric name a scrape declares (its `# TYPE` lines) or has samples of. */
function metricNames(scrape: string): Set<string> {
  const names = new Set<string>();
  for (const line of scrape.split('\n')) {
    const declared = /^# TYPE (\S+) /.exec(line);
    if (declared) names.add(declared[1] as string);
    const sampled = /^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]/.exec(line);
    if (sampled) names.add(sampled[1] as string);
  }
  return names;
}

/** A consent page's decision, made by a signed-in browser: `deny` answers access_denied. */
async function decide(p: Provisioned, decision: 'allow' | 'deny'): Promise<void> {
  const browser = new Browser(p.origin);
  const query = new URLSearchParams({ response_type: 'code', client_id: p.clientId, redirect_uri: REDIRECT_URI, scope: ALL_SCOPES, state: 's', prompt: 'consent' });
  const login = formWithAction(await (await browser.navigate('GET', `/oauth/authorize?${query}`)).text(), '/oauth/login');
  const consent = await browser.navigate('POST', login.action, { ...login.hidden, email: p.email, password: PASSWORD });
  const form = formWithAction(await consent.text(), '/oauth/authorize/decision');
  const redirect = await browser.request('POST', form.action, { ...form.hidden, decision });
  await redirect.body?.cancel();
}

const seen = new Set<string>();

describe.each(backends)('metrics on $name', ({ name, env }) => {
  it('counts token errors by grant and code and consents by decision, and shows sessions, grants, the version and the connection', async () => {
    const p = await workspace.provision(`metrics-${name}`, env());
    const metricsPort = await freePort();
    await workspace.serve(p, { GATEHOUSE_METRICS_PORT: String(metricsPort) });
    const scrape = async () => (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();

    const minter = await codeMinter(p);
    const code = await minter.mint();
    expect((await exchange(p, code)).status).toBe(200);
    await decide(p, 'deny');
    expect((await fetch(`${p.origin}/readyz`)).status).toBe(200);

    // The first scrape counts the live sessions (the minter's and the denier's) and the one grant.
    const first = await scrape();
    expect(sample(first, 'gatehouse_sessions_active')).toBe(2);
    expect(sample(first, 'gatehouse_grants_active')).toBe(1);
    expect(first).toMatch(/^gatehouse_build_info\{version="\d+\.\d+\.\d+[^"]*",node_version="\d+\.\d+\.\d+"\} 1$/m);
    if (name === 'PostgreSQL') {
      expect(sample(first, 'gatehouse_database_pool_connections{state="max"}')).toBe(4);
      expect(sample(first, 'gatehouse_database_pool_connections{state="total"}')).toBeGreaterThanOrEqual(1);
      expect(sample(first, 'gatehouse_database_pool_connections{state="waiting"}')).toBe(0);
      expect(first).not.toContain('gatehouse_sqlite_write_queue');
    } else {
      expect(sample(first, 'gatehouse_sqlite_write_queue{state="waiting"}')).toBe(0);
      expect(sample(first, 'gatehouse_sqlite_write_queue{state="in_thread"}')).toBe(0);
      expect(first).not.toContain('gatehouse_database_pool_connections');
    }

    // A replayed code (invalid_grant), a wrong secret (invalid_client), an unknown refresh token (invalid_grant).
    expect((await exchange(p, code)).status).toBe(400);
    expect((await tokenRequest({ ...p, clientSecret: 'not-the-secret' }, { grant_type: 'client_credentials' })).status).toBe(401);
    expect((await tokenRequest(p, { grant_type: 'refresh_token', refresh_token: 'not-a-refresh-token' })).status).toBe(400);
    const second = await scrape();
    expect(sample(second, 'gatehouse_token_errors_total{grant_type="authorization_code",error="invalid_grant"}')).toBe(1);
    expect(sample(second, 'gatehouse_token_errors_total{grant_type="client_credentials",error="invalid_client"}')).toBe(1);
    expect(sample(second, 'gatehouse_token_errors_total{grant_type="refresh_token",error="invalid_grant"}')).toBe(1);
    expect(sample(second, 'gatehouse_consents_total{decision="granted"}')).toBe(1);
    expect(sample(second, 'gatehouse_consents_total{decision="denied"}')).toBe(1);
    for (const metric of metricNames(first)) seen.add(metric);
    for (const metric of metricNames(second)) seen.add(metric);
  }, 120_000);
});

describe('the Grafana dashboard (docs/grafana/gatehouse-dashboard.json)', () => {
  it('names only metrics that a real scrape has', () => {
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: Array<{ title: string; targets: Array<{ expr: string }> }> };
    const named = new Set<string>();
    for (const panel of dashboard.panels) {
      for (const target of panel.targets) for (const match of target.expr.matchAll(/\b((?:gatehouse|process|nodejs)_[a-z0-9_]+)/g)) named.add(match[1] as string);
    }
    expect(named.size).toBeGreaterThan(15);
    // A histogram's series (_bucket, _count, _sum) are sample lines of the scrape.
    const onlyOnPostgres = backends.length === 1 ? ['gatehouse_database_pool_connections'] : [];
    const declared = (metric: string) => seen.has(metric) || seen.has(metric.replace(/_(bucket|count|sum)$/, ''));
    const missing = [...named].filter((metric) => !declared(metric) && !onlyOnPostgres.includes(metric));
    expect(missing).toEqual([]);
    // And every Gatehouse metric has a panel.
    const unused = [...seen].map((metric) => metric.replace(/_(bucket|count|sum)$/, '')).filter((metric) => metric.startsWith('gatehouse_') && ![...named].some((used) => used.startsWith(metric)));
    expect(unused).toEqual([]);
  });
});
