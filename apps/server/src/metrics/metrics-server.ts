import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
/** What the listener serves: a prom-client registry, or the sum of the workers' (`serve --workers N`, docs/decisions/0171-serve-workers.md). */
export interface MetricsSource {
  metrics(): Promise<string>;
  contentType: string;
}

export interface RunningMetricsServer {
  port: number;
  stop(): Promise<void>;
}

/**
 * The metrics listener: GET /metrics in the Prometheus text format, on its own port and host
 * (127.0.0.1 by default), apart from the public one, so a scrape never passes through the
 * internet-facing proxy and `/metrics` is not an OAuth-server path (docs/decisions/0048-prometheus-metrics.md).
 */
export async function startMetricsServer(options: { registry: MetricsSource; host: string; port: number }): Promise<RunningMetricsServer> {
  const { registry } = options;
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not found: the metrics are at GET /metrics.\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store' }).end(req.method === 'HEAD' ? undefined : text),
      () => res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end('The metrics could not be collected.\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  let stopped: Promise<void> | undefined;
  return {
    port: (server.address() as AddressInfo).port,
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return stopped;
    },
  };
}
