import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import * as v from 'valibot';
import { DEFAULT_SCOPES, DEFAULT_UNUSED_CLIENT_TTL_SECONDS, findResource, isCataloguedScope, isHostPattern, isLoopbackHost, parseScope, sha256, type RegistrationPolicy, type ResourceCatalogue, type ScopeCatalogue } from '@gatehouse/core';
import { passwordHelpUrlProblem } from '@gatehouse/http-express';
import { ownApisResource, readResourceCatalogue } from './resources-file.js';
import { readScopeCatalogue } from './scopes-file.js';

/** The server's configuration, read from the environment once at start-up. */
export interface Config {
  host: string | undefined;
  port: number;
  issuer: string;
  database:
    | { kind: 'sqlite'; filename: string; synchronous: SqliteSynchronous; busyTimeoutMs: number }
    | { kind: 'postgres'; connectionString: string; poolSize: number; schema: string | undefined };
  /** Encrypts private signing keys at rest when set. */
  keySecret: string | undefined;
  /** Express `trust proxy` value (false: do not trust `X-Forwarded-*`). */
  trustProxy: boolean | number | string;
  logLevel: LogLevel;
  /** `json` lines, or `pretty` readable ones; unset: pretty on a terminal, JSON elsewhere. */
  logFormat: LogFormat | undefined;
  accessTokenTtlSeconds: number;
  codeTtlSeconds: number;
  sessionTtlSeconds: number;
  refreshToken: { rotate: boolean; reuseGraceSeconds: number; idleTtlSeconds: number | null; absoluteTtlSeconds: number | null };
  /** Failed sign-ins / client authentications per e-mail or client_id (and per IP) in a window. */
  rateLimit: { maxFailures: number; windowSeconds: number; maxFailuresPerIp: number; ipv6PrefixLength: number; maxAnonymousRequestsPerIp: number; maxClientMetadataDocumentsPerIp: number };
  /** The most pending sign-ins of signed-out browsers kept at once (docs/decisions/0108-anonymous-requests-store-bounded-state.md). */
  maxAnonymousInteractions: number;
  purgeIntervalMinutes: number;
  shutdownTimeoutSeconds: number;
  /**
   * What the sign-in page's "Forgot your password?" says (docs/decisions/0156):
   * `GATEHOUSE_PASSWORD_HELP_TEXT` and a link, `GATEHOUSE_PASSWORD_HELP_URL`; default: ask the operator.
   */
  passwordHelp: { text?: string; url?: string };
  /**
   * Seed a demo account, admin and client into an empty database, and serve /demo/callback.
   * Default: on for a loopback issuer only (docs/operations.md); elsewhere `GATEHOUSE_DEMO=true`.
   */
  demo: boolean;
  /** JWKS `Cache-Control: max-age`; a new signing key is published this long (+10 s) before it signs. */
  jwksMaxAgeSeconds: number;
  /** The Prometheus listener (GET /metrics) when GATEHOUSE_METRICS_PORT is set; off otherwise. */
  metrics: { host: string; port: number } | undefined;
  /** The scope catalogue: the four built-in scopes, then those of `GATEHOUSE_SCOPES_FILE` (docs/decisions/0016-the-server-scopes-file.md). */
  scopes: ScopeCatalogue;
  /**
   * The resources (RFC 8707): the server's own APIs (URI: the issuer, under which they are served,
   * docs/decisions/0183), then those of `GATEHOUSE_RESOURCES_FILE` (docs/decisions/0110-resource-indicators.md).
   */
  resources: ResourceCatalogue;
  /** Dynamic Client Registration (docs/decisions/0115-dynamic-client-registration.md): off unless `GATEHOUSE_REGISTRATION` says. */
  registration: {
    policy: RegistrationPolicy;
    /** SHA-256 of each initial access token of `GATEHOUSE_REGISTRATION_TOKEN` (the tokens themselves are not kept). */
    initialAccessTokenHashes: string[];
    /** The scopes a client that registered itself may have; null: the whole catalogue. */
    anonymousScopes: string[] | null;
    /** The resources (RFC 8707 URIs) a client that registered itself may get tokens for; null: any. */
    anonymousResources: string[] | null;
    /** Registrations per client IP address per hour. */
    maxPerIpPerHour: number;
    unusedClientTtlSeconds: number | null;
  };
  /** Client ID Metadata Documents (docs/decisions/0117, 0118): off unless `GATEHOUSE_CLIENT_METADATA_DOCUMENTS=on`. */
  clientMetadataDocuments: {
    enabled: boolean;
    allowedHosts: string[] | null;
    deniedHosts: string[];
    /** Fetch documents from loopback and private network addresses too (development only). */
    allowPrivateAddresses: boolean;
  };
  /**
   * OpenID Connect (SPEC §9; docs/decisions/0130): the server is an OpenID Provider. Default on;
   * `GATEHOUSE_OPENID=false` leaves a plain OAuth server.
   */
  openid: boolean;
  /**
   * How many processes serve (`GATEHOUSE_WORKERS`, `serve --workers N`; default 1, `auto`: one per
   * core): several share the port through Node's cluster (docs/decisions/0171-serve-workers.md).
   */
  workers: number;
}

