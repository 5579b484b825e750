import { html, type SafeHtml } from '../../pages/html.js';

/** A date for people, in UTC (the server does not know the reader's zone), with a machine-readable twin. */
export function dateTime(date: Date): SafeHtml {
  const iso = date.toISOString();
  return html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`;
}

/** The words of one notice, naming the client or app when its name is known. */
export type NoticeWords = (name: string | undefined) => string;

/**
 * A notice shown after a redirect (`?done=…`): fixed words chosen by key, never text from the
 * URL; `name` (the client or app, from the page's own data or the one-time cookie of
 * `done-notice.ts`) is put in them.
 */
export function doneNotice(messages: Record<string, NoticeWords>, done: unknown, name?: string): SafeHtml | '' {
  const words = typeof done === 'string' && Object.hasOwn(messages, done) ? messages[done] : undefined;
  return words === undefined ? '' : html`<p class="notice ok" role="status">${words(name)}</p>`;
}
