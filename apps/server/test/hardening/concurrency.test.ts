import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../support/processes.js';
import { api, basic, codeMinter, createWorkspace, exchange, tokenRequest, type Provisioned, type TokenResponse } from '../support/fixture.js';

// docs/security.md "Bad input, faults, concurrency and durability", against the real server process on a SQLite file:
// single use of a code and of a rotated refresh token is decided by the database, and concurrent
// writes of attribute names and user values never leave a half-state; with one process and with two
// workers sharing the file (`serve --workers 2`, docs/decisions/0171-serve-workers.md), whose
// connections race each other. Refresh tokens rotate, with no grace for a retry (decision 0106), so
// that a second use of a token is a reuse whenever it arrives.

describe.each([1, 2])('gatehouse serve with %i worker(s)', (workers) => {
  const workspace = createWorkspace(`concurrency-${workers}`);
  let p: Provisioned;
  let token: string;

  beforeAll(async () => {
    await ensureBuilt();
    p = await workspace.provision('concurrency');
    await workspace.serve(p, { GATEHOUSE_WORKERS: String(workers), GATEHOUSE_REFRESH_ROTATION: 'true', GATEHOUSE_REFRESH_REUSE_GRACE_SECONDS: '0' });
    const minter = await codeMinter(p);
    const res = await exchange(p, await minter.mint());
    token = ((await res.json()) as TokenResponse).access_token;
  }, 120_000);

  afterAll(() => workspace.cleanup());

  const attributes = () => `/admin/rest/v1/accounts/${p.accountKey}/attributes`;

  async function createAttribute(name: string): Promise<string> {
    const res = await api(p, token, 'POST', attributes(), { name });
    expect(res.status).toBe(201);
    return ((await res.json()) as { key: string }).key;
  }

  describe('one code, 100 parallel exchanges over HTTP', () => {
    it('gives exactly one token response; the 99 others are invalid_grant, and the replays revoke the winner', async () => {
      const minter = await codeMinter(p);
      const code = await minter.mint();
      const answers = await Promise.all(
        Array.from({ length: 100 }, async () => {
          const res = await exchange(p, code);
          return { status: res.status, body: (await res.json()) as Record<string, unknown> };
        }),
      );
      const won = answers.filter((a) => a.status === 200);
      const lost = answers.filter((a) => a.status !== 200);
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(99);
      for (const answer of lost) expect(answer).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: expect.any(String) } });

      // RFC 6749 §4.1.2 (decision 0004): a second use revokes the grant of the first, whichever request won.
      const winner = won[0]?.body as unknown as TokenResponse;
      expect((await api(p, winner.access_token, 'GET', '/identity/v1/Users/me')).status).toBe(401);
      const introspection = await fetch(`${p.origin}/oauth/introspect`, {
        method: 'POST',
        headers: { Authorization: basic(p.clientId, p.clientSecret), 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: winner.refresh_token as string }).toString(),
      });
      expect(await introspection.json()).toEqual({ active: false });
    }, 60_000);
  });

  describe('one refresh token under rotation, 50 parallel refreshes over HTTP', () => {
    it('gives exactly one successor; the 49 others are invalid_grant, and the replays revoke the grant', async () => {
      const minter = await codeMinter(p);
      const issued = (await (await exchange(p, await minter.mint())).json()) as TokenResponse;
      const answers = await Promise.all(
        Array.from({ length: 50 }, async () => {
          const res = await tokenRequest(p, { grant_type: 'refresh_token', refresh_token: issued.refresh_token as string });
          return { status: res.status, body: (await res.json()) as Record<string, unknown> };
        }),
      );
      const won = answers.filter((a) => a.status === 200);
      const lost = answers.filter((a) => a.status !== 200);
      expect(won).toHaveLength(1);
      for (const answer of lost) expect(answer).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: expect.any(String) } });

      // RFC 9700 §4.14.2 (decision 0106): a rotated token presented again revokes the grant, the
      // winner's successor and every access token of it included, whichever worker answered.
      const successor = won[0]?.body as unknown as TokenResponse;
      expect(successor.refresh_token).not.toBe(issued.refresh_token);
      const next = await tokenRequest(p, { grant_type: 'refresh_token', refresh_token: successor.refresh_token as string });
      expect(next.status).toBe(400);
      for (const access of [issued.access_token, successor.access_token]) expect((await api(p, access, 'GET', '/identity/v1/Users/me')).status).toBe(401);
    }, 60_000);

    it('a chain of six refreshes: each successor refreshes once; the first token presented again revokes the chain', async () => {
      const minter = await codeMinter(p);
      const first = (await (await exchange(p, await minter.mint())).json()) as TokenResponse;
      let current = first;
      for (let step = 0; step < 6; step += 1) {
        const res = await tokenRequest(p, { grant_type: 'refresh_token', refresh_token: current.refresh_token as string });
        expect(res.status).toBe(200);
        current = (await res.json()) as TokenResponse;
        expect((await api(p, current.access_token, 'GET', '/identity/v1/Users/me')).status).toBe(200);
      }
      const replay = await tokenRequest(p, { grant_type: 'refresh_token', refresh_token: first.refresh_token as string });
      expect(replay.status).toBe(400);
      expect((await api(p, current.access_token, 'GET', '/identity/v1/Users/me')).status).toBe(401);
      expect((await tokenRequest(p, { grant_type: 'refresh_token', refresh_token: current.refresh_token as string })).status).toBe(400);
    }, 60_000);
  });

  describe('attribute names under concurrent writes', () => {
    it('parallel renames of one name: all succeed and the final name is one of them', async () => {
      const key = await createAttribute('rename-race');
      const names = Array.from({ length: 30 }, (_, i) => `renamed-${i}`);
      const statuses = await Promise.all(names.map(async (name) => (await api(p, token, 'PUT', `${attributes()}/${key}`, { name })).status));
      expect(statuses.every((status) => status === 200)).toBe(true);
      const final = (await (await api(p, token, 'GET', `${attributes()}/${key}`)).json()) as { key: string; name: string };
      expect(names).toContain(final.name);
      const listed = ((await (await api(p, token, 'GET', `${attributes()}?pageSize=1000`)).json()) as { results: Array<{ key: string; name: string }> }).results;
      expect(listed.filter((a) => a.key === key)).toEqual([final]);
    }, 60_000);

    it('parallel renames, deletes and value writes of one name: one delete wins, and nothing of the name is left anywhere', async () => {
      const key = await createAttribute('delete-race');
      const valuesPath = `/admin/rest/v1/accounts/${p.accountKey}/users/${p.userKey}/attributes`;
      expect((await api(p, token, 'PUT', valuesPath, [{ key, value: 'before' }])).status).toBe(204);
      const requests = Array.from({ length: 36 }, (_, i) => {
        if (i % 3 === 0) return api(p, token, 'DELETE', `${attributes()}/${key}`).then((r) => ['delete', r.status] as const);
        if (i % 3 === 1) return api(p, token, 'PUT', `${attributes()}/${key}`, { name: `gone-${i}` }).then((r) => ['rename', r.status] as const);
        return api(p, token, 'PUT', valuesPath, [{ key, value: `v${i}` }]).then((r) => ['value', r.status] as const);
      });
      const results = await Promise.all(requests);
      const of = (kind: string) => results.filter(([k]) => k === kind).map(([, status]) => status);
      expect(of('delete').filter((s) => s === 204)).toHaveLength(1);
      expect(of('delete').filter((s) => s !== 204).every((s) => s === 404)).toBe(true);
      expect(of('rename').every((s) => s === 200 || s === 404)).toBe(true);
      // A value write after the delete names an unknown key: 400, all or nothing.
      expect(of('value').every((s) => s === 204 || s === 400)).toBe(true);

      expect((await api(p, token, 'GET', `${attributes()}/${key}`)).status).toBe(404);
      const listed = ((await (await api(p, token, 'GET', `${attributes()}?pageSize=1000`)).json()) as { results: Array<{ key: string }> }).results;
      expect(listed.some((a) => a.key === key)).toBe(false);
      const values = (await (await api(p, token, 'GET', valuesPath)).json()) as Array<{ key: string }>;
      expect(values.some((v) => v.key === key)).toBe(false);
    }, 60_000);

    it('parallel creates of one name (in any case): exactly one 201, the others 409', async () => {
      const names = Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? 'Region' : 'REGION'));
      const statuses = await Promise.all(names.map(async (name) => (await api(p, token, 'POST', attributes(), { name })).status));
      expect(statuses.filter((s) => s === 201)).toHaveLength(1);
      expect(statuses.filter((s) => s === 409)).toHaveLength(19);
    }, 60_000);
  });

  describe("one user's values under concurrent set-values", () => {
    it('never interleave: the final values equal exactly one of the submitted sets', async () => {
      const keys = await Promise.all(['alpha', 'beta', 'gamma', 'delta', 'epsilon'].map((name) => createAttribute(`set-${name}`)));
      const valuesPath = `/admin/rest/v1/accounts/${p.accountKey}/users/${p.userKey}/attributes`;
      // Each submission names every key: a value tagged with its number, or null (removed).
      const submissions = Array.from({ length: 30 }, (_, i) => keys.map((key, k) => ({ key, value: (i + k) % 4 === 0 ? null : `s${i}-${k}` })));
      const statuses = await Promise.all(submissions.map(async (body) => (await api(p, token, 'PUT', valuesPath, body)).status));
      expect(statuses.every((status) => status === 204)).toBe(true);

      const final = ((await (await api(p, token, 'GET', valuesPath)).json()) as Array<{ key: string; value: string }>).filter((v) => keys.includes(v.key));
      /** The set values of a list, in a form that ignores order. */
      const canonical = (pairs: Array<{ key: string; value: string | null }>) =>
        JSON.stringify(pairs.filter((pair) => pair.value !== null).map((pair) => [pair.key, pair.value]).sort());
      const seen = canonical(final);
      const matching = submissions.filter((submission) => canonical(submission) === seen);
      expect(matching, JSON.stringify(seen)).toHaveLength(1);
    }, 60_000);
  });
});