/** SQLite's `synchronous` level (docs/decisions/0010-sqlite-durability.md). */
export const SQLITE_SYNCHRONOUS_LEVELS = ['NORMAL', 'FULL'] as const;
export type SqliteSynchronous = (typeof SQLITE_SYNCHRONOUS_LEVELS)[number];

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** A configuration value that cannot be used; `message` is one line naming the variable. */
export class ConfigError extends Error {
  readonly variable: string;
  constructor(variable: string, message: string) {
    super(message);
    this.name = 'ConfigError';
    this.variable = variable;
  }
}

type Env = Record<string, string | undefined>;

/** Variables whose values are never echoed in an error message. */
const SECRET_VARIABLES = new Set(['GATEHOUSE_KEY_SECRET', 'GATEHOUSE_DATABASE_URL', 'GATEHOUSE_REGISTRATION_TOKEN']);

function integer(min: number, max: number) {
  return v.pipe(
    v.string(),
    v.regex(/^\d+$/, `must be a whole number from ${min} to ${max}`),
    v.transform(Number),
    v.minValue(min, `must be a whole number from ${min} to ${max}`),
    v.maxValue(max, `must be a whole number from ${min} to ${max}`),
  );
}

const TRUE = ['true', '1', 'yes', 'on'];
const FALSE = ['false', '0', 'no', 'off'];
const boolean = v.pipe(
  v.string(),
  v.toLowerCase(),
  v.check((value) => TRUE.includes(value) || FALSE.includes(value), 'must be true or false'),
  v.transform((value) => TRUE.includes(value)),
);

/** The most workers `serve` starts: more processes than this only add memory and lock waits. */
export const MAX_WORKERS = 256;

/** `auto` (one per core) or a whole number of serving processes. */
export const workerCount = v.pipe(
  v.string(),
  v.toLowerCase(),
  v.check((value) => value === 'auto' || (/^\d+$/.test(value) && Number(value) >= 1 && Number(value) <= MAX_WORKERS), `must be auto or a whole number from 1 to ${MAX_WORKERS}`),
  v.transform((value) => (value === 'auto' ? availableParallelism() : Number(value))),
);

/** 0 (the variable's "off") or a number of seconds. */
const optionalLimit = v.pipe(integer(0, 10 * 365 * 86400), v.transform((value) => (value === 0 ? null : value)));

