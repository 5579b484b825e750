/** Wrong use of the command line: exit code 2 and a one-line message (the one of @gatehouse/cli, whose commands this CLI runs too). */
export { UsageError } from '@gatehouse/cli';

export const GENERAL_HELP = `gatehouse: the Gatehouse OAuth 2.0 authorization server and OpenID Provider

Usage: gatehouse <command> [options]

Commands:
  serve                                   migrate the database, then serve HTTP on $HOST:$PORT
      [--workers N|auto]                  N processes share the port (default $GATEHOUSE_WORKERS, else 1)
  migrate                                 create the database and apply pending migrations
  accounts create --name N                create an account
  users create --email E --password P     create a user (--password-stdin: read the password from standard input)
      [--given-name G] [--family-name F] [--account KEY [--role admin|member]] [--phone +15551234567]
  users set-password --email E --password P
                                          a new password (or --password-stdin); signs the user out everywhere
  clients create --name N --redirect-uri U [--redirect-uri U2 …] --scope "s1 s2" [--owner EMAIL] [--pkce-required]
      [--public] [--grant-type authorization_code|refresh_token|client_credentials …] [--resource-server-for URI …]
                                          --public: no secret (single-page or native app; PKCE always)
                                          --grant-type (repeatable; default authorization_code refresh_token);
                                          with only client_credentials, no --redirect-uri is needed
                                          --resource-server-for (repeatable): a configured resource this client
                                          serves: it may introspect that resource's tokens
      [--id-token-signed-response-alg RS256|ES256] [--post-logout-redirect-uri U …] [--default-max-age SECONDS]
      [--require-auth-time]               OpenID Connect: the ID tokens' algorithm (default RS256), where logout
                                          may send the browser back to, the default max_age, auth_time required
  clients list                            list every client (no secrets)
  clients show CLIENT_ID                  one client: name, owner, kind, redirect URIs, scopes, links
  clients update CLIENT_ID [--name N] [--redirect-uri U …] [--scope "s1 s2"] [--grant-type G …]
      [--pkce-required|--no-pkce-required]
                                          change a client (what is given; the rest stays)
  clients set-resource-server CLIENT_ID [--resource-server-for URI …]
                                          the resources the client serves (none given: none)
  clients set-openid CLIENT_ID [--id-token-signed-response-alg RS256|ES256] [--post-logout-redirect-uri U …]
      [--no-post-logout-redirect-uris] [--default-max-age SECONDS|none] [--require-auth-time|--no-require-auth-time]
                                          change a client's OpenID Connect metadata (the rest stays)
  clients set-links CLIENT_ID [--client-uri U] [--logo-uri U] [--policy-uri U] [--tos-uri U]
                                          the links the consent page shows ('' removes one; the rest stays)
  clients set-first-party CLIENT_ID [--off]
                                          mark the client as the operator's own app on the consent page
  clients rotate-secret CLIENT_ID         issue a new secret; the old one stops working (confidential clients)
  clients delete CLIENT_ID                delete a client with its grants and tokens
  keys list                               the published signing keys (kid, algorithm)
  keys rotate                             new signing key; the old one stays published until its tokens expire
  users list [--limit N] [--offset N]     users by e-mail, 100 at a time (--limit 1 to 1000)
  users show --email E                    a user's names, phones, accounts, live sessions and grants
  users disable --email E                 no sign-in from now on: sessions ended, grants revoked
  users enable --email E                  a disabled user may sign in again
  users delete --email E [--with-clients] --yes
                                          delete a user for good, with their records, sessions and grants
  sessions list --email E                 a user's live sign-in sessions
  sessions end --session ID | --email E   end one session, or every session of a user (their grants too)
  grants list --email E | --client ID     live grants of a user or of a client
  grants revoke --grant ID | --email E [--client ID] | --client ID
                                          revoke grants: their access and refresh tokens stop at once
  health [--url URL] [--timeout SECONDS]  ask the running server's /readyz: exit 0 when ready, 1 when not

Options:
  --json    print exactly one JSON object on stdout (logs go to stderr)
  --help    show help (also: gatehouse <command> --help)
  --version print the server's version (with --json: {"version": …})

Every command but health creates the database and applies pending migrations first. The database is
$GATEHOUSE_DATABASE_URL (postgres://…) when set, else the SQLite file $GATEHOUSE_DB
(default ./data/gatehouse.db). Configuration variables: see docs/configuration.md; a secret
variable can also be read from a file named by <NAME>_FILE (GATEHOUSE_KEY_SECRET_FILE, GATEHOUSE_DATABASE_URL_FILE).

Exit codes: 0 success, 1 failure (bad configuration, refused by the server's rules, no such user, client,
session or grant), 2 wrong usage.`;
