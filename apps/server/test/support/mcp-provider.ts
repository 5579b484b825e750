import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

/**
 * The MCP SDK's storage of an OAuth client, kept in memory: the tests read its client information,
 * tokens and verifier, and take the authorization URL the SDK would open in a browser. A public
 * client (`token_endpoint_auth_method: none`) with the code flow and refresh tokens; a
 * `clientMetadataUrl` makes it the client of that metadata document (SEP-991).
 *
 * @example
 * const provider = new TestMcpClientProvider('http://127.0.0.1:33418/callback');
 * expect(await auth(provider, { serverUrl })).toBe('REDIRECT'); // provider.authorizationUrl is set
 */
export class TestMcpClientProvider implements OAuthClientProvider {
  information: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;

  constructor(
    readonly redirectUrl: string,
    readonly clientMetadataUrl?: string,
    private readonly clientName = 'Notes agent',
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return { client_name: this.clientName, redirect_uris: [this.redirectUrl], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.information = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}