/** RFC 8414 §2: the issuer is an https URL with no query or fragment (http is tolerated on loopback, for development). */
const issuer = v.pipe(
  v.string(),
  v.check((value) => URL.canParse(value), 'must be an absolute URL such as https://auth.example.com'),
  v.check((value) => /^https?:$/.test(new URL(value).protocol), 'must be an https URL'),
  v.check((value) => new URL(value).protocol === 'https:' || isLoopbackHost(new URL(value).hostname), 'must be https (http is allowed on loopback only)'),
  v.check((value) => !value.includes('?') && !value.includes('#'), 'must not have a query or fragment (RFC 8414 §2)'),
  v.check((value) => !value.endsWith('/'), 'must not end with a slash'),
);

/** Express `trust proxy`: true/false, a hop count, or addresses / subnets / loopback|linklocal|uniquelocal names. */
const trustProxy = v.pipe(
  v.string(),
  v.regex(/^[\w.:/,\s-]+$/, 'must be true, false, a hop count, or a comma-separated list of addresses, subnets or loopback/linklocal/uniquelocal'),
  v.transform((value): boolean | number | string => {
    const trimmed = value.trim();
    if (trimmed === 'true') return true;
    if (trimmed === 'false' || trimmed === '') return false;
    if (/^\d+$/.test(trimmed)) return Number(trimmed);
    return trimmed;
  }),
  // Every entry of a list as Express reads it (proxy-addr): checked here, so that a typo stops the
  // server with one line naming the variable, not a line of Express's own at `serve` only.
  v.check((value) => typeof value !== 'string' || value.split(',').every((entry) => isTrustedProxyEntry(entry.trim())), 'must be true, false, a hop count, or a comma-separated list of addresses, subnets (address/prefix) or loopback/linklocal/uniquelocal'),
);

/** An entry of Express's `trust proxy` list: a name proxy-addr knows, an IP address, or one with a prefix length or IPv4 netmask. */
function isTrustedProxyEntry(entry: string): boolean {
  if (entry === 'loopback' || entry === 'linklocal' || entry === 'uniquelocal') return true;
  const [address = '', prefix, ...more] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || more.length > 0) return false;
  if (prefix === undefined) return true;
  if (/^\d{1,3}$/.test(prefix)) return Number(prefix) <= (family === 4 ? 32 : 128);
  return family === 4 && isIP(prefix) === 4;
}

/** Comma-separated host names or `*.domain` patterns (Client ID Metadata Document hosts). */
const hostList = v.pipe(
  v.string(),
  v.transform((value) => value.split(',').map((host) => host.trim().toLowerCase()).filter((host) => host !== '')),
  v.check((hosts) => hosts.every(isHostPattern), 'must be comma-separated host names or *.domain patterns (such as agents.example, *.example.com)'),
);

const databaseUrl = v.pipe(v.string(), v.regex(/^postgres(ql)?:\/\/\S+$/, 'must be a postgres:// or postgresql:// connection string'));

