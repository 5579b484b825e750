import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { addNote, notesOf } from './notes.js';

/**
 * The MCP server's tools, over the notes of the user the access token belongs to. The HTTP layer
 * (`src/app.js`) has already checked the token (signature, audience, revocation) and passes who it
 * is as `authInfo`; each tool checks its own scope.
 *
 * @param {import('better-sqlite3').Database} db
 */
export function createNotesMcpServer(db) {
  const server = new McpServer({ name: 'notes', version: '1.0.0' });

  server.registerTool(
    'list_notes',
    { title: 'List notes', description: 'Lists the notes of the signed-in user, oldest first.' },
    async (extra) => {
      const userKey = userOf(extra.authInfo, 'notes.v1.read');
      return { content: [{ type: 'text', text: JSON.stringify(notesOf(db, userKey)) }] };
    },
  );

  server.registerTool(
    'add_note',
    { title: 'Add a note', description: 'Adds a note for the signed-in user.', inputSchema: { text: z.string().min(1).max(1000) } },
    async ({ text }, extra) => {
      const userKey = userOf(extra.authInfo, 'notes.v1.write');
      return { content: [{ type: 'text', text: JSON.stringify(addNote(db, userKey, text)) }] };
    },
  );

  return server;
}

/**
 * The user of the request's token, if it carries `scope`; a tool error otherwise.
 *
 * @param {import('@modelcontextprotocol/sdk/server/auth/types.js').AuthInfo | undefined} authInfo
 * @param {string} scope
 * @returns {string}
 */
function userOf(authInfo, scope) {
  if (!authInfo?.scopes.includes(scope)) throw new Error(`This tool needs the scope ${scope}.`);
  return /** @type {string} */ (authInfo.extra?.userKey);
}
