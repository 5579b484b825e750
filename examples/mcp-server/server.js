#!/usr/bin/env node
// The notes MCP server: `node server.js` (see README.md). Stops cleanly on SIGTERM / SIGINT.
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname } from 'node:path';
import { expressServerOptions } from '@gatehouse/http-express';
import Database from 'better-sqlite3';
import { createNotesApp } from './src/app.js';
import { readConfig } from './src/config.js';
import { createNotesGatehouse } from './src/gatehouse.js';
import { createNotesTable } from './src/notes.js';

const config = readConfig(process.env);
mkdirSync(dirname(config.database), { recursive: true });
const db = new Database(config.database);
db.pragma('journal_mode = WAL');
createNotesTable(db);
const { gatehouse, storage } = await createNotesGatehouse({ db, ...config });
const app = createNotesApp({ db, gatehouse, origin: config.origin });

const server = createServer(expressServerOptions(app), app).listen(config.port, config.host, () => {
  console.log(`notes-mcp-server listening on http://${config.host}:${config.port} (MCP server ${config.origin}/mcp, authorization server ${config.origin}/auth)`);
});

// Gatehouse's expired codes, sessions and login requests, long-revoked grants and never-used
// self-registered clients: deleted every 15 minutes.
const purge = setInterval(() => void gatehouse.purgeExpired().catch((error) => console.error('purge failed', error)), 15 * 60 * 1000);
purge.unref();

for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, () => {
    clearInterval(purge);
    server.close(async () => {
      await storage.close();
      db.close();
      process.exit(0);
    });
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), 5000).unref();
  });
}