/** Every variable the server reads, with its rule; absent variables take the defaults below. */
const schema = {
  HOST: v.pipe(v.string(), v.regex(/^[\w.:[\]-]+$/, 'must be a host name or an IP address')),
  PORT: integer(1, 65535),
  GATEHOUSE_ISSUER: issuer,
  GATEHOUSE_DB: v.pipe(v.string(), v.minLength(1, 'must be a file path')),
  GATEHOUSE_SQLITE_SYNCHRONOUS: v.pipe(v.string(), v.toUpperCase(), v.picklist(SQLITE_SYNCHRONOUS_LEVELS, 'must be NORMAL or FULL')),
  GATEHOUSE_SQLITE_BUSY_TIMEOUT_MS: integer(100, 600_000),
  GATEHOUSE_DATABASE_URL: databaseUrl,
  GATEHOUSE_DATABASE_POOL_SIZE: integer(1, 1000),
  GATEHOUSE_DATABASE_SCHEMA: v.pipe(v.string(), v.regex(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/, 'must be a plain SQL identifier ([A-Za-z_][A-Za-z0-9_]*, up to 63 characters)')),
  GATEHOUSE_KEY_SECRET: v.pipe(v.string(), v.minLength(32, 'must be at least 32 characters (for example: openssl rand -base64 32)')),
  GATEHOUSE_TRUST_PROXY: trustProxy,
  GATEHOUSE_LOG_LEVEL: v.picklist(LOG_LEVELS, `must be one of ${LOG_LEVELS.join(', ')}`),
  GATEHOUSE_LOG_FORMAT: v.pipe(v.string(), v.toLowerCase(), v.picklist(LOG_FORMATS, 'must be json or pretty')),
  GATEHOUSE_ACCESS_TOKEN_TTL_SECONDS: integer(60, 86400),
  GATEHOUSE_CODE_TTL_SECONDS: integer(10, 600),
  GATEHOUSE_SESSION_TTL_SECONDS: integer(60, 30 * 86400),
  GATEHOUSE_REFRESH_ROTATION: boolean,
  GATEHOUSE_REFRESH_REUSE_GRACE_SECONDS: integer(0, 300),
  GATEHOUSE_REFRESH_IDLE_TTL_SECONDS: optionalLimit,
  GATEHOUSE_REFRESH_ABSOLUTE_TTL_SECONDS: optionalLimit,
  GATEHOUSE_RATE_LIMIT_MAX_FAILURES: integer(1, 100000),
  GATEHOUSE_RATE_LIMIT_WINDOW_SECONDS: integer(1, 86400),
  GATEHOUSE_RATE_LIMIT_MAX_FAILURES_PER_IP: integer(1, 1000000),
  GATEHOUSE_RATE_LIMIT_IPV6_PREFIX_LENGTH: integer(32, 128),
  GATEHOUSE_RATE_LIMIT_MAX_ANONYMOUS_PER_IP: integer(1, 1000000),
  GATEHOUSE_RATE_LIMIT_MAX_DOCUMENTS_PER_IP: integer(1, 1000000),
  GATEHOUSE_MAX_ANONYMOUS_INTERACTIONS: integer(100, 10000000),
  GATEHOUSE_PURGE_INTERVAL_MINUTES: integer(1, 7 * 24 * 60),
  GATEHOUSE_SHUTDOWN_TIMEOUT_SECONDS: integer(1, 600),
  GATEHOUSE_PASSWORD_HELP_TEXT: v.pipe(v.string(), v.maxLength(500, 'must be at most 500 characters')),
  GATEHOUSE_PASSWORD_HELP_URL: v.pipe(
    v.string(),
    v.check((url) => passwordHelpUrlProblem(url) === undefined, 'must be an https, http or mailto URL, or a path of this server (/help)'),
  ),
  GATEHOUSE_DEMO: boolean,
  GATEHOUSE_JWKS_MAX_AGE_SECONDS: integer(0, 3600),
  GATEHOUSE_METRICS_PORT: integer(1, 65535),
  GATEHOUSE_METRICS_HOST: v.pipe(v.string(), v.regex(/^[\w.:[\]-]+$/, 'must be a host name or an IP address')),
  GATEHOUSE_SCOPES_FILE: v.pipe(v.string(), v.minLength(1, 'must be a file path')),
  GATEHOUSE_RESOURCES_FILE: v.pipe(v.string(), v.minLength(1, 'must be a file path')),
  GATEHOUSE_REGISTRATION: v.pipe(v.string(), v.toLowerCase(), v.picklist(['off', 'open', 'token'] as const, 'must be off, open or token')),
  GATEHOUSE_REGISTRATION_TOKEN: v.pipe(
    v.string(),
    v.transform((value) => value.split(/[\s,]+/).filter((token) => token !== '')),
    v.check((tokens) => tokens.length > 0 && tokens.every((token) => token.length >= 32 && /^[\x21-\x7e]+$/.test(token)), 'must be one or more tokens (comma or space separated) of at least 32 printable characters (for example: openssl rand -base64 32)'),
  ),
  GATEHOUSE_REGISTRATION_SCOPES: v.pipe(v.string(), v.transform((value) => parseScope(value))),
  GATEHOUSE_REGISTRATION_RESOURCES: v.pipe(v.string(), v.transform((value) => value.split(/[\s,]+/).filter((uri) => uri !== ''))),
  GATEHOUSE_REGISTRATION_RATE_LIMIT: integer(1, 1_000_000),
  GATEHOUSE_REGISTRATION_UNUSED_TTL_SECONDS: optionalLimit,
  GATEHOUSE_CLIENT_METADATA_DOCUMENTS: boolean,
  GATEHOUSE_CLIENT_METADATA_DOCUMENT_HOSTS: hostList,
  GATEHOUSE_CLIENT_METADATA_DOCUMENT_DENIED_HOSTS: hostList,
  GATEHOUSE_CLIENT_METADATA_DOCUMENT_ALLOW_PRIVATE: boolean,
  GATEHOUSE_OPENID: boolean,
  GATEHOUSE_WORKERS: workerCount,
} as const;

