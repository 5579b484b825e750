/**
 * What `gatehouse <command> --help` prints after the usage line: each option and an example or
 * two. The client and key commands describe themselves where they are defined.
 */
export const COMMAND_HELP: Readonly<Record<string, string>> = {
  serve: `Migrates the database, makes sure a signing key exists, listens on $HOST:$PORT (and the
metrics on $GATEHOUSE_METRICS_HOST:$GATEHOUSE_METRICS_PORT when set), then seeds the demo data
into an empty database (GATEHOUSE_DEMO). Stops gracefully on SIGTERM or SIGINT.
Configuration: environment variables only (README.md "Configuration").

Examples:
  PORT=8080 gatehouse serve
  GATEHOUSE_ISSUER=https://auth.example.com GATEHOUSE_DB=/var/lib/gatehouse/gatehouse.db gatehouse serve`,
  migrate: `Creates the database and applies pending migrations (every command does this first).

Options:
  --json    print {"migrated": true, "database": …}

Examples:
  gatehouse migrate
  GATEHOUSE_DATABASE_URL=postgres://gatehouse@db/gatehouse gatehouse migrate --json`,
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
};
