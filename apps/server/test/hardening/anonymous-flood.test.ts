import { statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser, formWithAction } from '../support/browser.js';
import { ALL_SCOPES, createWorkspace, PASSWORD, REDIRECT_URI, type Provisioned } from '../support/fixture.js';
import { ensureBuilt, type ServerProcess } from '../support/processes.js';

// Issue #28 item 4 (docs/decisions/0108-anonymous-requests-store-bounded-state.md), against the real
// server on a SQLite file, loopback only: 10,000 authorization requests of signed-out browsers that
// each ask Gatehouse to store something (a prompt=login marker with a 3,000-character state) neither
// fill the disk nor stop a real user from signing in. One address meets the per-IP limit (429);
// many addresses (X-Forwarded-For from documentation ranges, behind a trusted loopback proxy) meet
// the table's cap (503), and the database stays within a few MiB of where it started.

const workspace = createWorkspace('flood');
let p: Provisioned;
let server: ServerProcess;

/** A small cap keeps the test quick; the default is 10,000. */
const CAP = 500;
const PER_IP = 60;
const REQUESTS_FROM_ONE_ADDRESS = 1_000;
const REQUESTS_FROM_MANY_ADDRESSES = 9_000;
const ADDRESSES = 300;
const CONCURRENCY = 16;
const STATE = 'x'.repeat(3_000);

beforeAll(async () => {
  await ensureBuilt();
  p = await workspace.provision('flood');
  server = await workspace.serve(p, { GATEHOUSE_TRUST_PROXY: 'loopback', GATEHOUSE_MAX_ANONYMOUS_INTERACTIONS: String(CAP) });
}, 120_000);

afterAll(() => workspace.cleanup());

/** The database's bytes on disk, its WAL and shared-memory files included. */
function databaseBytes(): number {
  return ['', '-wal', '-shm'].reduce((total, suffix) => {
    try {
      return total + statSync(`${p.env.GATEHOUSE_DB}${suffix}`).size;
    } catch {
      return total;
    }
  }, 0);
}

function anonymousRequest(address: string, extra: Record<string, string> = {}): Promise<Response> {
  const query = new URLSearchParams({ response_type: 'code', client_id: p.clientId, redirect_uri: REDIRECT_URI, scope: ALL_SCOPES, state: STATE, prompt: 'login', ...extra });
  return fetch(`${p.origin}/oauth/authorize?${query}`, { redirect: 'manual', headers: { 'X-Forwarded-For': address } });
}

/** Sends `count` requests, `CONCURRENCY` at a time; counts the answers by status. */
async function flood(count: number, addressOf: (index: number) => string): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        const index = next;
        next += 1;
        const response = await anonymousRequest(addressOf(index));
        await response.body?.cancel();
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      }
    }),
  );
  return statuses;
}

describe('a flood of signed-out authorization requests that each store something', () => {
  it('neither fills the disk nor stops a real sign-in', async () => {
    const before = databaseBytes();

    // One address: the per-IP limit answers 429 once it has stored its share.
    const one = await flood(REQUESTS_FROM_ONE_ADDRESS, () => '198.51.100.200');
    expect(one.get(302)).toBe(PER_IP);
    expect(one.get(429)).toBe(REQUESTS_FROM_ONE_ADDRESS - PER_IP);

    // Many addresses, each under its limit: the table's cap answers 503 once it is full.
    const many = await flood(REQUESTS_FROM_MANY_ADDRESSES, (index) => `${index % 2 === 0 ? '198.51.100' : '203.0.113'}.${Math.floor(index / 2) % (ADDRESSES / 2)}`);
    expect(many.get(302)).toBe(CAP - PER_IP);
    expect(many.get(503)).toBe(REQUESTS_FROM_MANY_ADDRESSES - (CAP - PER_IP));
    expect([...many.keys()].sort()).toEqual([302, 503]);

    // The table holds the cap, no more; unbounded, the 10,000 requests would have stored over 30 MB,
    // capped the file grew by the cap's 2 MB. (The WAL has its own bound, WAL_SIZE_LIMIT_BYTES.)
    const db = new Database(p.env.GATEHOUSE_DB as string);
    try {
      expect(db.prepare('SELECT count(*) AS n FROM interactions WHERE user_key IS NULL').get()).toEqual({ n: CAP });
      db.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      db.close();
    }
    expect(databaseBytes() - before).toBeLessThan(4 * 1024 * 1024);

    const full = await anonymousRequest('192.0.2.1');
    expect(full.status).toBe(503);
    expect(Number(full.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await full.text()).toContain('Too many sign-ins are in progress');

    // A real user still signs in, from the login page, and still authorizes, prompt=login included.
    const browser = new Browser(p.origin);
    const plain = new URLSearchParams({ response_type: 'code', client_id: p.clientId, redirect_uri: REDIRECT_URI, scope: ALL_SCOPES, state: 'real' });
    const loginPage = await browser.navigate('GET', `/oauth/authorize?${plain}`);
    expect(loginPage.status).toBe(200);
    const login = formWithAction(await loginPage.text(), '/oauth/login');
    const consent = await browser.navigate('POST', login.action, { ...login.hidden, email: p.email, password: PASSWORD });
    expect(consent.status).toBe(200);
    expect(await consent.text()).toContain('Allow');
    const again = await browser.request('GET', `/oauth/authorize?${plain}&prompt=login`);
    expect(again.status).toBe(302);
    expect(new URL(again.headers.get('location') as string, p.origin).pathname).toBe('/oauth/login');
    expect(server.child.exitCode).toBeNull();
  }, 300_000);
});
