import type { Client, ClientRegistrationKind } from '../domain/model.js';
import { isLoopbackRedirectUri } from '../domain/redirect-uri.js';

/** Where a client comes from, as the consent page, the portal and `clients list` show it. */
export interface ClientOrigin {
  /** `static` (an operator, a portal user or the host registered it), `dynamic` (RFC 7591) or `metadata-document`. */
  registration: ClientRegistrationKind;
  /** A metadata-document client: the host its document, and so its name, comes from. */
  documentHost: string | undefined;
  /**
   * A self-registered client whose redirect URIs all lead to this computer (loopback `http`): any
   * program on the user's computer could be behind it, whatever its name says.
   */
  loopbackRedirectsOnly: boolean;
}

/**
 * How a client came to be, and what a user should know before trusting a client that registered
 * itself (docs/decisions/0117-client-id-metadata-documents.md).
 *
 * @example
 * clientOrigin(client); // { registration: 'metadata-document', documentHost: 'agent.example', loopbackRedirectsOnly: true }
 */
export function clientOrigin(client: Client): ClientOrigin {
  const registration = client.registration?.kind ?? 'static';
  return {
    registration,
    documentHost: registration === 'metadata-document' ? new URL(client.clientId).host : undefined,
    loopbackRedirectsOnly: registration !== 'static' && client.redirectUris.length > 0 && client.redirectUris.every(isLoopbackRedirectUri),
  };
}
