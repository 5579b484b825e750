import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StorageUnavailableError, type AuditEvent } from '@gatehouse/core';
import { createStorageOutages } from '@gatehouse/http-express';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { createMetrics } from './metrics.js';
import { startMetricsServer } from './metrics-server.js';

async function serving<T>(handler: RequestListener, use: (origin: string) => Promise<T>): Promise<T> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    return await use(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

const value = async (metrics: ReturnType<typeof createMetrics>, name: string, labels: Record<string, string> = {}) => {
  const metric = (await metrics.registry.getMetricsAsJSON()).find((candidate) => candidate.name === name);
  const found = metric?.values.find((entry) => Object.entries(labels).every(([key, label]) => entry.labels[key] === label));
  return found?.value;
};

describe('createMetrics', () => {
  it("labels a request with Express's route pattern, never the path as sent, and counts 429s", async () => {
    const metrics = createMetrics({ collectProcessMetrics: false });
    const app = express();
    app.get('/things/:thingId', (_req, res) => void res.status(429).json({}));
    // A router mounted on a path with a parameter: its baseUrl is the path as sent, and stays out of the label.
    app.use('/accounts/:accountKey', express.Router().get('/members', (_req, res) => void res.json({})));
    app.use((_req, res) => void res.status(404).end());
    await serving(metrics.instrument(app), async (origin) => {
      expect((await fetch(`${origin}/things/secret-id-1`)).status).toBe(429);
      expect((await fetch(`${origin}/elsewhere/secret-id-2`)).status).toBe(404);
      expect((await fetch(`${origin}/accounts/secret-id-3/members`)).status).toBe(200);
    });
    const text = await metrics.registry.metrics();
    expect(text).toContain('gatehouse_http_request_duration_seconds_count{method="GET",route="/things/:thingId",status="429"} 1');
    expect(text).toContain('gatehouse_http_request_duration_seconds_count{method="GET",route="unmatched",status="404"} 1');
    expect(text).toContain('gatehouse_rate_limited_total{route="/things/:thingId"} 1');
    expect(text).toContain('gatehouse_http_request_duration_seconds_count{method="GET",route="/members",status="200"} 1');
    expect(text).not.toContain('secret-id');
    expect(text).not.toContain('process_cpu');
  });

  it('counts a token response by grant type, and an unknown grant type as other', async () => {
    const metrics = createMetrics({ collectProcessMetrics: false });
    const app = express();
    app.post('/oauth/token', express.urlencoded({ extended: false }), (_req, res) => void res.json({}));
    await serving(metrics.instrument(app), async (origin) => {
      for (const grantType of ['refresh_token', 'refresh_token', 'urn:made-up:secret-grant']) {
        const body = new URLSearchParams({ grant_type: grantType }).toString();
        expect((await fetch(`${origin}/oauth/token`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body })).status).toBe(200);
      }
    });
    expect(await value(metrics, 'gatehouse_tokens_issued_total', { grant_type: 'refresh_token' })).toBe(2);
    expect(await value(metrics, 'gatehouse_tokens_issued_total', { grant_type: 'other' })).toBe(1);
    expect(await metrics.registry.metrics()).not.toContain('made-up');
  });

  it('counts token errors by grant type and the error code the answer noted, an unknown or missing code as other', async () => {
    const metrics = createMetrics({ collectProcessMetrics: false });
    const app = express();
    app.post('/oauth/token', express.urlencoded({ extended: false }), (req, res) => {
      const body = req.body as Record<string, string>;
      if (body.error !== undefined) res.locals.oauthError = body.error;
      res.status(400).json({});
    });
    await serving(metrics.instrument(app), async (origin) => {
      const forms: Array<Record<string, string>> = [{ grant_type: 'refresh_token', error: 'invalid_grant' }, { grant_type: 'client_credentials', error: 'Not A Code <script>' }, { grant_type: 'client_credentials' }];
      for (const form of forms) {
        await fetch(`${origin}/oauth/token`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });
      }
    });
    expect(await value(metrics, 'gatehouse_token_errors_total', { grant_type: 'refresh_token', error: 'invalid_grant' })).toBe(1);
    expect(await value(metrics, 'gatehouse_token_errors_total', { grant_type: 'client_credentials', error: 'other' })).toBe(2);
    expect(await metrics.registry.metrics()).not.toContain('script');
  });

  it('says which version runs, with the Node.js version', async () => {
    const metrics = createMetrics({ collectProcessMetrics: false, version: '9.8.7' });
    expect(await metrics.registry.metrics()).toContain(`gatehouse_build_info{version="9.8.7",node_version="${process.versions.node}"} 1`);
  });

  it('counts the audit events with a metric and passes every event on unchanged', async () => {
    const metrics = createMetrics({ collectProcessMetrics: false });
    const seen: AuditEvent[] = [];
    const audit = metrics.countAuditEvents({ record: (event) => seen.push(event) });
    const at = new Date();
    const events: AuditEvent[] = [
      { type: 'sign_in.failed', at, reason: 'wrong password', userKey: 'u1' },
      { type: 'sign_in.failed', at, reason: 'unknown e-mail' },
      { type: 'client.authentication_failed', at, clientId: 'client-1' },
      { type: 'code.replayed', at, clientId: 'client-1' },
      { type: 'refresh_token.reused', at, clientId: 'client-1' },
      { type: 'sign_in.succeeded', at, userKey: 'u1' },
      { type: 'consent.granted', at, userKey: 'u1', clientId: 'client-1' },
      { type: 'consent.denied', at, userKey: 'u1', clientId: 'client-1' },
      { type: 'consent.denied', at, userKey: 'u1', clientId: 'client-1' },
    ];
    for (const event of events) audit.record(event);
    expect(seen).toEqual(events);
    expect(await value(metrics, 'gatehouse_sign_in_failures_total', { reason: 'wrong_password' })).toBe(1);
    expect(await value(metrics, 'gatehouse_sign_in_failures_total', { reason: 'unknown_email' })).toBe(1);
    expect(await value(metrics, 'gatehouse_client_authentication_failures_total')).toBe(1);
    expect(await value(metrics, 'gatehouse_authorization_code_replays_total')).toBe(1);
    expect(await value(metrics, 'gatehouse_refresh_token_reuses_total')).toBe(1);
    expect(await value(metrics, 'gatehouse_consents_total', { decision: 'granted' })).toBe(1);
    expect(await value(metrics, 'gatehouse_consents_total', { decision: 'denied' })).toBe(2);
    expect(await metrics.registry.metrics()).not.toContain('client-1');
  });

  it('times the database ping by result, a throwing ping as failed', async () => {
    const metrics = createMetrics({ collectProcessMetrics: false });
    expect(await metrics.timePing(async () => true)()).toBe(true);
    expect(await metrics.timePing(async () => false)()).toBe(false);
    await expect(metrics.timePing(() => Promise.reject(new Error('down')))()).rejects.toThrow('down');
    const text = await metrics.registry.metrics();
    expect(text).toContain('gatehouse_database_ping_seconds_count{result="ok"} 1');
    expect(text).toContain('gatehouse_database_ping_seconds_count{result="failed"} 2');
  });
});

