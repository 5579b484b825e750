/**
 * What fetching a Client ID Metadata Document gave: the answer as it came (the core judges its
 * status, headers and body), or why there was none. The fetcher follows no redirect and stops
 * at the size and time limits it was given (docs/decisions/0118-guarded-document-fetcher.md).
 */
export type FetchedClientMetadataDocument =
  | {
      kind: 'fetched';
      status: number;
      /** Header names in lower case; a repeated header's values joined with `, `. */
      headers: Readonly<Record<string, string>>;
      body: Uint8Array;
    }
  | {
      kind: 'failed';
      /**
       * `refused-address`: the host resolves to an address the fetcher may not reach (private,
       * loopback, link-local…); `unreachable`: no answer (DNS, connection, TLS); `timeout`: the
       * time limit passed; `too-large`: the body passed the size limit.
       */
      reason: 'refused-address' | 'unreachable' | 'timeout' | 'too-large';
      /** For the log only: what exactly went wrong. */
      detail: string;
    };

/**
 * Fetches the JSON document a Client ID Metadata Document client id names (an `https` URL).
 * `@gatehouse/http-express` provides one guarded against server-side request forgery
 * (`createClientMetadataDocumentFetcher`); tests use a fake.
 *
 * @example
 * const fetcher: ClientMetadataDocumentFetcher = {
 *   fetchDocument: async () => ({ kind: 'fetched', status: 200, headers: { 'content-type': 'application/json' }, body: new TextEncoder().encode(json) }),
 * };
 */
export interface ClientMetadataDocumentFetcher {
  fetchDocument(url: string): Promise<FetchedClientMetadataDocument>;
}
