import { clientOrigin } from '../clients/client-origin.js';
import type { Client, Session } from '../domain/model.js';
import type { Deps } from '../deps.js';
import { OAuthError } from '../errors.js';
import { sessionIdForClients, verifyIdTokenHint } from '../tokens/id-token.js';

/** Query or form parameters as the HTTP adapter parsed them; a repeated parameter arrives as an array. */
type Parameters = Record<string, string | string[] | undefined>;

/** The parameters of RP-Initiated Logout 1.0 §2 that Gatehouse reads; each may be sent once. */
export const END_SESSION_PARAMETERS = ['id_token_hint', 'logout_hint', 'client_id', 'post_logout_redirect_uri', 'state', 'ui_locales'] as const;

/** The longest `state` echoed back (it is the relying party's, opaque). */
const MAX_STATE_LENGTH = 2048;
/** An ID token is a few hundred bytes to a few KiB; this bounds the work of checking one. */
const MAX_ID_TOKEN_HINT_LENGTH = 8192;

/** A checked RP-initiated logout request (RP-Initiated Logout 1.0 §2; docs/decisions/0135-rp-initiated-logout.md). */
export interface EndSessionRequest {
  /** The relying party, named by `client_id` or by the audience of `id_token_hint`; undefined when neither names one. */
  client: Pick<Client, 'clientId' | 'name'> | undefined;
  /**
   * Where the browser goes after the logout: one of the client's registered post-logout redirect
   * URIs, exactly, when something vouches for the request (docs/decisions/0177): a hint of this
   * very sign-in; for a client the operator or a portal user registered, also a valid hint of
   * another sign-in or a signed-in user (who confirms first). Else undefined: the logout ends on the
   * signed-out page.
   */
  postLogoutRedirectUri: string | undefined;
  /** Echoed to `postLogoutRedirectUri` (§3). */
  state: string | undefined;
  /**
   * True when a valid `id_token_hint` names the signed-in session (its `sid` and `sub`): the
   * relying party knows this very sign-in, so the logout needs no confirmation. False when the
   * hint is missing, not valid, or of another session or user (stale): the user confirms.
   */
  confirmed: boolean;
}

export type EndSessionCheck = { kind: 'valid'; request: EndSessionRequest } | { kind: 'show-error'; error: OAuthError };

/**
 * Whether the parameters are an RP-initiated logout request (any of its parameters present), as
 * opposed to Gatehouse's own sign-out page.
 *
 * @example
 * isEndSessionRequest({ post_logout_redirect_uri: 'https://app.example/bye' }); // true
 */
export function isEndSessionRequest(params: Parameters): boolean {
  return END_SESSION_PARAMETERS.some((name) => params[name] !== undefined);
}

/**
 * Checks an RP-initiated logout request (RP-Initiated Logout 1.0 §2, §3; docs/decisions/0135):
 * - `id_token_hint`: an ID token this server issued (an expired one too); one that is not is
 *   treated as absent (the user confirms), never trusted;
 * - `client_id`: a known client, the hint's audience when both are sent;
 * - `post_logout_redirect_uri`: exactly one of that client's registered ones; without a client to
 *   name, or not registered, the request is refused (an error page: never an open redirect);
 *   followed only when the request is vouched for (see `EndSessionRequest.postLogoutRedirectUri`);
 * - `state`: echoed with the redirect.
 * `session` is the browser's live sign-in session, if any: a hint of that session and user
 * makes the logout need no confirmation (`confirmed`).
 *
 * @example
 * const check = await checkEndSessionRequest(deps, req.query, signedIn?.session);
 * if (check.kind === 'valid' && check.request.confirmed) await logout(deps, sessionToken);
 */
