import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_SCOPES, sha256 } from '@gatehouse/core';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, unknownVariableWarnings } from './config.js';

const ORDERS = { scope: 'orders.v1.read', description: 'See your orders' };

function scopesFile(content: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'gatehouse-scopes-')), 'scopes.json');
  writeFileSync(path, content);
  return path;
}

function failure(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('loadConfig accepted the environment');
}

describe('loadConfig', () => {
  it('takes the documented defaults from an empty environment', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      host: undefined,
      port: 3000,
      issuer: 'http://localhost:3000',
      database: { kind: 'sqlite', filename: './data/gatehouse.db' },
      keySecret: undefined,
      trustProxy: false,
      logLevel: 'info',
      accessTokenTtlSeconds: 3600,
      codeTtlSeconds: 60,
      refreshToken: { rotate: false, reuseGraceSeconds: 10, idleTtlSeconds: null, absoluteTtlSeconds: null },
      rateLimit: { maxFailures: 5, windowSeconds: 300, maxFailuresPerIp: 25, ipv6PrefixLength: 64, maxAnonymousRequestsPerIp: 60, maxClientMetadataDocumentsPerIp: 20 },
      maxAnonymousInteractions: 10_000,
      purgeIntervalMinutes: 15,
      demo: true,
      scopes: DEFAULT_SCOPES,
      openid: true,
      workers: 1,
    });
  });

  it('serves with one process unless GATEHOUSE_WORKERS says how many (auto: one per core; docs/decisions/0171)', () => {
    expect(loadConfig({}).workers).toBe(1);
    expect(loadConfig({ GATEHOUSE_WORKERS: '4' }).workers).toBe(4);
    expect(loadConfig({ GATEHOUSE_WORKERS: 'AUTO' }).workers).toBe(availableParallelism());
    for (const wrong of ['0', '-1', '2.5', 'many', '257']) {
      expect(() => loadConfig({ GATEHOUSE_WORKERS: wrong }), wrong).toThrow(/GATEHOUSE_WORKERS.*auto or a whole number from 1 to 256/);
    }
  });

  it('is an OpenID Provider unless GATEHOUSE_OPENID=false (docs/decisions/0130)', () => {
    expect(loadConfig({ GATEHOUSE_OPENID: 'false' }).openid).toBe(false);
    expect(loadConfig({ GATEHOUSE_OPENID: 'yes' }).openid).toBe(true);
    expect(failure({ GATEHOUSE_OPENID: 'maybe' }).message).toBe('GATEHOUSE_OPENID must be true or false (got "maybe").');
  });

  it('derives the default issuer from PORT and uses GATEHOUSE_ISSUER verbatim', () => {
    expect(loadConfig({ PORT: '8080' }).issuer).toBe('http://localhost:8080');
    expect(loadConfig({ PORT: '8080', GATEHOUSE_ISSUER: 'https://auth.example.com/tenant' }).issuer).toBe('https://auth.example.com/tenant');
  });

  it('reads every variable', () => {
    const config = loadConfig({
      HOST: '127.0.0.1',
      PORT: '4000',
      GATEHOUSE_ISSUER: 'http://127.0.0.1:4000',
      GATEHOUSE_DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test',
      GATEHOUSE_DATABASE_POOL_SIZE: '5',
      GATEHOUSE_DATABASE_SCHEMA: 'gatehouse',
      GATEHOUSE_KEY_SECRET: 'k'.repeat(32),
      GATEHOUSE_TRUST_PROXY: 'loopback, 10.0.0.0/8',
      GATEHOUSE_LOG_LEVEL: 'warn',
      GATEHOUSE_ACCESS_TOKEN_TTL_SECONDS: '600',
      GATEHOUSE_CODE_TTL_SECONDS: '30',
      GATEHOUSE_SESSION_TTL_SECONDS: '3600',
      GATEHOUSE_REFRESH_ROTATION: 'true',
      GATEHOUSE_REFRESH_REUSE_GRACE_SECONDS: '5',
      GATEHOUSE_REFRESH_IDLE_TTL_SECONDS: '86400',
      GATEHOUSE_REFRESH_ABSOLUTE_TTL_SECONDS: '0',
      GATEHOUSE_RATE_LIMIT_MAX_FAILURES: '3',
      GATEHOUSE_RATE_LIMIT_WINDOW_SECONDS: '60',
      GATEHOUSE_RATE_LIMIT_MAX_FAILURES_PER_IP: '100',
      GATEHOUSE_RATE_LIMIT_IPV6_PREFIX_LENGTH: '48',
      GATEHOUSE_PURGE_INTERVAL_MINUTES: '5',
      GATEHOUSE_SHUTDOWN_TIMEOUT_SECONDS: '3',
      GATEHOUSE_PASSWORD_HELP_TEXT: 'Ask the IT desk.',
      GATEHOUSE_PASSWORD_HELP_URL: 'mailto:it@example.com',
      GATEHOUSE_DEMO: 'off',
      GATEHOUSE_JWKS_MAX_AGE_SECONDS: '60',
      GATEHOUSE_SCOPES_FILE: scopesFile(JSON.stringify([ORDERS])),
      GATEHOUSE_REGISTRATION: 'token',
      GATEHOUSE_REGISTRATION_TOKEN: `${'a'.repeat(32)}, ${'b'.repeat(40)}`,
      GATEHOUSE_REGISTRATION_SCOPES: 'orders.v1.read messaging.v1.read',
      GATEHOUSE_REGISTRATION_RATE_LIMIT: '50',
      GATEHOUSE_REGISTRATION_UNUSED_TTL_SECONDS: '0',
      GATEHOUSE_CLIENT_METADATA_DOCUMENTS: 'on',
      GATEHOUSE_CLIENT_METADATA_DOCUMENT_HOSTS: 'agents.example, *.Tools.example',
      GATEHOUSE_CLIENT_METADATA_DOCUMENT_DENIED_HOSTS: 'bad.tools.example',
      GATEHOUSE_CLIENT_METADATA_DOCUMENT_ALLOW_PRIVATE: 'true',
      GATEHOUSE_WORKERS: '3',
    });
    expect(config).toEqual({
      host: '127.0.0.1',
      port: 4000,
      issuer: 'http://127.0.0.1:4000',
      database: { kind: 'postgres', connectionString: 'postgres://postgres@127.0.0.1:5432/test', poolSize: 5, schema: 'gatehouse' },
      keySecret: 'k'.repeat(32),
      trustProxy: 'loopback, 10.0.0.0/8',
      logLevel: 'warn',
      accessTokenTtlSeconds: 600,
      codeTtlSeconds: 30,
      sessionTtlSeconds: 3600,
      refreshToken: { rotate: true, reuseGraceSeconds: 5, idleTtlSeconds: 86400, absoluteTtlSeconds: null },
      rateLimit: { maxFailures: 3, windowSeconds: 60, maxFailuresPerIp: 100, ipv6PrefixLength: 48, maxAnonymousRequestsPerIp: 60, maxClientMetadataDocumentsPerIp: 20 },
      maxAnonymousInteractions: 10_000,
      purgeIntervalMinutes: 5,
      shutdownTimeoutSeconds: 3,
      passwordHelp: { text: 'Ask the IT desk.', url: 'mailto:it@example.com' },
      demo: false,
      jwksMaxAgeSeconds: 60,
      scopes: [...DEFAULT_SCOPES, ORDERS],
      resources: [{ resource: 'http://127.0.0.1:4000', name: 'Gatehouse APIs', scopes: DEFAULT_SCOPES.map((entry) => entry.scope) }],
      registration: {
        policy: 'token',
        initialAccessTokenHashes: [sha256('a'.repeat(32)), sha256('b'.repeat(40))],
        anonymousScopes: ['orders.v1.read', 'messaging.v1.read'],
        anonymousResources: null,
        maxPerIpPerHour: 50,
        unusedClientTtlSeconds: null,
      },
      clientMetadataDocuments: { enabled: true, allowedHosts: ['agents.example', '*.tools.example'], deniedHosts: ['bad.tools.example'], allowPrivateAddresses: true },
      openid: true,
      workers: 3,
    });
  });

  it('GATEHOUSE_PASSWORD_HELP_URL: an https, http or mailto URL, or a path; anything else is one line naming it (docs/decisions/0156)', () => {
    expect(loadConfig({}).passwordHelp).toEqual({});
    expect(loadConfig({ GATEHOUSE_PASSWORD_HELP_URL: '/help' }).passwordHelp).toEqual({ url: '/help' });
    expect(() => loadConfig({ GATEHOUSE_PASSWORD_HELP_URL: 'javascript:alert(1)' })).toThrow(
      'GATEHOUSE_PASSWORD_HELP_URL must be an https, http or mailto URL, or a path of this server (/help) (got "javascript:alert(1)").',
    );
  });

  it('keeps registration and metadata documents off by default, and unused self-registered clients 7 days', () => {
    const config = loadConfig({});
    expect(config.registration).toEqual({ policy: 'off', initialAccessTokenHashes: [], anonymousScopes: null, anonymousResources: null, maxPerIpPerHour: 20, unusedClientTtlSeconds: 7 * 86400 });
    expect(config.clientMetadataDocuments).toEqual({ enabled: false, allowedHosts: null, deniedHosts: [], allowPrivateAddresses: false });
    expect(loadConfig({ GATEHOUSE_REGISTRATION: 'OPEN' }).registration.policy).toBe('open');
    // The server's own APIs are a resource (the issuer): anonymous clients may be held to it.
    expect(loadConfig({ GATEHOUSE_ISSUER: 'http://127.0.0.1:4000', GATEHOUSE_REGISTRATION_RESOURCES: 'http://127.0.0.1:4000' }).registration.anonymousResources).toEqual(['http://127.0.0.1:4000']);
    expect(loadConfig({ GATEHOUSE_CLIENT_METADATA_DOCUMENTS: 'off' }).clientMetadataDocuments.enabled).toBe(false);
  });

  it('refuses registration settings that cannot work, naming the variable and never echoing a token', () => {
    expect(failure({ GATEHOUSE_REGISTRATION: 'anyone' }).message).toBe('GATEHOUSE_REGISTRATION must be off, open or token (got "anyone").');
    expect(failure({ GATEHOUSE_REGISTRATION: 'token' })).toMatchObject({ variable: 'GATEHOUSE_REGISTRATION_TOKEN', message: expect.stringContaining('GATEHOUSE_REGISTRATION=token needs GATEHOUSE_REGISTRATION_TOKEN') });
    const short = failure({ GATEHOUSE_REGISTRATION: 'token', GATEHOUSE_REGISTRATION_TOKEN: 'too-short-secret' });
    expect(short.message).toMatch(/^GATEHOUSE_REGISTRATION_TOKEN must be one or more tokens .* of at least 32 printable characters/);
    expect(short.message).not.toContain('too-short-secret');
    expect(failure({ GATEHOUSE_REGISTRATION_SCOPES: 'messaging.v1.read orders.v1.read' }).message).toBe('GATEHOUSE_REGISTRATION_SCOPES names orders.v1.read, which is not in the scope catalogue.');
    expect(failure({ GATEHOUSE_CLIENT_METADATA_DOCUMENT_HOSTS: 'https://agents.example' }).variable).toBe('GATEHOUSE_CLIENT_METADATA_DOCUMENT_HOSTS');
    expect(failure({ GATEHOUSE_REGISTRATION_RESOURCES: 'https://nowhere.example/mcp' }).message).toMatch(/^GATEHOUSE_REGISTRATION_RESOURCES names https:\/\/nowhere.example\/mcp, which is not a resource/);
    expect(failure({ GATEHOUSE_REGISTRATION_RATE_LIMIT: '0' }).variable).toBe('GATEHOUSE_REGISTRATION_RATE_LIMIT');
  });

  it('reads the initial access token from GATEHOUSE_REGISTRATION_TOKEN_FILE', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'gatehouse-token-')), 'token');
    writeFileSync(path, `${'t'.repeat(48)}\n`);
    const config = loadConfig({ GATEHOUSE_REGISTRATION: 'token', GATEHOUSE_REGISTRATION_TOKEN_FILE: path });
    expect(config.registration.initialAccessTokenHashes).toEqual([sha256('t'.repeat(48))]);
  });

  it('reads GATEHOUSE_TRUST_PROXY as Express does: booleans, hop counts, address lists', () => {
    expect(loadConfig({ GATEHOUSE_TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ GATEHOUSE_TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ GATEHOUSE_TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ GATEHOUSE_TRUST_PROXY: 'loopback' }).trustProxy).toBe('loopback');
    expect(loadConfig({ GATEHOUSE_TRUST_PROXY: 'loopback, 10.0.0.0/8, 192.168.0.0/255.255.0.0, fc00::/7, 203.0.113.9' }).trustProxy).toBe('loopback, 10.0.0.0/8, 192.168.0.0/255.255.0.0, fc00::/7, 203.0.113.9');
    // Refused at start-up with one line naming the variable, as Express would refuse it only at serve.
    for (const value of ['bogus', '10.0.0.0/99', '-1', '10.0.0.1/8/8', '::1/129', 'loopback,'])
      expect(() => loadConfig({ GATEHOUSE_TRUST_PROXY: value }), value).toThrow(/GATEHOUSE_TRUST_PROXY must be true, false, a hop count/);
  });

  it('allows five times the per-key failures per IP unless told otherwise', () => {
    expect(loadConfig({ GATEHOUSE_RATE_LIMIT_MAX_FAILURES: '8' }).rateLimit).toEqual({ maxFailures: 8, windowSeconds: 300, maxFailuresPerIp: 40, ipv6PrefixLength: 64, maxAnonymousRequestsPerIp: 60, maxClientMetadataDocumentsPerIp: 20 });
  });

  it('counts IPv6 clients per /64 unless GATEHOUSE_RATE_LIMIT_IPV6_PREFIX_LENGTH says otherwise (32 to 128)', () => {
    expect(loadConfig({ GATEHOUSE_RATE_LIMIT_IPV6_PREFIX_LENGTH: '56' }).rateLimit.ipv6PrefixLength).toBe(56);
    expect(() => loadConfig({ GATEHOUSE_RATE_LIMIT_IPV6_PREFIX_LENGTH: '16' })).toThrow(/GATEHOUSE_RATE_LIMIT_IPV6_PREFIX_LENGTH must be a whole number from 32 to 128/);
  });

  it('runs SQLite with synchronous=NORMAL unless GATEHOUSE_SQLITE_SYNCHRONOUS asks for FULL', () => {
    expect(loadConfig({}).database).toEqual({ kind: 'sqlite', filename: './data/gatehouse.db', synchronous: 'NORMAL', busyTimeoutMs: 5000 });
    expect(loadConfig({ GATEHOUSE_SQLITE_SYNCHRONOUS: 'full' }).database).toEqual({ kind: 'sqlite', filename: './data/gatehouse.db', synchronous: 'FULL', busyTimeoutMs: 5000 });
    expect(failure({ GATEHOUSE_SQLITE_SYNCHRONOUS: 'OFF' }).message).toBe('GATEHOUSE_SQLITE_SYNCHRONOUS must be NORMAL or FULL (got "OFF").');
  });

  it('lets a request wait 5 s in all for the SQLite write lock unless GATEHOUSE_SQLITE_BUSY_TIMEOUT_MS says otherwise (100 to 600000; decision 0101)', () => {
    expect(loadConfig({ GATEHOUSE_SQLITE_BUSY_TIMEOUT_MS: '1500' }).database).toMatchObject({ kind: 'sqlite', busyTimeoutMs: 1500 });
    expect(failure({ GATEHOUSE_SQLITE_BUSY_TIMEOUT_MS: '0' }).message).toBe('GATEHOUSE_SQLITE_BUSY_TIMEOUT_MS must be a whole number from 100 to 600000 (got "0").');
    expect(failure({ GATEHOUSE_SQLITE_BUSY_TIMEOUT_MS: '5s' }).variable).toBe('GATEHOUSE_SQLITE_BUSY_TIMEOUT_MS');
  });

  it('seeds the demo data by default only for a loopback issuer; elsewhere only when GATEHOUSE_DEMO=true (docs/operations.md)', () => {
    for (const issuer of ['http://localhost:3000', 'http://127.0.0.1:4000', 'http://127.10.0.1', 'http://[::1]:3000', 'https://localhost:8443']) {
      expect(loadConfig({ GATEHOUSE_ISSUER: issuer }).demo, issuer).toBe(true);
    }
    expect(loadConfig({ PORT: '8080' }).demo).toBe(true);
    for (const issuer of ['https://auth.example.com', 'https://127.0.0.1.example.com', 'https://localhost.example.com', 'https://10.0.0.5']) {
      expect(loadConfig({ GATEHOUSE_ISSUER: issuer }).demo, issuer).toBe(false);
    }
    expect(loadConfig({ GATEHOUSE_ISSUER: 'https://auth.example.com', GATEHOUSE_DEMO: 'true' }).demo).toBe(true);
    expect(loadConfig({ GATEHOUSE_ISSUER: 'http://localhost:3000', GATEHOUSE_DEMO: 'false' }).demo).toBe(false);
  });

  it('lets the JWKS be cached 300 s unless GATEHOUSE_JWKS_MAX_AGE_SECONDS says otherwise (a new key waits it out)', () => {
    expect(loadConfig({}).jwksMaxAgeSeconds).toBe(300);
    expect(loadConfig({ GATEHOUSE_JWKS_MAX_AGE_SECONDS: '0' }).jwksMaxAgeSeconds).toBe(0);
    expect(loadConfig({ GATEHOUSE_JWKS_MAX_AGE_SECONDS: '3600' }).jwksMaxAgeSeconds).toBe(3600);
    expect(failure({ GATEHOUSE_JWKS_MAX_AGE_SECONDS: '3601' }).message).toBe('GATEHOUSE_JWKS_MAX_AGE_SECONDS must be a whole number from 0 to 3600 (got "3601").');
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ PORT: '', GATEHOUSE_ISSUER: ' ' }).issuer).toBe('http://localhost:3000');
  });

  // Each bad value stops start-up with one line naming the variable.
  it.each([
    [{ PORT: 'abc' }, 'PORT', 'PORT must be a whole number from 1 to 65535 (got "abc").'],
    [{ PORT: '70000' }, 'PORT', 'PORT must be a whole number from 1 to 65535 (got "70000").'],
    [{ PORT: '0' }, 'PORT', 'PORT must be a whole number from 1 to 65535 (got "0").'],
    [{ HOST: 'bad host!' }, 'HOST', 'HOST must be a host name or an IP address (got "bad host!").'],
    [{ GATEHOUSE_ISSUER: 'not a url' }, 'GATEHOUSE_ISSUER', 'GATEHOUSE_ISSUER must be an absolute URL such as https://auth.example.com (got "not a url").'],
    [{ GATEHOUSE_ISSUER: 'http://auth.example.com' }, 'GATEHOUSE_ISSUER', 'GATEHOUSE_ISSUER must be https (http is allowed on loopback only) (got "http://auth.example.com").'],
    [{ GATEHOUSE_ISSUER: 'ftp://auth.example.com' }, 'GATEHOUSE_ISSUER', 'GATEHOUSE_ISSUER must be an https URL (got "ftp://auth.example.com").'],
    [{ GATEHOUSE_ISSUER: 'https://auth.example.com?x=1' }, 'GATEHOUSE_ISSUER', 'GATEHOUSE_ISSUER must not have a query or fragment (RFC 8414 §2) (got "https://auth.example.com?x=1").'],
    [{ GATEHOUSE_ISSUER: 'https://auth.example.com/' }, 'GATEHOUSE_ISSUER', 'GATEHOUSE_ISSUER must not end with a slash (got "https://auth.example.com/").'],
    [{ GATEHOUSE_DATABASE_URL: 'mysql://root:hunter2@db/x' }, 'GATEHOUSE_DATABASE_URL', 'GATEHOUSE_DATABASE_URL must be a postgres:// or postgresql:// connection string.'],
    [{ GATEHOUSE_DATABASE_POOL_SIZE: '0' }, 'GATEHOUSE_DATABASE_POOL_SIZE', 'GATEHOUSE_DATABASE_POOL_SIZE must be a whole number from 1 to 1000 (got "0").'],
    [{ GATEHOUSE_DATABASE_SCHEMA: 'public; drop' }, 'GATEHOUSE_DATABASE_SCHEMA', 'GATEHOUSE_DATABASE_SCHEMA must be a plain SQL identifier ([A-Za-z_][A-Za-z0-9_]*, up to 63 characters) (got "public; drop").'],
    [{ GATEHOUSE_KEY_SECRET: 'short-secret' }, 'GATEHOUSE_KEY_SECRET', 'GATEHOUSE_KEY_SECRET must be at least 32 characters (for example: openssl rand -base64 32).'],
    [{ GATEHOUSE_TRUST_PROXY: 'every$one' }, 'GATEHOUSE_TRUST_PROXY', 'GATEHOUSE_TRUST_PROXY must be true, false, a hop count, or a comma-separated list of addresses, subnets or loopback/linklocal/uniquelocal (got "every$one").'],
    [{ GATEHOUSE_LOG_LEVEL: 'verbose' }, 'GATEHOUSE_LOG_LEVEL', 'GATEHOUSE_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "verbose").'],
    [{ GATEHOUSE_ACCESS_TOKEN_TTL_SECONDS: '10' }, 'GATEHOUSE_ACCESS_TOKEN_TTL_SECONDS', 'GATEHOUSE_ACCESS_TOKEN_TTL_SECONDS must be a whole number from 60 to 86400 (got "10").'],
    [{ GATEHOUSE_CODE_TTL_SECONDS: '1h' }, 'GATEHOUSE_CODE_TTL_SECONDS', 'GATEHOUSE_CODE_TTL_SECONDS must be a whole number from 10 to 600 (got "1h").'],
    [{ GATEHOUSE_SESSION_TTL_SECONDS: '-5' }, 'GATEHOUSE_SESSION_TTL_SECONDS', 'GATEHOUSE_SESSION_TTL_SECONDS must be a whole number from 60 to 2592000 (got "-5").'],
    [{ GATEHOUSE_REFRESH_ROTATION: 'maybe' }, 'GATEHOUSE_REFRESH_ROTATION', 'GATEHOUSE_REFRESH_ROTATION must be true or false (got "maybe").'],
    [{ GATEHOUSE_REFRESH_REUSE_GRACE_SECONDS: '1000' }, 'GATEHOUSE_REFRESH_REUSE_GRACE_SECONDS', 'GATEHOUSE_REFRESH_REUSE_GRACE_SECONDS must be a whole number from 0 to 300 (got "1000").'],
    [{ GATEHOUSE_REFRESH_IDLE_TTL_SECONDS: 'x' }, 'GATEHOUSE_REFRESH_IDLE_TTL_SECONDS', 'GATEHOUSE_REFRESH_IDLE_TTL_SECONDS must be a whole number from 0 to 315360000 (got "x").'],
    [{ GATEHOUSE_REFRESH_ABSOLUTE_TTL_SECONDS: '1.5' }, 'GATEHOUSE_REFRESH_ABSOLUTE_TTL_SECONDS', 'GATEHOUSE_REFRESH_ABSOLUTE_TTL_SECONDS must be a whole number from 0 to 315360000 (got "1.5").'],
    [
      { GATEHOUSE_REFRESH_IDLE_TTL_SECONDS: '7200', GATEHOUSE_REFRESH_ABSOLUTE_TTL_SECONDS: '3600' },
      'GATEHOUSE_REFRESH_IDLE_TTL_SECONDS',
      'GATEHOUSE_REFRESH_IDLE_TTL_SECONDS must not exceed GATEHOUSE_REFRESH_ABSOLUTE_TTL_SECONDS.',
    ],
    [{ GATEHOUSE_RATE_LIMIT_MAX_FAILURES: '0' }, 'GATEHOUSE_RATE_LIMIT_MAX_FAILURES', 'GATEHOUSE_RATE_LIMIT_MAX_FAILURES must be a whole number from 1 to 100000 (got "0").'],
    [{ GATEHOUSE_RATE_LIMIT_WINDOW_SECONDS: 'ten' }, 'GATEHOUSE_RATE_LIMIT_WINDOW_SECONDS', 'GATEHOUSE_RATE_LIMIT_WINDOW_SECONDS must be a whole number from 1 to 86400 (got "ten").'],
    [{ GATEHOUSE_RATE_LIMIT_MAX_FAILURES_PER_IP: '-1' }, 'GATEHOUSE_RATE_LIMIT_MAX_FAILURES_PER_IP', 'GATEHOUSE_RATE_LIMIT_MAX_FAILURES_PER_IP must be a whole number from 1 to 1000000 (got "-1").'],
    [{ GATEHOUSE_PURGE_INTERVAL_MINUTES: '0' }, 'GATEHOUSE_PURGE_INTERVAL_MINUTES', 'GATEHOUSE_PURGE_INTERVAL_MINUTES must be a whole number from 1 to 10080 (got "0").'],
    [{ GATEHOUSE_SHUTDOWN_TIMEOUT_SECONDS: '0' }, 'GATEHOUSE_SHUTDOWN_TIMEOUT_SECONDS', 'GATEHOUSE_SHUTDOWN_TIMEOUT_SECONDS must be a whole number from 1 to 600 (got "0").'],
    [{ GATEHOUSE_DEMO: 'sometimes' }, 'GATEHOUSE_DEMO', 'GATEHOUSE_DEMO must be true or false (got "sometimes").'],
  ])('refuses %o with one line naming the variable', (env, variable, message) => {
    const error = failure(env);
    expect(error.variable).toBe(variable);
    expect(error.message).toBe(message);
    expect(error.message).not.toContain('\n');
  });

  it('never echoes a secret variable in its error', () => {
    expect(failure({ GATEHOUSE_KEY_SECRET: 'hunter2-hunter2' }).message).not.toContain('hunter2');
    expect(failure({ GATEHOUSE_DATABASE_URL: 'mysql://root:hunter2@db/x' }).message).not.toContain('hunter2');
  });

  it('accepts https issuers anywhere and http ones on loopback only', () => {
    expect(loadConfig({ GATEHOUSE_ISSUER: 'http://127.0.0.1:3000' }).issuer).toBe('http://127.0.0.1:3000');
    expect(loadConfig({ GATEHOUSE_ISSUER: 'http://[::1]:3000' }).issuer).toBe('http://[::1]:3000');
    expect(loadConfig({ GATEHOUSE_ISSUER: 'https://auth.example.com' }).issuer).toBe('https://auth.example.com');
  });

  describe('GATEHOUSE_SCOPES_FILE', () => {
    it('adds the scopes of the file after the four built-in ones', () => {
      const other = { scope: 'orders.v1.lines.write', description: 'Change the lines of your orders' };
      expect(loadConfig({ GATEHOUSE_SCOPES_FILE: scopesFile(JSON.stringify([ORDERS, other])) }).scopes).toEqual([...DEFAULT_SCOPES, ORDERS, other]);
      expect(loadConfig({ GATEHOUSE_SCOPES_FILE: scopesFile('[]') }).scopes).toEqual(DEFAULT_SCOPES);
    });

    it.each([
      ['not JSON', '[{"scope": ', /^is not valid JSON \(.+\)$/],
      ['not an array', '{"scope": "orders.v1.read", "description": "x"}', /^must hold a JSON array of \{ "scope", "description" \} objects$/],
      ['an item that is not an object', '["orders.v1.read"]', /^item 1 must be an object \{ "scope", "description" \}$/],
      ['a missing description', '[{"scope": "orders.v1.read"}]', /^item 1 has no "description"$/],
      ['a description that is not a string', '[{"scope": "orders.v1.read", "description": 7}]', /^item 1 "description" must be a string$/],
      ['a misspelt key', '[{"scope": "orders.v1.read", "description": "x"}, {"scope": "orders.v1.write", "descripton": "y"}]', /^item 2 has no "description"$/],
      ['an unknown key', '[{"scope": "orders.v1.read", "description": "x", "title": "y"}]', /^item 1 has an unknown key "title"$/],
      ['a scope outside the product form', '[{"scope": "orders:read", "description": "x"}]', /^the scope "orders:read" is not of the form <area>\.<version>\.<resource>\.<action> or <area>\.<version>\.<action> \(such as orders\.v1\.read\)$/],
      ['a scope that is not a scope-token', '[{"scope": "orders.v1.réad", "description": "x"}]', /^the scope "orders\.v1\.réad" is not an RFC 6749 §3\.3 scope-token/],
      ['a scope listed twice', JSON.stringify([ORDERS, ORDERS]), /^the scope "orders\.v1\.read" is listed twice$/],
      ['an empty description', '[{"scope": "orders.v1.read", "description": " "}]', /^the scope "orders\.v1\.read" needs a description/],
      ['a built-in scope', '[{"scope": "messaging.v1.send", "description": "Send texts"}]', /^the scope "messaging\.v1\.send" is built in; the file only adds scopes$/],
      ['an OpenID Connect scope', '[{"scope": "profile", "description": "Profile"}]', /^the scope "profile" is an OpenID Connect scope, which the server adds itself \(GATEHOUSE_OPENID\)$/],
    ])('refuses a file with %s in one line naming the file', (_case, content, problem) => {
      const path = scopesFile(content);
      const error = failure({ GATEHOUSE_SCOPES_FILE: path });
      expect(error.variable).toBe('GATEHOUSE_SCOPES_FILE');
      expect(error.message.startsWith(`GATEHOUSE_SCOPES_FILE ${path}: `)).toBe(true);
      expect(error.message.endsWith('.')).toBe(true);
      expect(error.message).not.toContain('\n');
      expect(error.message.slice(`GATEHOUSE_SCOPES_FILE ${path}: `.length, -1)).toMatch(problem);
    });

    it('refuses a file that cannot be read, naming it', () => {
      const path = join(tmpdir(), 'gatehouse-no-such-dir', 'scopes.json');
      expect(failure({ GATEHOUSE_SCOPES_FILE: path }).message).toBe(`GATEHOUSE_SCOPES_FILE ${path}: cannot be read (ENOENT).`);
    });
  });
});

