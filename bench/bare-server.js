// The ceiling of our stack: Express 5 with one route answering a small JSON body, nothing else.
// Started by bench/run.js in its own process: node bench/bare-server.js <port>
// With --express-server-options, the same app on a server that creates its requests and responses
// with Express's prototypes, as `gatehouse serve` does (decision 0070): the "bare-prototypes" scenario.
import { createServer } from 'node:http';
import express from 'express';

const port = Number(process.argv[2] ?? 3999);
const withPrototypes = process.argv.includes('--express-server-options');
const app = express();
app.get('/bare', (_req, res) => {
  res.json({ ok: true, service: 'bare' });
});

const options = withPrototypes ? (await import('@gatehouse/http-express')).expressServerOptions(app) : {};
const server = createServer(options, app).listen(port, '127.0.0.1', () => {
  process.stdout.write(`bare Express${withPrototypes ? ' (Express\'s prototypes)' : ''} listening on 127.0.0.1:${port}\n`);
});

for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
}
