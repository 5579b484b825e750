import {
  CLIENT_METADATA_DOCUMENT_MAX_BYTES,
  CLIENT_METADATA_DOCUMENT_TIMEOUT_MS,
  type ClientMetadataDocumentFetcher,
  type FetchedClientMetadataDocument,
} from '@gatehouse/core';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { isIP, type LookupFunction } from 'node:net';
import { addressRefusal, type AddressAllowance } from './address-guard.js';

/** A DNS answer: every address of a host name. */
export type HostResolver = (hostname: string) => Promise<ReadonlyArray<{ address: string; family: number }>>;

export interface ClientMetadataDocumentFetcherOptions extends AddressAllowance {
  /**
   * The certificate authorities to trust, PEM (Node's own list when unset). Tests pass their
   * test CA here; never turn certificate checks off.
   */
  ca?: string | Buffer | ReadonlyArray<string | Buffer>;
  /** How host names are resolved (default: the system's, every address: `dns.lookup` with `all: true`). */
  resolve?: HostResolver;
  /** The whole fetch, from the DNS look-up to the last byte (default 5,000 ms). */
  timeoutMs?: number;
  /** The largest body read (default 5 KiB); a larger one is abandoned as soon as it shows. */
  maxBytes?: number;
  /** The `User-Agent` sent (default `Gatehouse`). */
  userAgent?: string;
}

const systemResolver: HostResolver = (hostname) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses: LookupAddress[]) => (error ? reject(error) : resolve(addresses)));
  });

/**
 * Fetches Client ID Metadata Documents for `createGatehouse({ clientMetadataDocumentFetcher })`,
 * guarded against server-side request forgery (docs/decisions/0118-guarded-document-fetcher.md):
 * - `https` only, the certificate checked against `ca` or Node's trusted list;
 * - the host name is resolved here, and every address it resolves to must be public (loopback and
 *   private networks only when allowed; link-local, multicast, unspecified and other special
 *   addresses never); the connection then goes to the address that was checked, so a DNS answer
 *   that changes between the check and the connection cannot lead elsewhere;
 * - no redirect is followed (a 3xx is handed back as it is), no cookie or credential is sent;
 * - 5 s for everything, a slow body included, and at most 5 KiB, abandoned as soon as it is more.
 *
 * @example
 * const gatehouse = createGatehouse({
 *   repositories, clock, settings: defineSettings({ issuer, clientMetadataDocuments: { enabled: true } }),
 *   clientMetadataDocumentFetcher: createClientMetadataDocumentFetcher(),
 * });
 */
export function createClientMetadataDocumentFetcher(options: ClientMetadataDocumentFetcherOptions = {}): ClientMetadataDocumentFetcher {
  const resolve = options.resolve ?? systemResolver;
  const timeoutMs = options.timeoutMs ?? CLIENT_METADATA_DOCUMENT_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? CLIENT_METADATA_DOCUMENT_MAX_BYTES;
  const allowance: AddressAllowance = { allowLoopback: options.allowLoopback ?? false, allowPrivateNetworks: options.allowPrivateNetworks ?? false };

  return {
    fetchDocument(url) {
      return new Promise<FetchedClientMetadataDocument>((settle) => {
        let done = false;
        const finish = (result: FetchedClientMetadataDocument): void => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          settle(result);
        };
        const fail = (reason: Extract<FetchedClientMetadataDocument, { kind: 'failed' }>['reason'], detail: string) => finish({ kind: 'failed', reason, detail });
        const timer = setTimeout(() => {
          fail('timeout', `no complete answer within ${timeoutMs} ms`);
          abort?.();
        }, timeoutMs);
        let abort: (() => void) | undefined;

        if (!URL.canParse(url) || new URL(url).protocol !== 'https:') return fail('unreachable', 'not an https URL');
        const target = new URL(url);
        const hostname = target.hostname.replace(/^\[|\]$/g, '');
        const addresses = isIP(hostname) ? Promise.resolve([{ address: hostname, family: isIP(hostname) }]) : resolve(hostname);
        addresses.then(
          (answer) => {
            if (done) return;
            if (answer.length === 0) return fail('unreachable', `${hostname} has no address`);
            // Every address must pass: a name that resolves to a public and a private address is refused.
            for (const { address } of answer) {
              const refusal = addressRefusal(address, allowance);
              if (refusal !== undefined) return fail('refused-address', `${hostname} resolves to ${address}: ${refusal}`);
            }
            const checked = answer[0] as { address: string; family: number };
            abort = get(target, checked, (response) => finish(response), (reason, detail) => fail(reason, detail));
          },
          (error: NodeJS.ErrnoException) => fail('unreachable', `DNS: ${error.code ?? error.message}`),
        );

        function get(
          target: URL,
          checked: { address: string; family: number },
          succeed: (result: FetchedClientMetadataDocument) => void,
          refuse: (reason: 'unreachable' | 'too-large', detail: string) => void,
        ): () => void {
          // The connection goes to the checked address, whatever a second look-up would answer.
          const pinned: LookupFunction = (_hostname, lookupOptions, callback) => {
            if (lookupOptions.all) (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, [{ address: checked.address, family: checked.family }]);
            else callback(null, checked.address, checked.family);
          };
          const outgoing = request(
            {
              protocol: 'https:',
              hostname: target.hostname.replace(/^\[|\]$/g, ''),
              port: target.port === '' ? 443 : Number(target.port),
              path: `${target.pathname}${target.search}`,
              method: 'GET',
              headers: { accept: 'application/json', 'user-agent': options.userAgent ?? 'Gatehouse' },
              lookup: pinned,
              agent: false,
              ...(options.ca === undefined ? {} : { ca: options.ca as string | Buffer | Array<string | Buffer> }),
            },
            (response) => {
              const headers = flatHeaders(response.headers);
              const status = response.statusCode ?? 0;
              // A redirect or an error is answered as it came, without reading its body.
              if (status !== 200) {
                response.destroy();
                succeed({ kind: 'fetched', status, headers, body: new Uint8Array() });
                return;
              }
              const declared = Number(headers['content-length'] ?? Number.NaN);
              if (declared > maxBytes) {
                response.destroy();
                refuse('too-large', `Content-Length ${declared}`);
                return;
              }
              const chunks: Buffer[] = [];
              let size = 0;
              response.on('data', (chunk: Buffer) => {
                size += chunk.length;
                if (size > maxBytes) {
                  response.destroy();
                  refuse('too-large', `more than ${maxBytes} bytes`);
                  return;
                }
                chunks.push(chunk);
              });
              response.on('end', () => succeed({ kind: 'fetched', status, headers, body: new Uint8Array(Buffer.concat(chunks)) }));
              response.on('error', (error: NodeJS.ErrnoException) => refuse('unreachable', `body: ${error.code ?? error.message}`));
            },
          );
          outgoing.on('error', (error: NodeJS.ErrnoException) => refuse('unreachable', `${error.code ?? error.message}`));
          outgoing.end();
          return () => outgoing.destroy();
        }
      });
    },
  };
}

/** Header names in lower case (as Node gives them), a repeated header's values joined. */
function flatHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}
