import { readFileSync } from 'node:fs';
import { createGatehouse, defineSettings, sha256 } from '@gatehouse/core';
import { createClientMetadataDocumentFetcher } from '@gatehouse/http-express';
import { openSqliteStorage } from '@gatehouse/storage-sqlite';

/** The scopes of the notes, with the words Gatehouse's consent page shows. */
export const NOTES_SCOPES = [
  { scope: 'notes.v1.read', description: 'Read your notes' },
  { scope: 'notes.v1.write', description: 'Add notes for you' },
];

/**
 * Where things are, under the server's public origin: Gatehouse (the authorization server), the
 * MCP server and the REST API, each of the last two a resource (RFC 8707) with its own audience.
 *
 * @param {string} origin
 */
export function notesUrls(origin) {
  return { issuer: `${origin}/auth`, mcp: `${origin}/mcp`, api: `${origin}/api` };
}

/**
 * Gatehouse's settings: its issuer, the notes scopes, the two resources; clients may register
 * themselves (open Dynamic Client Registration, RFC 7591) or name a Client ID Metadata Document,
 * and such a client may have the notes scopes for the MCP server only — unless it registered with
 * the initial access token `registrationToken`.
 *
 * @param {string} origin
 * @param {string} [registrationToken]
 */
export function notesSettings(origin, registrationToken) {
  const urls = notesUrls(origin);
  return defineSettings({
    issuer: urls.issuer,
    scopes: NOTES_SCOPES,
    resources: [
      { resource: urls.mcp, name: 'Notes (MCP)', scopes: ['notes.v1.read', 'notes.v1.write'], accessTokenTtlSeconds: 900 },
      { resource: urls.api, name: 'Notes API', scopes: ['notes.v1.read'] },
    ],
    registration: {
      policy: 'open',
      anonymousScopes: ['notes.v1.read', 'notes.v1.write'],
      anonymousResources: [urls.mcp],
      initialAccessTokenHashes: registrationToken === undefined ? [] : [sha256(registrationToken)],
    },
    clientMetadataDocuments: { enabled: true },
  });
}

/**
 * Gatehouse inside the notes server: its tables in the server's own database (prefixed `gh_`), its
 * own users (sign-in on its login page), and the guarded fetcher of metadata documents.
 *
 * @param {{ db: import('better-sqlite3').Database, origin: string, registrationToken?: string | undefined, documentCaFile?: string | undefined, documentAllowLoopback?: boolean }} input
 */
export async function createNotesGatehouse({ db, origin, registrationToken, documentCaFile, documentAllowLoopback = false }) {
  // userTables: this server signs in users of Gatehouse's own (its login page), whose tables a host's database gets only when asked.
  const storage = await openSqliteStorage({ database: db, tablePrefix: 'gh_', userTables: true });
  await storage.migrate();
  const gatehouse = createGatehouse({
    repositories: storage.repositories,
    settings: notesSettings(origin, registrationToken),
    clock: { now: () => new Date() },
    clientMetadataDocumentFetcher: createClientMetadataDocumentFetcher({
      ...(documentCaFile === undefined ? {} : { ca: readFileSync(documentCaFile, 'utf8') }),
      allowLoopback: documentAllowLoopback,
    }),
  });
  return { gatehouse, storage };
}