export async function checkEndSessionRequest(
  deps: Pick<Deps, 'repos' | 'clock' | 'settings' | 'keys'>,
  params: Parameters,
  session: Pick<Session, 'sessionId' | 'userKey'> | undefined,
): Promise<EndSessionCheck> {
  const repeated = END_SESSION_PARAMETERS.find((name) => Array.isArray(params[name]));
  if (repeated) return refused(`The parameter ${repeated} is repeated.`);
  const value = (name: (typeof END_SESSION_PARAMETERS)[number]): string | undefined => {
    const raw = params[name] as string | undefined;
    return raw === '' ? undefined : raw;
  };
  const state = value('state');
  if (state !== undefined && state.length > MAX_STATE_LENGTH) return refused(`state must be at most ${MAX_STATE_LENGTH} characters.`);

  const rawHint = value('id_token_hint');
  const hint = rawHint === undefined || rawHint.length > MAX_ID_TOKEN_HINT_LENGTH ? undefined : await verifyIdTokenHint(deps, rawHint);
  const clientId = value('client_id');
  let client: Client | undefined;
  if (clientId !== undefined) {
    client = await deps.repos.clients.findById(clientId);
    if (!client) return refused('The client is not known.', `unknown client_id ${clientId.slice(0, 64)}`);
    // §2: "If both client_id and id_token_hint are present, the OP MUST verify that the Client Identifier matches the one used when issuing the ID Token."
    if (hint !== undefined && !hint.audiences.includes(clientId)) return refused('client_id is not the client the id_token_hint was issued to.');
  } else if (hint !== undefined && hint.audiences.length === 1) {
    client = await deps.repos.clients.findById(hint.audiences[0] as string);
  }

  const postLogoutRedirectUri = value('post_logout_redirect_uri');
  if (postLogoutRedirectUri !== undefined) {
    if (!client) return refused('post_logout_redirect_uri needs the client that registered it: send client_id or a valid id_token_hint.');
    // §3: exact comparison with a registered URI (RFC 9700 §4.1.3's rule for redirect URIs).
    if (!(client.postLogoutRedirectUris ?? []).includes(postLogoutRedirectUri)) {
      return refused('The post_logout_redirect_uri is not registered for this client.', `client ${client.clientId}`);
    }
  }
  const confirmed = hint !== undefined && session !== undefined && hint.sub === session.userKey && hint.sid === sessionIdForClients(session.sessionId);
  // §3 and RFC 9700 §4.11: the registered URI is followed only when something vouches for this
  // request, else the logout ends on Gatehouse's signed-out page (no open redirect;
  // docs/decisions/0177-post-logout-redirects-vouched-for.md). A hint of this very sign-in always
  // does. For a client the operator or a portal user registered, so does a valid hint of another
  // sign-in, or a signed-in user who confirms on the page that names the app. A client that
  // registered itself (RFC 7591, a metadata document) vouches for nothing: anyone may register
  // https://evil.example, and hold an ID token of their own sign-in to it.
  const vouched = confirmed || (client !== undefined && clientOrigin(client).registration === 'static' && (hint !== undefined || session !== undefined));
  const redirectTrusted = client !== undefined && vouched;
  const redirectUri = redirectTrusted ? postLogoutRedirectUri : undefined;
  return {
    kind: 'valid',
    request: {
      client: client && { clientId: client.clientId, name: client.name },
      postLogoutRedirectUri: redirectUri,
      state: redirectUri === undefined ? undefined : state,
      confirmed,
    },
  };
}

/**
 * RP-Initiated Logout 1.0 §3: the redirect to the post-logout redirect URI, with `state` when
 * the request sent one; undefined without a post-logout redirect URI.
 *
 * @example
 * postLogoutRedirect({ postLogoutRedirectUri: 'https://app.example/bye', state: 'x' }); // 'https://app.example/bye?state=x'
 */
export function postLogoutRedirect(request: Pick<EndSessionRequest, 'postLogoutRedirectUri' | 'state'>): string | undefined {
  if (request.postLogoutRedirectUri === undefined) return undefined;
  const url = new URL(request.postLogoutRedirectUri);
  if (request.state !== undefined) url.searchParams.append('state', request.state);
  return url.toString();
}

function refused(description: string, detail?: string): EndSessionCheck {
  return { kind: 'show-error', error: new OAuthError('invalid_request', description, detail === undefined ? {} : { detail }) };
}