describe('GATEHOUSE_RESOURCES_FILE (docs/decisions/0110-resource-indicators.md)', () => {
  const OWN = { resource: 'https://auth.example.com', name: 'Gatehouse APIs', scopes: DEFAULT_SCOPES.map((entry) => entry.scope) };
  const MCP = { resource: 'https://mcp.example.com/mcp', name: 'Orders MCP', scopes: ['orders.v1.read'], accessTokenTtlSeconds: 900 };
  const base = () => ({ GATEHOUSE_ISSUER: 'https://auth.example.com', GATEHOUSE_SCOPES_FILE: scopesFile(JSON.stringify([ORDERS])) });

  it('has the server\'s own APIs as a resource, then those of the file', () => {
    expect(loadConfig({ GATEHOUSE_ISSUER: 'https://auth.example.com' }).resources).toEqual([OWN]);
    expect(loadConfig({ ...base(), GATEHOUSE_RESOURCES_FILE: scopesFile(JSON.stringify([MCP])) }).resources).toEqual([OWN, MCP]);
  });

  it.each([
    ['not JSON', '[{', /^is not valid JSON/],
    ['not an array', '{}', /^must hold a JSON array of \{ "resource", "name", "scopes" \} objects$/],
    ['a missing name', JSON.stringify([{ resource: MCP.resource, scopes: MCP.scopes }]), /^item 1 has no "name"$/],
    ['an unknown key', JSON.stringify([{ ...MCP, audience: 'x' }]), /^item 1 has an unknown key "audience"$/],
    ['a relative URI', JSON.stringify([{ ...MCP, resource: '/mcp' }]), /^the resource "\/mcp" is not an absolute URI$/],
    ['a fragment', JSON.stringify([{ ...MCP, resource: 'https://mcp.example.com/mcp#x' }]), /has a fragment/],
    ['a scope outside the catalogue', JSON.stringify([{ ...MCP, scopes: ['orders.v1.write'] }]), /accepts the scope "orders\.v1\.write", which is not in the scope catalogue$/],
    ['the server\'s own APIs', JSON.stringify([{ ...MCP, resource: 'https://AUTH.example.com/' }]), /is the server's own APIs \(GATEHOUSE_ISSUER\); the file only adds resources$/],
    ['a resource listed twice', JSON.stringify([MCP, MCP]), /is listed twice$/],
    ['a lifetime out of range', JSON.stringify([{ ...MCP, accessTokenTtlSeconds: 0 }]), /accessTokenTtlSeconds from 1 to 86400$/],
  ])('refuses a file with %s in one line naming the file', (_case, content, problem) => {
    const path = scopesFile(content);
    const error = failure({ ...base(), GATEHOUSE_RESOURCES_FILE: path });
    expect(error.variable).toBe('GATEHOUSE_RESOURCES_FILE');
    expect(error.message.startsWith(`GATEHOUSE_RESOURCES_FILE ${path}: `)).toBe(true);
    expect(error.message).not.toContain('\n');
    expect(error.message.slice(`GATEHOUSE_RESOURCES_FILE ${path}: `.length, -1)).toMatch(problem);
  });
});

describe('GATEHOUSE_METRICS_PORT and GATEHOUSE_METRICS_HOST', () => {
  it('leaves metrics off without a port, and listens on loopback by default', () => {
    expect(loadConfig({}).metrics).toBeUndefined();
    expect(loadConfig({ GATEHOUSE_METRICS_HOST: '0.0.0.0' }).metrics).toBeUndefined();
    expect(loadConfig({ GATEHOUSE_METRICS_PORT: '9464' }).metrics).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(loadConfig({ GATEHOUSE_METRICS_PORT: '9464', GATEHOUSE_METRICS_HOST: '0.0.0.0' }).metrics).toEqual({ host: '0.0.0.0', port: 9464 });
    expect(failure({ GATEHOUSE_METRICS_PORT: '0' }).message).toBe('GATEHOUSE_METRICS_PORT must be a whole number from 1 to 65535 (got "0").');
    expect(failure({ GATEHOUSE_METRICS_PORT: '9464', GATEHOUSE_METRICS_HOST: 'a b' }).variable).toBe('GATEHOUSE_METRICS_HOST');
  });
});

describe('GATEHOUSE_LOG_FORMAT', () => {
  it('is unset by default (the logger picks: pretty on a terminal, JSON elsewhere), json or pretty when set', () => {
    expect(loadConfig({}).logFormat).toBeUndefined();
    expect(loadConfig({ GATEHOUSE_LOG_FORMAT: 'json' }).logFormat).toBe('json');
    expect(loadConfig({ GATEHOUSE_LOG_FORMAT: 'Pretty' }).logFormat).toBe('pretty');
    expect(failure({ GATEHOUSE_LOG_FORMAT: 'xml' }).message).toBe('GATEHOUSE_LOG_FORMAT must be json or pretty (got "xml").');
  });
});

describe('secret settings from files (<NAME>_FILE)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-config-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, content: string) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };

  it('reads GATEHOUSE_KEY_SECRET_FILE and GATEHOUSE_DATABASE_URL_FILE, trimming the trailing newline', () => {
    const config = loadConfig({
      GATEHOUSE_KEY_SECRET_FILE: file('key', 'a key secret of at least 32 characters\n'),
      GATEHOUSE_DATABASE_URL_FILE: file('url', 'postgres://gatehouse:s3cret@db:5432/gatehouse\r\n'),
    });
    expect(config.keySecret).toBe('a key secret of at least 32 characters');
    expect(config.database).toMatchObject({ kind: 'postgres', connectionString: 'postgres://gatehouse:s3cret@db:5432/gatehouse' });
  });

  it('checks a value from a file like any other, without echoing it', () => {
    const error = failure({ GATEHOUSE_KEY_SECRET_FILE: file('short', 'hunter2\n') });
    expect(error.variable).toBe('GATEHOUSE_KEY_SECRET');
    expect(error.message).not.toContain('hunter2');
  });

  it('refuses both the variable and its _FILE, in one line', () => {
    const error = failure({ GATEHOUSE_KEY_SECRET: 'a key secret of at least 32 characters', GATEHOUSE_KEY_SECRET_FILE: file('both', 'x') });
    expect(error.variable).toBe('GATEHOUSE_KEY_SECRET_FILE');
    expect(error.message).toBe('GATEHOUSE_KEY_SECRET and GATEHOUSE_KEY_SECRET_FILE are both set; set only one.');
  });

  it('names the variable, never the content, when the file cannot be read', () => {
    const missing = join(dir, 'missing');
    const error = failure({ GATEHOUSE_DATABASE_URL_FILE: missing });
    expect(error.variable).toBe('GATEHOUSE_DATABASE_URL_FILE');
    expect(error.message).toBe(`GATEHOUSE_DATABASE_URL_FILE names a file that cannot be read (ENOENT: ${missing}).`);
    // A directory cannot be read as a file (a permission check would not stop root).
    const denied = failure({ GATEHOUSE_DATABASE_URL_FILE: dir });
    expect(denied.message).toBe(`GATEHOUSE_DATABASE_URL_FILE names a file that cannot be read (EISDIR: ${dir}).`);
    expect(denied.message).not.toContain('\n');
  });
});

