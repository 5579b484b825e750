import { html, type SafeHtml } from '../../pages/html.js';

/** A date for people, in UTC (the server does not know the reader's zone), with a machine-readable twin. */
export function dateTime(date: Date): SafeHtml {
  const iso = date.toISOString();
  return html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`;
}

/** A notice shown after a redirect (`?done=…`): fixed words chosen by key, never text from the URL. */
export function doneNotice(messages: Record<string, string>, done: unknown): SafeHtml | '' {
  const message = typeof done === 'string' && Object.hasOwn(messages, done) ? messages[done] : undefined;
  return message === undefined ? '' : html`<p class="notice ok" role="status">${message}</p>`;
}
