/**
 * The server's settings, from the environment:
 * - `PORT` (default 3100) and `HOST` (default 127.0.0.1);
 * - `NOTES_ORIGIN`: the public origin (default `http://localhost:$PORT`); Gatehouse's issuer is
 *   `$NOTES_ORIGIN/auth`, the MCP server `$NOTES_ORIGIN/mcp`, the REST API `$NOTES_ORIGIN/api`;
 * - `NOTES_DATABASE`: the SQLite file (default `./data/notes.db`);
 * - `NOTES_REGISTRATION_TOKEN`: an initial access token (32+ characters) that lets a client you
 *   trust register without the limits of anonymous clients (any resource, not only the MCP server);
 * - `NOTES_DOCUMENT_CA_FILE` and `NOTES_DOCUMENT_ALLOW_LOOPBACK=true`: for trying Client ID Metadata
 *   Documents served on this machine with a certificate of your own CA (never in production).
 *
 * @param {NodeJS.ProcessEnv} env
 */
export function readConfig(env) {
  const port = Number(env.PORT ?? 3100);
  return {
    port,
    host: env.HOST ?? '127.0.0.1',
    origin: (env.NOTES_ORIGIN ?? `http://localhost:${port}`).replace(/\/+$/, ''),
    database: env.NOTES_DATABASE ?? './data/notes.db',
    registrationToken: env.NOTES_REGISTRATION_TOKEN,
    documentCaFile: env.NOTES_DOCUMENT_CA_FILE,
    documentAllowLoopback: env.NOTES_DOCUMENT_ALLOW_LOOPBACK === 'true',
  };
}
