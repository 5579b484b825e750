import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A certificate authority made for one test run, and a server certificate it signed. */
export interface TestCertificates {
  /** The CA's certificate (PEM): what a client given it trusts. */
  ca: string;
  key: string;
  cert: string;
}

/**
 * Makes a test CA and a server certificate for 127.0.0.1, ::1, localhost and `agent.test` with
 * the `openssl` command (P-256 keys, valid one day). Nothing is written outside a temporary
 * directory, which is removed.
 *
 * @example
 * const tls = makeTestCertificates();
 * https.createServer({ key: tls.key, cert: tls.cert }, handler);
 */
export function makeTestCertificates(): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-tls-'));
  const file = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  try {
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
    openssl('req', '-x509', ...ec, '-keyout', file('ca.key'), '-out', file('ca.crt'), '-days', '1', '-subj', '/CN=Gatehouse test CA',
      '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
    openssl('req', ...ec, '-keyout', file('server.key'), '-out', file('server.csr'), '-subj', '/CN=agent.test');
    writeFileSync(file('server.ext'), 'subjectAltName=IP:127.0.0.1,IP:::1,DNS:localhost,DNS:agent.test\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n');
    openssl('x509', '-req', '-in', file('server.csr'), '-CA', file('ca.crt'), '-CAkey', file('ca.key'), '-CAcreateserial', '-out', file('server.crt'), '-days', '1', '-extfile', file('server.ext'));
    return { ca: readFileSync(file('ca.crt'), 'utf8'), key: readFileSync(file('server.key'), 'utf8'), cert: readFileSync(file('server.crt'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** An HTTPS server on 127.0.0.1 (an ephemeral port) with the requests it received. */
export interface TestHttpsServer {
  /** `https://127.0.0.1:<port>` */
  origin: string;
  port: number;
  /** The paths requested, in order. */
  requested: string[];
  /** Sets how the next requests are answered. */
  handle(handler: (req: IncomingMessage, res: ServerResponse) => void): void;
  close(): Promise<void>;
}

/**
 * Starts an HTTPS server on 127.0.0.1 with the test certificate; by default it answers 404.
 *
 * @example
 * const server = await startTestHttpsServer(tls);
 * server.handle((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
 */
export async function startTestHttpsServer(tls: TestCertificates): Promise<TestHttpsServer> {
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => void res.writeHead(404).end();
  const requested: string[] = [];
  const server: Server = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    requested.push(req.url ?? '');
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `https://127.0.0.1:${port}`,
    port,
    requested,
    handle: (next) => {
      handler = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
