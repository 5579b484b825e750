/**
 * What `gatehouse <command> --help` prints after the usage line: each option and an example or
 * two. The commands of @gatehouse/cli (clients create|list|show|update|delete, keys) carry their own.
 */
export const COMMAND_HELP: Readonly<Record<string, string>> = {
  serve: `Migrates the database, makes sure a signing key exists, listens on $HOST:$PORT (and the
metrics on $GATEHOUSE_METRICS_HOST:$GATEHOUSE_METRICS_PORT when set), then seeds the demo data
into an empty database (GATEHOUSE_DEMO). Stops gracefully on SIGTERM or SIGINT.
Configuration: environment variables (docs/configuration.md).

Options:
  --workers N|auto  N processes share the port (auto: one per core; default GATEHOUSE_WORKERS, else 1)

Examples:
  PORT=8080 gatehouse serve
  gatehouse serve --workers auto
  GATEHOUSE_ISSUER=https://auth.example.com GATEHOUSE_DB=/var/lib/gatehouse/gatehouse.db gatehouse serve`,
  migrate: `Creates the database and applies pending migrations (every command does this first).

Options:
  --json    print {"migrated": true, "database": …}

Examples:
  gatehouse migrate
  GATEHOUSE_DATABASE_URL=postgres://gatehouse@db/gatehouse gatehouse migrate --json`,
  'clients set-resource-server': `Sets the resources a client serves as a resource server: it may then introspect the access
tokens issued for them (RFC 7662 §2.1). Given none, it serves none.

Options:
  --resource-server-for URI  a configured resource (GATEHOUSE_RESOURCES) the client serves (repeatable)
  --json                     print {"clientId", "resourceServerFor"}

Examples:
  gatehouse clients set-resource-server 3fT9kQ2mLx8VbN4pR7sWzA --resource-server-for https://mcp.example.com/mcp`,
  'clients set-openid': `Changes a client's OpenID Connect metadata; what is not given stays.

Options:
  --id-token-signed-response-alg RS256|ES256  its ID tokens' algorithm
  --post-logout-redirect-uri U   where RP-initiated logout may send the browser back (repeatable; replaces)
  --no-post-logout-redirect-uris none any more
  --default-max-age SECONDS|none the max_age of its requests that name none
  --require-auth-time            its ID tokens always carry auth_time (--no-require-auth-time: only when asked)
  --json                         print {"clientId", "idTokenSignedResponseAlg"?, "postLogoutRedirectUris"?, …}

Examples:
  gatehouse clients set-openid 3fT9kQ2mLx8VbN4pR7sWzA --id-token-signed-response-alg ES256
  gatehouse clients set-openid 3fT9kQ2mLx8VbN4pR7sWzA --post-logout-redirect-uri https://app.example/signed-out`,
  'clients set-links': `Sets the links the consent page shows for a client (RFC 7591 §2); a link given empty is removed.

Options:
  --client-uri U   its home page
  --logo-uri U     its logo (https)
  --policy-uri U   its privacy policy
  --tos-uri U      its terms of service
  --json           print {"clientId", "clientUri"?, "logoUri"?, "policyUri"?, "tosUri"?}

Examples:
  gatehouse clients set-links 3fT9kQ2mLx8VbN4pR7sWzA --client-uri https://orders.example --policy-uri https://orders.example/privacy`,
  'clients set-first-party': `Marks a client as the operator's own app on the consent page (docs/decisions/0155).

Options:
  --off     remove the mark
  --json    print {"clientId", "firstParty"}

Examples:
  gatehouse clients set-first-party 3fT9kQ2mLx8VbN4pR7sWzA
  gatehouse clients set-first-party 3fT9kQ2mLx8VbN4pR7sWzA --off`,
  'clients rotate-secret': `Issues a new secret for a confidential client, printed once; the old one stops working at once.

Options:
  --json    print {"clientId", "clientSecret"}

Examples:
  gatehouse clients rotate-secret 3fT9kQ2mLx8VbN4pR7sWzA`,
  'accounts create': `Creates an account (a tenant users belong to).

Options:
  --name N  the account's name (required)
  --json    print {"accountKey": …, "name": …}

Examples:
  gatehouse accounts create --name "Acme"`,
  'users create': `Creates a user who signs in with an e-mail address and a password.

Options:
  --email E             the e-mail address (the sign-in name; required)
  --password P          the password (shows in ps and the shell history: prefer --password-stdin)
  --password-stdin      read the password from standard input (one trailing newline is dropped)
  --given-name G        given name (OpenID Connect profile)
  --family-name F       family name
  --account KEY         make the user a member of this account
  --role admin|member   the role in --account (default member)
  --phone +15551234567  a phone number the user owns (E.164; repeatable)
  --json                print {"userKey": …, "email": …}

Examples:
  gatehouse users create --email ada@example.com --password-stdin < ada-password.txt
  gatehouse users create --email ada@example.com --password-stdin --account acc_123 --role admin --phone +15551234567`,
  'users set-password': `Sets a new password; the user is signed out everywhere (sessions ended, grants revoked).

Options:
  --email E         whose password (required)
  --password P      the new password (prefer --password-stdin)
  --password-stdin  read it from standard input
  --json            print {"userKey": …, "endedSessions": n, "revokedGrants": n}

Examples:
  gatehouse users set-password --email ada@example.com --password-stdin`,
  'users list': `Lists users by e-mail (without their passwords), a page at a time.

Options:
  --limit N   how many (1–1000, default 100)
  --offset N  how many to skip (default 0)
  --json      print {"users": [{"userKey", "email", "givenName", "familyName"}, …]}

Examples:
  gatehouse users list
  gatehouse users list --limit 100 --offset 100 --json`,
  'users show': `Shows one user: names, phone numbers, accounts and roles, live sessions and grants.

Options:
  --email E  the user (required)
  --json     print the same as one JSON object

Examples:
  gatehouse users show --email ada@example.com`,
  'users disable': `Disables a user: they cannot sign in any more (the sign-in page answers as for a wrong
password; the audit line says "user disabled"), every session of theirs ends and every grant is
revoked, so their access tokens are refused at once and their refresh tokens stop. Nothing is
deleted: gatehouse users enable undoes it (sessions and grants stay ended).

Options:
  --email E  the user (required)
  --json     print {"userKey", "disabled": true, "endedSessions", "revokedGrants"}

Examples:
  gatehouse users disable --email mallory@example.com`,
  'users enable': `Enables a disabled user again: they may sign in.

Options:
  --email E  the user (required)
  --json     print {"userKey", "disabled": false}

Examples:
  gatehouse users enable --email ada@example.com`,
  'users delete': `Deletes a user for good: their record, phone numbers, account memberships, attribute
values and messages, every sign-in session, grant (their access and refresh tokens stop at once),
remembered consent and login request. A user who registered clients in the portal is refused,
naming them (other users' grants hang on them): delete those clients first, or add --with-clients.
Without --yes it only says what it would delete. To stop a user without deleting anything, use
gatehouse users disable.

Options:
  --email E         the user (required)
  --with-clients    delete the clients the user registered too, with their grants and tokens
  --yes             really delete
  --json            print {"userKey", "deleted": true, "sessions", "grants", "consents", "phoneNumbers",
                    "memberships", "attributeValues", "messages", "clientIds", …}

Examples:
  gatehouse users delete --email mallory@example.com --yes
  gatehouse users delete --email ada@example.com --with-clients --yes --json`,
  'sessions list': `Lists a user's live sign-in sessions (neither ended nor expired), newest first.

Options:
  --email E  the user (required)
  --json     print {"userKey", "sessions": [{"sessionId", "authenticatedAt", "expiresAt", …}]}

Examples:
  gatehouse sessions list --email ada@example.com`,
  'sessions end': `Ends one session, or every session of a user; the grants made under them are revoked
(their tokens stop working), as a sign-out would.

Options:
  --session ID  the session (from sessions list)
  --email E     every session of this user
  --json        print {"endedSessions", "userKey", "revokedGrants"}

Examples:
  gatehouse sessions end --session 3q2+7w…
  gatehouse sessions end --email ada@example.com`,
  'grants list': `Lists the live grants of a user or of a client, newest first.

Options:
  --email E         the user's grants
  --client ID       the client's grants (its users' and its client-credentials grants)
  --json            print {"grants": [{"grantId", "clientId", "userKey", "scopes", …}]}

Examples:
  gatehouse grants list --email ada@example.com
  gatehouse grants list --client 2c1f… --json`,
  'grants revoke': `Revokes grants: their access tokens are refused at once and their refresh tokens stop.
The consent stays remembered (the user's "Authorized apps" page withdraws it).

Options:
  --grant ID             one grant (from grants list)
  --email E              every grant of this user…
  --client ID            …for this client only; or, without --email, every grant of the client
  --json                 print {"revokedGrantIds": […]}

Examples:
  gatehouse grants revoke --grant 7b0c…
  gatehouse grants revoke --email ada@example.com --client 2c1f…
  gatehouse grants revoke --client 2c1f…`,
  health: `Asks the running server whether it is ready (GET /readyz: the database answers and takes a
write, and the server is not stopping). Exit code 0 when ready, 1 when not or unreachable: for
container health checks and scripts. Opens no database.

Options:
  --url URL            what to ask (default http://$HOST:$PORT/readyz, 127.0.0.1 when HOST is unset or 0.0.0.0)
  --timeout SECONDS    how long to wait for the answer (default 5)
  --json               print {"url", "status"}

Examples:
  gatehouse health
  gatehouse health --url https://auth.example.com/readyz --timeout 2
  HEALTHCHECK CMD ["node", "apps/server/dist/cli.js", "health"]   (Dockerfile)`,
};
