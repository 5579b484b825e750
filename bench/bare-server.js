// The ceiling of our stack: Express 5 with one route answering a small JSON body, nothing else.
// Started by bench/run.js in its own process: node bench/bare-server.js <port>
import express from 'express';

const port = Number(process.argv[2] ?? 3999);
const app = express();
app.get('/bare', (_req, res) => {
  res.json({ ok: true, service: 'bare' });
});

const server = app.listen(port, '127.0.0.1', () => {
  process.stdout.write(`bare Express listening on 127.0.0.1:${port}\n`);
});

for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
}
