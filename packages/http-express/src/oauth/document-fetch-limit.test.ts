import type { ClientMetadataDocumentFetcher } from '@gatehouse/core';
import { s256Challenge } from '@gatehouse/core/testing';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createTestApp } from '../test-support/index.js';

// Authorization requests naming client id URLs make Gatehouse fetch documents: the fetches are
// rate limited per address (docs/decisions/0166-client-metadata-document-fetches-rate-limited.md).

const REDIRECT = 'http://127.0.0.1:33418/callback';

/** Answers, for any URL, a document of a public client whose client_id is that URL; counts the fetches. */
function documentsForAnyUrl(): ClientMetadataDocumentFetcher & { fetched: string[] } {
  const fetched: string[] = [];
  return {
    fetched,
    fetchDocument: async (url) => {
      fetched.push(url);
      const body = JSON.stringify({ client_id: url, client_name: 'Agent', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
      return { kind: 'fetched', status: 200, headers: { 'content-type': 'application/json', 'cache-control': 'max-age=600' }, body: new TextEncoder().encode(body) };
    },
  };
}

function authorizePath(clientId: string): string {
  return `/oauth/authorize?${new URLSearchParams({ client_id: clientId, response_type: 'code', redirect_uri: REDIRECT, code_challenge: s256Challenge('v'.repeat(50)), code_challenge_method: 'S256' })}`;
}

describe('client metadata document fetches, per address', () => {
  it('past the limit an authorization request that would fetch gets 429 with Retry-After and fetches nothing; stored documents still work', async () => {
    const fetcher = documentsForAnyUrl();
    const t = await createTestApp({
      settings: { clientMetadataDocuments: { enabled: true } },
      clientMetadataDocumentFetcher: fetcher,
      rateLimit: { maxFailures: 1000, windowSeconds: 600, maxClientMetadataDocumentsPerIp: 2 },
    });
    const first = 'https://one.example/client.json';
    for (const clientId of [first, 'https://two.example/client.json']) {
      const answer = await request(t.app).get(authorizePath(clientId));
      expect(answer.status, clientId).toBe(302);
    }
    expect(fetcher.fetched).toHaveLength(2);

    const refused = await request(t.app).get(authorizePath('https://three.example/client.json'));
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.text).toContain('Too many new apps were started from your network.');
    expect(fetcher.fetched).toHaveLength(2);
    expect(await t.repositories.clients.findById('https://three.example/client.json')).toBeUndefined();
    expect(t.logger.lines.some((line) => (line.obj as Record<string, unknown>).limit === 'client metadata documents')).toBe(true);

    // A document already stored needs no fetch: it is not limited.
    expect((await request(t.app).get(authorizePath(first))).status).toBe(302);
  });
});
