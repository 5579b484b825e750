import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import { GRANT_TYPES, type AuditEvent, type AuditLog, type Clock, type StorageUnavailableError } from '@gatehouse/core';
import type { StorageOutage } from '@gatehouse/http-express';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { observeStorage, type ObservedStorage } from './storage-gauges.js';

/**
 * Grant types the token endpoint serves (RFC 6749 §4.1.3 and §6); anything else a client sends is
 * counted as `other`, so a label never holds what a client typed.
 */
const GRANT_TYPE_LABELS: ReadonlySet<string> = new Set(GRANT_TYPES);

/** What a failed sign-in's audit reason becomes as a label (a fixed set). */
const SIGN_IN_FAILURE_REASONS: Record<string, string> = { 'wrong password': 'wrong_password', 'unknown e-mail': 'unknown_email' };

/** The label of a request that matched no route (a 404, a probe of a random URL). */
export const UNMATCHED_ROUTE = 'unmatched';

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const PING_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

/**
 * The server's Prometheus metrics, on a registry of their own (not prom-client's global one, so
 * two servers in one process, as in tests, do not share counters). Labels hold only values from
 * fixed sets — route patterns of the code, methods, statuses, grant types — never a URL as sent,
 * an e-mail, a client id, a token or a secret (docs/decisions/0048-prometheus-metrics.md).
 *
 * @example
 * const metrics = createMetrics();
 * const handler = metrics.instrument(app);          // requests by route, status, latency
 * const audit = metrics.countAuditEvents(pinoAudit); // failed sign-ins, client authentications, code replays
 * await metrics.registry.metrics();                  // the text /metrics serves
 */
