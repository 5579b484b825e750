import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A round-robin HTTP load balancer on loopback, as an operator would put in front of several instances. */
export interface LoadBalancer {
  /** The public origin: the issuer every instance is configured with. */
  origin: string;
  /** Which backend origin served each request, in order, with the request's method and path. */
  served: Array<{ backend: string; method: string; path: string }>;
  close(): Promise<void>;
}

/**
 * Forwards each request to the next backend in turn, adding `X-Forwarded-For`, `-Proto` and
 * `-Host` as a reverse proxy does (the instances trust them with GATEHOUSE_TRUST_PROXY=loopback).
 * No stickiness: consecutive requests of one browser land on different instances.
 */
export function startLoadBalancer(backends: readonly string[]): Promise<LoadBalancer> {
  let next = 0;
  const served: LoadBalancer['served'] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const backend = backends[next % backends.length] as string;
    next += 1;
    served.push({ backend, method: req.method ?? 'GET', path: (req.url ?? '/').split('?')[0] as string });
    const host = req.headers.host ?? '';
    const upstream = request(
      new URL(req.url ?? '/', backend),
      {
        method: req.method,
        headers: {
          ...req.headers,
          'x-forwarded-for': req.socket.remoteAddress ?? '127.0.0.1',
          'x-forwarded-proto': 'http',
          'x-forwarded-host': host,
        },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    req.pipe(upstream);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        origin: `http://127.0.0.1:${port}`,
        served,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
