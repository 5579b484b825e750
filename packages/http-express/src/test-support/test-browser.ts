import type { Client } from '@gatehouse/core';
import type express from 'express';
import request from 'supertest';
import { CSRF_COOKIE, SESSION_COOKIE } from '../security/cookies.js';
import { csrfSettings, sessionCsrfToken } from '../security/csrf.js';
import { authorizePath, formAction } from './oauth-client.js';

/** Where supertest sends requests when given an app: the cookie jar's domain. */
const ACCESS = { domain: '127.0.0.1', path: '/', secure: false, script: false };

/**
 * A browser-like HTTP client over supertest: a cookie jar (session and CSRF cookies) and helpers
 * for the forms. Each instance is one browser; make two for two users.
 *
 * @example
 * const browser = t.browser();
 * await browser.signIn('user1@example.com', 'password123');
 * const res = await browser.postForm('/oauth/logout', {}); // adds csrf_token from the jar
 */
export class TestBrowser {
  readonly agent: ReturnType<typeof request.agent>;
  readonly #csrfKey: Buffer;

  /** `csrfKey`: the app's `csrfKey` option, when it was given one. */
  constructor(
    readonly app: express.Express,
    csrfKey?: string,
  ) {
    this.agent = request.agent(app);
    this.#csrfKey = csrfSettings('', csrfKey).key;
  }

  get(path: string) {
    return this.agent.get(path);
  }

  /** A cookie the server set on this browser (undefined when absent). */
  cookie(name: string): string | undefined {
    return this.agent.jar.getCookie(name, ACCESS as never)?.value;
  }

  /**
   * The CSRF token this browser's forms carry: while signed in, the one bound to its session
   * (docs/decisions/0025); otherwise the login form's double-submit cookie (after any page was loaded).
   */
  csrfToken(): string | undefined {
    const session = this.sessionToken();
    return session === undefined ? this.cookie(CSRF_COOKIE) : sessionCsrfToken(this.#csrfKey, session);
  }

  sessionToken(): string | undefined {
    return this.cookie(SESSION_COOKIE);
  }

  /**
   * POSTs a form as a browser would, with `csrf_token` from the cookie jar unless
   * `csrf: false` (or a `csrf_token` field of your own) is given.
   */
  postForm(path: string, fields: Record<string, string>, options: { csrf?: boolean } = {}) {
    const body = new URLSearchParams(fields);
    if (options.csrf !== false && !body.has('csrf_token')) {
      const token = this.csrfToken();
      if (token !== undefined) body.set('csrf_token', token);
    }
    return this.agent.post(path).type('form').send(body.toString());
  }

  /** Loads the login page (for its CSRF cookie) and signs in; returns the POST's response. */
  async signIn(email: string, password = 'password123', returnTo?: string) {
    await this.get('/oauth/login').expect(200);
    // The login form carries the double-submit token of its cookie, signed in or not.
    const csrf = this.cookie(CSRF_COOKIE);
    return this.postForm('/oauth/login', { email, password, ...(csrf === undefined ? {} : { csrf_token: csrf }), ...(returnTo === undefined ? {} : { return_to: returnTo }) });
  }

  /**
   * Runs the browser part of the code flow for a signed-in browser: opens the authorize URL,
   * reads the consent page and presses `decision`. Returns the redirect to the client. When the
   * consent is remembered (docs/decisions/0095) the authorize URL answers with the redirect at
   * once, which is returned (`consentShown: false`) unless `expectConsentPage` says it must not
   * (or the decision is Deny: a remembered consent has no page to deny on; send `prompt=consent`).
   */
  async authorize(
    client: Pick<Client, 'clientId' | 'redirectUris'>,
    extra: Record<string, string | undefined> = {},
    decision: 'allow' | 'deny' = 'allow',
    options: { expectConsentPage?: boolean } = {},
  ) {
    const consent = await this.get(authorizePath(client, extra));
    if (consent.status === 302 && decision === 'allow' && options.expectConsentPage !== true) {
      const location = new URL(consent.headers.location as string);
      if (location.searchParams.has('code')) return { response: consent, location, code: location.searchParams.get('code') ?? undefined, consentShown: false };
    }
    if (consent.status !== 200) throw new Error(`expected the consent page, got ${consent.status} ${consent.headers.location ?? ''}`);
    const action = formAction(consent.text, '/oauth/authorize/decision');
    if (action === undefined) throw new Error('the consent page has no decision form');
    const answer = await this.postForm(action, { decision });
    const location = new URL(answer.headers.location as string);
    return { response: answer, location, code: location.searchParams.get('code') ?? undefined, consentShown: true };
  }
}