export function createMetrics(options: { collectProcessMetrics?: boolean; version?: string } = {}) {
  const registry = new Registry();
  if (options.collectProcessMetrics !== false) collectDefaultMetrics({ register: registry });

  // Which release and Node.js answer: 1, with the versions as labels (the Prometheus convention for build information).
  new Gauge({
    name: 'gatehouse_build_info',
    help: "The server's version and the Node.js version it runs on (value 1).",
    labelNames: ['version', 'node_version'] as const,
    registers: [registry],
    aggregator: 'first',
  }).set({ version: options.version ?? packageVersion(), node_version: process.versions.node }, 1);

  const requestDuration = new Histogram({
    name: 'gatehouse_http_request_duration_seconds',
    help: 'HTTP requests by method, route pattern and status, with their duration (its _count is the number of requests).',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const tokensIssued = new Counter({
    name: 'gatehouse_tokens_issued_total',
    help: 'Token responses (200) of the token endpoint, by grant type.',
    labelNames: ['grant_type'] as const,
    registers: [registry],
  });
  const rateLimited = new Counter({
    name: 'gatehouse_rate_limited_total',
    help: 'Requests answered 429 Too Many Requests, by route pattern.',
    labelNames: ['route'] as const,
    registers: [registry],
  });
  const clientAuthenticationFailures = new Counter({
    name: 'gatehouse_client_authentication_failures_total',
    help: 'Failed client authentications (wrong or unknown client credentials).',
    registers: [registry],
  });
  const signInFailures = new Counter({
    name: 'gatehouse_sign_in_failures_total',
    help: 'Failed sign-ins, by reason (wrong_password, unknown_email).',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  const codeReplays = new Counter({
    name: 'gatehouse_authorization_code_replays_total',
    help: 'Authorization codes presented a second time (the grant is revoked, RFC 6749 §4.1.2).',
    registers: [registry],
  });
  const refreshTokenReuses = new Counter({
    name: 'gatehouse_refresh_token_reuses_total',
    help: 'Rotated-out refresh tokens presented again after the grace period (the grant is revoked).',
    registers: [registry],
  });
  const tokenErrors = new Counter({
    name: 'gatehouse_token_errors_total',
    help: 'Error answers of the token endpoint, by grant type and RFC 6749 §5.2 error code (invalid_grant, invalid_client, …; other when the answer named none).',
    labelNames: ['grant_type', 'error'] as const,
    registers: [registry],
  });
  const consents = new Counter({
    name: 'gatehouse_consents_total',
    help: 'Decisions on the consent page, by decision (granted, denied).',
    labelNames: ['decision'] as const,
    registers: [registry],
  });
  const databasePing = new Histogram({
    name: 'gatehouse_database_ping_seconds',
    help: "Duration of the readiness probe's database ping, by result (ok, failed).",
    labelNames: ['result'] as const,
    buckets: PING_BUCKETS,
    registers: [registry],
  });

  const storageFailures = new Counter({
    name: 'gatehouse_storage_unavailable_total',
    help: 'Requests (and readiness probes) that failed because the database was unavailable, by reason (unreachable, busy, full, read_only, io); each was answered 503.',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  const storageAvailable = new Gauge({
    name: 'gatehouse_storage_available',
    help: '1 while the database answers, 0 during an outage (from its first failed request to its first success).',
    // Several workers (docs/decisions/0171-serve-workers.md): 0 when any of them sees an outage.
    aggregator: 'min',
    registers: [registry],
  });
  storageAvailable.set(1);

  const observeResponse = (req: IncomingMessage, res: ServerResponse, startedAt: bigint) => {
    const seconds = Number(process.hrtime.bigint() - startedAt) / 1e9;
    const route = routeOf(req);
    requestDuration.observe({ method: methodOf(req), route, status: String(res.statusCode) }, seconds);
    if (res.statusCode === 429) rateLimited.inc({ route });
    if (route === TOKEN_ROUTE && req.method === 'POST') {
      if (res.statusCode === 200) tokensIssued.inc({ grant_type: grantTypeOf(req) });
      else if (res.statusCode >= 400) tokenErrors.inc({ grant_type: grantTypeOf(req), error: oauthErrorOf(res) });
    }
  };

  return {
    registry,
    /** `handler`, timing and counting each request once its response is sent. */
    instrument(handler: RequestListener): RequestListener {
      return (req, res) => {
        const startedAt = process.hrtime.bigint();
        res.once('finish', () => observeResponse(req, res, startedAt));
        handler(req, res);
      };
    },
    /** `audit`, counting the security events that have a metric on the way. */
    countAuditEvents(audit: AuditLog): AuditLog {
      return {
        record(event: AuditEvent) {
          if (event.type === 'client.authentication_failed') clientAuthenticationFailures.inc();
          else if (event.type === 'sign_in.failed') signInFailures.inc({ reason: SIGN_IN_FAILURE_REASONS[event.reason ?? ''] ?? 'other' });
          else if (event.type === 'code.replayed') codeReplays.inc();
          else if (event.type === 'refresh_token.reused') refreshTokenReuses.inc();
          else if (event.type === 'consent.granted') consents.inc({ decision: 'granted' });
          else if (event.type === 'consent.denied') consents.inc({ decision: 'denied' });
          audit.record(event);
        },
      };
    },
    /** A request or probe failed because the database is unavailable (the outage tracker's `onFailure`). */
    countStorageFailure(error: StorageUnavailableError): void {
      storageFailures.inc({ reason: error.reason });
    },
    /** An outage began (with it) or ended (undefined): the outage tracker's `onChange`. */
    setStorageOutage(outage: StorageOutage | undefined): void {
      storageAvailable.set(outage === undefined ? 1 : 0);
    },
    /** Live sessions and grants, and the database connection's state, as gauges read on scrape (storage-gauges.ts). */
    observeStorage(storage: ObservedStorage, clock: Clock): void {
      observeStorage(registry, storage, clock);
    },
    /** `ping`, timed. */
    timePing(ping: () => Promise<boolean>): () => Promise<boolean> {
      return async () => {
        const end = databasePing.startTimer();
        try {
          const ok = await ping();
          end({ result: ok ? 'ok' : 'failed' });
          return ok;
        } catch (error) {
          end({ result: 'failed' });
          throw error;
        }
      };
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

/** The token endpoint's route pattern (RFC 6749 §3.2). */
const TOKEN_ROUTE = '/oauth/token';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const methodOf = (req: IncomingMessage): string => (req.method !== undefined && METHODS.has(req.method) ? req.method : 'other');

/**
 * The route pattern Express matched (`/portal/clients/:clientId`, never the path as sent: a path
 * with ids would make a series per id and could carry a secret), or `unmatched` when no route
 * answered (a 404, or a middleware that answered first, such as a redirect to the sign-in page).
 * `req.baseUrl` is left out on purpose: under a router mounted on a path with a parameter it is
 * the path as sent. Gatehouse's routers carry their full paths, so nothing is lost.
 */
export function routeOf(req: IncomingMessage): string {
  const path = (req as IncomingMessage & { route?: { path?: unknown } }).route?.path;
  if (typeof path === 'string') return path;
  if (Array.isArray(path) && path.every((part) => typeof part === 'string')) return path.join('|');
  return UNMATCHED_ROUTE;
}

/** An RFC 6749 §5.2 error code: lower-case words joined by underscores (the codes of `OAuthErrorCode`). */
const ERROR_CODE = /^[a-z_]{1,40}$/;

/** The error code the answer carried (`sendOAuthError` of @gatehouse/http-express notes it in `res.locals`), or `other`. */
function oauthErrorOf(res: ServerResponse): string {
  const code = (res as ServerResponse & { locals?: { oauthError?: unknown } }).locals?.oauthError;
  return typeof code === 'string' && ERROR_CODE.test(code) ? code : 'other';
}

/** The server package's version (apps/server/package.json, two levels up from src/metrics and dist/metrics). */
function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

function grantTypeOf(req: IncomingMessage): string {
  const body = (req as IncomingMessage & { body?: unknown }).body;
  const grantType = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).grant_type : undefined;
  return typeof grantType === 'string' && GRANT_TYPE_LABELS.has(grantType) ? grantType : 'other';
}