type Schema = typeof schema;
type Parsed = { [K in keyof Schema]: v.InferOutput<Schema[K]> | undefined };

/** The variables `loadConfig` reads, for documentation and `--help`. */
export const CONFIG_VARIABLES = Object.keys(schema) as Array<keyof Schema>;

/**
 * `GATEHOUSE_*` variables the repository's own test and benchmark tools read (never the server):
 * not reported as unknown.
 */
const TOOL_VARIABLES = ['GATEHOUSE_TEST_POSTGRES_URL', 'GATEHOUSE_CHROMIUM', 'GATEHOUSE_FUZZ_RUNS', 'GATEHOUSE_SOAK_MS'];

/** Set by `serve --workers N` in each worker's environment (cluster/worker-messages.ts), never by an operator. */
const WORKER_VARIABLES = ['GATEHOUSE_WORKER_INDEX'];

/** Every `GATEHOUSE_*` name the server knows: its variables, the `_FILE` form of the secret ones, the tools', the workers'. */
const KNOWN_VARIABLES: readonly string[] = [
  ...CONFIG_VARIABLES.filter((name) => name.startsWith('GATEHOUSE_')),
  ...[...SECRET_VARIABLES].map((name) => `${name}_FILE`),
  ...TOOL_VARIABLES,
  ...WORKER_VARIABLES,
];

/** Levenshtein distance: how many single-character edits turn `a` into `b`. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      current[j] = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length] as number;
}

/**
 * One warning line per `GATEHOUSE_*` variable of `env` the server does not read (a typo such as
 * `GATEHOUSE_ACCES_TOKEN_TTL_SECONDS` would otherwise pass silently), naming the closest known
 * variable when one is near (docs/decisions/0150-unknown-variables-warn.md). Values are never shown.
 *
 * @example
 * unknownVariableWarnings({ GATEHOUSE_ACCES_TOKEN_TTL_SECONDS: '600' });
 * // ['GATEHOUSE_ACCES_TOKEN_TTL_SECONDS is not a Gatehouse variable and is ignored; did you mean GATEHOUSE_ACCESS_TOKEN_TTL_SECONDS?']
 */
export function unknownVariableWarnings(env: Env): string[] {
  const warnings: string[] = [];
  for (const name of Object.keys(env).sort()) {
    if (!name.startsWith('GATEHOUSE_') || KNOWN_VARIABLES.includes(name)) continue;
    let closest: { name: string; distance: number } | undefined;
    for (const known of KNOWN_VARIABLES) {
      const distance = editDistance(name, known);
      if (closest === undefined || distance < closest.distance) closest = { name: known, distance };
    }
    // Near enough to be a typo: two edits, or one per six characters of a long name.
    const near = closest !== undefined && closest.distance <= Math.max(2, Math.floor(name.length / 6)) ? closest.name : undefined;
    warnings.push(`${name} is not a Gatehouse variable and is ignored; ${near === undefined ? 'see docs/configuration.md for the variables' : `did you mean ${near}?`}`);
  }
  return warnings;
}