describe('unknownVariableWarnings (docs/decisions/0150-unknown-variables-warn.md)', () => {
  it('names each unknown GATEHOUSE_* variable once, with the closest known one when it is near, never its value', () => {
    const warnings = unknownVariableWarnings({
      GATEHOUSE_ACCES_TOKEN_TTL_SECONDS: '600',
      GATEHOUSE_METRICS_PROT: '9464',
      GATEHOUSE_KEY_SECRET_FIEL: 'secret-value-never-shown',
      GATEHOUSE_SOMETHING_ELSE_ENTIRELY: '1',
      GATEHOUSE_ISSUER: 'https://auth.example.com',
      GATEHOUSE_KEY_SECRET_FILE: '/run/secrets/key',
      GATEHOUSE_TEST_POSTGRES_URL: 'postgres://postgres@127.0.0.1/test',
      PATH: '/usr/bin',
    });
    expect(warnings).toEqual([
      'GATEHOUSE_ACCES_TOKEN_TTL_SECONDS is not a Gatehouse variable and is ignored; did you mean GATEHOUSE_ACCESS_TOKEN_TTL_SECONDS?',
      'GATEHOUSE_KEY_SECRET_FIEL is not a Gatehouse variable and is ignored; did you mean GATEHOUSE_KEY_SECRET_FILE?',
      'GATEHOUSE_METRICS_PROT is not a Gatehouse variable and is ignored; did you mean GATEHOUSE_METRICS_PORT?',
      'GATEHOUSE_SOMETHING_ELSE_ENTIRELY is not a Gatehouse variable and is ignored; see docs/configuration.md for the variables',
    ]);
    expect(warnings.join('\n')).not.toContain('secret-value-never-shown');
  });
});