describe('startMetricsServer', () => {
  it('counts the requests a database outage failed, by reason, and shows whether one is under way (issue 35)', async () => {
    const metrics = createMetrics({ collectProcessMetrics: false });
    const outages = createStorageOutages({ onFailure: metrics.countStorageFailure, onChange: metrics.setStorageOutage });
    expect(await value(metrics, 'gatehouse_storage_available')).toBe(1);
    outages.failed(new StorageUnavailableError('full', 'full'));
    outages.failed(new StorageUnavailableError('full', 'full'));
    outages.failed(new StorageUnavailableError('busy', 'locked'));
    expect(await value(metrics, 'gatehouse_storage_unavailable_total', { reason: 'full' })).toBe(2);
    expect(await value(metrics, 'gatehouse_storage_unavailable_total', { reason: 'busy' })).toBe(1);
    expect(await value(metrics, 'gatehouse_storage_available')).toBe(0);
    outages.succeeded();
    expect(await value(metrics, 'gatehouse_storage_available')).toBe(1);
  });

  it('serves GET /metrics only, and stops', async () => {
    const metrics = createMetrics();
    const server = await startMetricsServer({ registry: metrics.registry, host: '127.0.0.1', port: 0 });
    const origin = `http://127.0.0.1:${server.port}`;
    const scrape = await fetch(`${origin}/metrics`);
    expect(scrape.status).toBe(200);
    expect(scrape.headers.get('cache-control')).toBe('no-store');
    expect(await scrape.text()).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect((await fetch(`${origin}/`)).status).toBe(404);
    expect((await fetch(`${origin}/metrics`, { method: 'POST' })).status).toBe(404);
    await server.stop();
    await expect(fetch(`${origin}/metrics`)).rejects.toThrow();
  });
});