/**
 * Every secret variable can also be given as `<NAME>_FILE`: the path of a file holding the value
 * (a Docker or Kubernetes secret), its one trailing newline trimmed. Both set, or a file that
 * cannot be read, is a one-line error naming the variable (never the content).
 */
export function withSecretFiles(env: Env, readText: (path: string) => string = (path) => readFileSync(path, 'utf8')): Env {
  let resolved: Env | undefined;
  for (const name of SECRET_VARIABLES) {
    const fileVariable = `${name}_FILE`;
    const path = env[fileVariable];
    if (path === undefined || path.trim() === '') continue;
    if (env[name] !== undefined && env[name].trim() !== '') throw new ConfigError(fileVariable, `${name} and ${fileVariable} are both set; set only one.`);
    let content: string;
    try {
      content = readText(path.trim());
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? 'unreadable';
      throw new ConfigError(fileVariable, `${fileVariable} names a file that cannot be read (${reason}: ${path.trim()}).`);
    }
    resolved ??= { ...env };
    resolved[name] = content.replace(/\r?\n$/, '');
  }
  return resolved ?? env;
}

function read(env: Env): Parsed {
  const parsed: Partial<Record<keyof Schema, unknown>> = {};
  for (const name of CONFIG_VARIABLES) {
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') continue;
    const result = v.safeParse(schema[name] as v.GenericSchema<string, unknown>, raw.trim(), { abortPipeEarly: true });
    if (!result.success) {
      const shown = SECRET_VARIABLES.has(name) ? '' : ` (got ${JSON.stringify(raw.length > 80 ? `${raw.slice(0, 80)}…` : raw)})`;
      throw new ConfigError(name, `${name} ${result.issues[0].message}${shown}.`);
    }
    parsed[name] = result.output;
  }
  return parsed as Parsed;
}

/**
 * Reads and validates the configuration. Throws a `ConfigError` whose message is one line
 * naming the variable at fault.
 *
 * @example
 * const config = loadConfig(process.env);
 * config.issuer; // 'http://localhost:3000' unless GATEHOUSE_ISSUER or PORT say otherwise
 */
