import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTestGatehouse, s256Challenge } from '@gatehouse/core/testing';
import Database from 'better-sqlite3';
import { notesSettings, notesUrls } from '../src/gatehouse.js';
import { addNote, createNotesTable, notesOf } from '../src/notes.js';

// The server's own rules, with Gatehouse's test kit (@gatehouse/core/testing): in memory, no HTTP.

const ORIGIN = 'https://notes.example';

describe('the notes', () => {
  it('belong to one user each', () => {
    const db = new Database(':memory:');
    createNotesTable(db);
    addNote(db, 'ada', 'Buy punch cards');
    addNote(db, 'bob', 'Oil the gears');
    assert.deepEqual(notesOf(db, 'ada').map((note) => note.text), ['Buy punch cards']);
  });
});

describe('clients that register themselves', () => {
  async function setup() {
    // The server's settings, without metadata documents (they need the fetcher; the end-to-end test covers them).
    const t = await createTestGatehouse({ settings: { ...notesSettings(ORIGIN, 'a-token-of-at-least-32-characters-for-tests'), clientMetadataDocuments: { enabled: false } } });
    const { client } = await t.gatehouse.registerDynamicClient({
      metadata: { client_name: 'Agent', redirect_uris: ['http://127.0.0.1:33418/callback'], token_endpoint_auth_method: 'none' },
      initialAccessToken: undefined,
    });
    /** @param {string | undefined} resource */
    const authorize = (resource) =>
      t.gatehouse.checkAuthorizationRequest({
        client_id: client.clientId,
        response_type: 'code',
        redirect_uri: 'http://127.0.0.1:33418/callback',
        code_challenge: s256Challenge('v'.repeat(50)),
        code_challenge_method: 'S256',
        ...(resource === undefined ? {} : { resource }),
      });
    return { t, client, authorize };
  }

  it('get the notes scopes, for the MCP server', async () => {
    const { client, authorize } = await setup();
    assert.deepEqual(client.scopes, ['notes.v1.read', 'notes.v1.write']);
    const check = await authorize(notesUrls(ORIGIN).mcp);
    assert.equal(check.kind, 'valid');
  });

  it('get no token for the REST API, nor one without a resource', async () => {
    const { authorize } = await setup();
    for (const resource of [notesUrls(ORIGIN).api, undefined]) {
      const check = await authorize(resource);
      // Shown on Gatehouse's error page, never redirected: nobody vouches for a self-registered client's redirect URI.
      assert.equal(check.kind === 'show-error' && check.error.code, 'invalid_target');
    }
  });
});
