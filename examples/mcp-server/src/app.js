import {
  accessTokenOf,
  authorizationServerMetadataRouter,
  bearerAuth,
  bearerErrorHandler,
  createGatehouseRouter,
  issuerPath,
  protectedResourceMetadataRouter,
  requireScope,
} from '@gatehouse/http-express';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import express from 'express';
import { notesUrls } from './gatehouse.js';
import { createNotesMcpServer } from './mcp.js';
import { notesOf } from './notes.js';

/**
 * The notes server: Gatehouse at `/auth` (sign-in, consent, tokens, registration), the MCP server
 * at `/mcp` and a small REST API at `/api`, each accepting only tokens issued for it.
 *
 * @param {{ db: import('better-sqlite3').Database, gatehouse: import('@gatehouse/core').Gatehouse, origin: string }} input
 * @returns {import('express').Express}
 */
export function createNotesApp({ db, gatehouse, origin }) {
  const urls = notesUrls(origin);
  const app = express();
  app.disable('x-powered-by');

  // The authorization server: RFC 8414 metadata at the root, everything else under /auth.
  app.use(authorizationServerMetadataRouter(gatehouse));
  app.use(issuerPath(urls.issuer), createGatehouseRouter({ gatehouse }));
  // RFC 9728: /.well-known/oauth-protected-resource/mcp and …/api say where to get tokens.
  app.use(protectedResourceMetadataRouter(gatehouse));

  // The MCP server (Streamable HTTP, stateless): a token for this resource, or a 401 whose
  // WWW-Authenticate names the metadata above, which is where an MCP client starts.
  app.post('/mcp', bearerAuth(gatehouse, { resource: urls.mcp, realm: 'notes' }), express.json({ limit: '1mb' }), async (req, res) => {
    const token = accessTokenOf(res);
    // The MCP SDK hands `req.auth` to the tools as `authInfo`.
    Object.assign(req, { auth: { token: '', clientId: token.clientId, scopes: token.scopes, extra: { userKey: token.userKey } } });
    const server = createNotesMcpServer(db);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  app.all('/mcp', (_req, res) => void res.status(405).set('Allow', 'POST').json({ error: 'Use POST: this MCP server keeps no sessions.' }));

  // A REST API beside it, a resource of its own: a token for the MCP server does not work here, and the other way round.
  app.get('/api/notes', bearerAuth(gatehouse, { resource: urls.api, realm: 'notes' }), requireScope('notes.v1.read'), (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.json({ notes: notesOf(db, String(accessTokenOf(res).userKey)) });
  });

  app.use(bearerErrorHandler());
  app.use((_req, res) => void res.status(404).type('text/plain').send('Not found'));
  return app;
}