export function loadConfig(env: Env): Config {
  const e = read(withSecretFiles(env));
  const port = e.PORT ?? 3000;
  const idle = e.GATEHOUSE_REFRESH_IDLE_TTL_SECONDS ?? null;
  const absolute = e.GATEHOUSE_REFRESH_ABSOLUTE_TTL_SECONDS ?? null;
  if (idle !== null && absolute !== null && idle > absolute) {
    throw new ConfigError('GATEHOUSE_REFRESH_IDLE_TTL_SECONDS', 'GATEHOUSE_REFRESH_IDLE_TTL_SECONDS must not exceed GATEHOUSE_REFRESH_ABSOLUTE_TTL_SECONDS.');
  }
  const issuer = e.GATEHOUSE_ISSUER ?? `http://localhost:${port}`;
  const scopes = e.GATEHOUSE_SCOPES_FILE === undefined ? { catalogue: DEFAULT_SCOPES } : readScopeCatalogue(e.GATEHOUSE_SCOPES_FILE);
  if ('problem' in scopes) throw new ConfigError('GATEHOUSE_SCOPES_FILE', `GATEHOUSE_SCOPES_FILE ${e.GATEHOUSE_SCOPES_FILE}: ${scopes.problem}.`);
  const resources = e.GATEHOUSE_RESOURCES_FILE === undefined ? { resources: [ownApisResource(issuer)] } : readResourceCatalogue(e.GATEHOUSE_RESOURCES_FILE, issuer, scopes.catalogue);
  if ('problem' in resources) throw new ConfigError('GATEHOUSE_RESOURCES_FILE', `GATEHOUSE_RESOURCES_FILE ${e.GATEHOUSE_RESOURCES_FILE}: ${resources.problem}.`);
  const policy = e.GATEHOUSE_REGISTRATION ?? 'off';
  if (policy === 'token' && e.GATEHOUSE_REGISTRATION_TOKEN === undefined) {
    throw new ConfigError('GATEHOUSE_REGISTRATION_TOKEN', 'GATEHOUSE_REGISTRATION=token needs GATEHOUSE_REGISTRATION_TOKEN (or GATEHOUSE_REGISTRATION_TOKEN_FILE): the initial access token(s) clients present.');
  }
  const unknownScope = e.GATEHOUSE_REGISTRATION_SCOPES?.find((scope) => !isCataloguedScope(scopes.catalogue, scope));
  if (unknownScope !== undefined) throw new ConfigError('GATEHOUSE_REGISTRATION_SCOPES', `GATEHOUSE_REGISTRATION_SCOPES names ${unknownScope}, which is not in the scope catalogue.`);
  const anonymousResources = e.GATEHOUSE_REGISTRATION_RESOURCES?.map((uri) => findResource(resources.resources, uri)?.resource ?? uri);
  const unknownResource = anonymousResources?.find((uri) => findResource(resources.resources, uri) === undefined);
  if (unknownResource !== undefined) {
    throw new ConfigError('GATEHOUSE_REGISTRATION_RESOURCES', `GATEHOUSE_REGISTRATION_RESOURCES names ${unknownResource}, which is not a resource of GATEHOUSE_RESOURCES_FILE (or the issuer, for the server's own APIs).`);
  }
  return {
    host: e.HOST,
    port,
    issuer,
    database: e.GATEHOUSE_DATABASE_URL
      ? { kind: 'postgres', connectionString: e.GATEHOUSE_DATABASE_URL, poolSize: e.GATEHOUSE_DATABASE_POOL_SIZE ?? 10, schema: e.GATEHOUSE_DATABASE_SCHEMA }
      : {
          kind: 'sqlite',
          filename: e.GATEHOUSE_DB ?? './data/gatehouse.db',
          synchronous: e.GATEHOUSE_SQLITE_SYNCHRONOUS ?? 'NORMAL',
          // How long a request may wait in all for the write lock (docs/decisions/0101-bounded-sqlite-lock-waits.md).
          busyTimeoutMs: e.GATEHOUSE_SQLITE_BUSY_TIMEOUT_MS ?? 5000,
        },
    keySecret: e.GATEHOUSE_KEY_SECRET,
    trustProxy: e.GATEHOUSE_TRUST_PROXY ?? false,
    logLevel: e.GATEHOUSE_LOG_LEVEL ?? 'info',
    logFormat: e.GATEHOUSE_LOG_FORMAT,
    accessTokenTtlSeconds: e.GATEHOUSE_ACCESS_TOKEN_TTL_SECONDS ?? 3600,
    codeTtlSeconds: e.GATEHOUSE_CODE_TTL_SECONDS ?? 60,
    sessionTtlSeconds: e.GATEHOUSE_SESSION_TTL_SECONDS ?? 12 * 3600,
    refreshToken: {
      rotate: e.GATEHOUSE_REFRESH_ROTATION ?? false,
      reuseGraceSeconds: e.GATEHOUSE_REFRESH_REUSE_GRACE_SECONDS ?? 10,
      idleTtlSeconds: idle,
      absoluteTtlSeconds: absolute,
    },
    rateLimit: {
      maxFailures: e.GATEHOUSE_RATE_LIMIT_MAX_FAILURES ?? 5,
      windowSeconds: e.GATEHOUSE_RATE_LIMIT_WINDOW_SECONDS ?? 300,
      maxFailuresPerIp: e.GATEHOUSE_RATE_LIMIT_MAX_FAILURES_PER_IP ?? 5 * (e.GATEHOUSE_RATE_LIMIT_MAX_FAILURES ?? 5),
      ipv6PrefixLength: e.GATEHOUSE_RATE_LIMIT_IPV6_PREFIX_LENGTH ?? 64,
      maxAnonymousRequestsPerIp: e.GATEHOUSE_RATE_LIMIT_MAX_ANONYMOUS_PER_IP ?? 60, // http-express's default too
      maxClientMetadataDocumentsPerIp: e.GATEHOUSE_RATE_LIMIT_MAX_DOCUMENTS_PER_IP ?? 20, // http-express's default too
    },
    maxAnonymousInteractions: e.GATEHOUSE_MAX_ANONYMOUS_INTERACTIONS ?? 10_000,
    purgeIntervalMinutes: e.GATEHOUSE_PURGE_INTERVAL_MINUTES ?? 15,
    shutdownTimeoutSeconds: e.GATEHOUSE_SHUTDOWN_TIMEOUT_SECONDS ?? 10,
    passwordHelp: {
      ...(e.GATEHOUSE_PASSWORD_HELP_TEXT === undefined ? {} : { text: e.GATEHOUSE_PASSWORD_HELP_TEXT }),
      ...(e.GATEHOUSE_PASSWORD_HELP_URL === undefined ? {} : { url: e.GATEHOUSE_PASSWORD_HELP_URL }),
    },
    // The demo prints an admin password: on by default only where no one else can reach it.
    demo: e.GATEHOUSE_DEMO ?? isLoopbackHost(new URL(issuer).hostname),
    jwksMaxAgeSeconds: e.GATEHOUSE_JWKS_MAX_AGE_SECONDS ?? 300,
    // Off unless a port is given; loopback by default, so the scrape target is not public by accident.
    metrics: e.GATEHOUSE_METRICS_PORT === undefined ? undefined : { host: e.GATEHOUSE_METRICS_HOST ?? '127.0.0.1', port: e.GATEHOUSE_METRICS_PORT },
    scopes: scopes.catalogue,
    resources: resources.resources,
    registration: {
      policy,
      initialAccessTokenHashes: (e.GATEHOUSE_REGISTRATION_TOKEN ?? []).map((token) => sha256(token)),
      anonymousScopes: e.GATEHOUSE_REGISTRATION_SCOPES ?? null,
      anonymousResources: anonymousResources ?? null,
      maxPerIpPerHour: e.GATEHOUSE_REGISTRATION_RATE_LIMIT ?? 20,
      // 0 (read as null) keeps every client; unset, the default.
      unusedClientTtlSeconds: e.GATEHOUSE_REGISTRATION_UNUSED_TTL_SECONDS === undefined ? DEFAULT_UNUSED_CLIENT_TTL_SECONDS : e.GATEHOUSE_REGISTRATION_UNUSED_TTL_SECONDS,
    },
    clientMetadataDocuments: {
      enabled: e.GATEHOUSE_CLIENT_METADATA_DOCUMENTS ?? false,
      allowedHosts: e.GATEHOUSE_CLIENT_METADATA_DOCUMENT_HOSTS ?? null,
      deniedHosts: e.GATEHOUSE_CLIENT_METADATA_DOCUMENT_DENIED_HOSTS ?? [],
      allowPrivateAddresses: e.GATEHOUSE_CLIENT_METADATA_DOCUMENT_ALLOW_PRIVATE ?? false,
    },
    openid: e.GATEHOUSE_OPENID ?? true,
    workers: e.GATEHOUSE_WORKERS ?? 1,
  };
}

/** Where the data lives, for messages (never the connection string: it may hold a password). */
export function describeDatabase(config: Config): string {
  return config.database.kind === 'sqlite' ? `SQLite file ${config.database.filename}` : 'PostgreSQL (GATEHOUSE_DATABASE_URL)';
}
