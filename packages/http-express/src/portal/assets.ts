import { Router } from 'express';
import type { PortalPaths } from './paths.js';

/** The portal's own stylesheet (forms, field errors, the clients table on phones), at `PortalPaths.stylesheet`. */

export const PORTAL_STYLESHEET = `
.toolbar { display: flex; justify-content: space-between; align-items: center; gap: 0.75rem 1rem; flex-wrap: wrap; margin-bottom: 1rem; }
.toolbar h1 { margin: 0; }
.field-hint { color: var(--muted); font-size: 0.85rem; margin: 0 0 0.35rem; }
label .optional { font-weight: 400; color: var(--muted); font-size: 0.85rem; }
.error-summary { border: 3px solid var(--danger); border-radius: 8px; padding: 0.75rem 1rem; margin-bottom: 1.25rem; }
.error-summary:focus { outline: 3px solid var(--accent); outline-offset: 2px; }
.error-summary h2 { margin: 0 0 0.5rem; font-size: 1.1rem; }
.error-summary ul { margin: 0; padding-left: 1.1rem; }
.error-summary a { color: var(--danger); font-weight: 600; overflow-wrap: anywhere; }
.field-error { color: var(--danger); font-size: 0.9rem; font-weight: 600; margin: -0.7rem 0 1rem; }
input[aria-invalid=true], textarea[aria-invalid=true] { border-color: var(--danger); }
fieldset { border: 0; padding: 0; margin: 0 0 1rem; min-width: 0; }
fieldset.invalid { border-left: 3px solid var(--danger); padding-left: 0.75rem; }
legend { font-weight: 600; padding: 0; margin-bottom: 0.25rem; }
fieldset + .field-error { margin-top: -0.5rem; }
label.check { display: flex; gap: 0.7rem; align-items: flex-start; font-weight: 400; padding: 0.55rem 0; margin: 0; border-bottom: 1px solid var(--line); cursor: pointer; }
label.check:last-of-type { border-bottom: 0; }
label.check input { flex: none; width: 1.15rem; height: 1.15rem; margin: 0.2rem 0 0; accent-color: var(--accent); }
label.check code { display: block; color: var(--muted); font-size: 0.8rem; word-break: normal; overflow-wrap: anywhere; }
label.check.single { border: 1px solid var(--line); border-radius: 8px; padding: 0.6rem 0.75rem; margin-bottom: 1rem; }
textarea { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9rem; resize: vertical; }
.notice.warn { border-color: #b7791f; background: color-mix(in srgb, #b7791f 10%, transparent); }
label.check .hint { display: block; color: var(--muted); font-size: 0.85rem; }
ul.field-error { padding-left: 1.1rem; }
ul.field-error li + li { margin-top: 0.25rem; }
.form-columns { display: grid; grid-template-columns: minmax(0, 1fr); gap: 0 2.5rem; }
@media (min-width: 60rem) { .form-columns { grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); } }
form.client-form .actions { max-width: 28rem; margin-left: auto; }
dl.details .copy-row { margin-bottom: 0; }
.copy-row { display: flex; gap: 0.5rem; margin-bottom: 1rem; }
.copy-row input { margin: 0; flex: 1 1 auto; min-width: 0; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9rem; }
.copy-row button { flex: none; }
.card:has(.copy-row) { max-width: 40rem; }
.actions > a.button { display: flex; align-items: center; justify-content: center; }
ul.plain { list-style: none; padding: 0; margin: 0; }
ul.plain li + li { margin-top: 0.2rem; }
.tag { display: inline-block; font: 0.75rem/1.6 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; padding: 0 0.45rem; border: 1px solid var(--line); border-radius: 999px; margin: 0 0.25rem 0.25rem 0; white-space: nowrap; }
.empty { text-align: center; padding: 2rem 1rem; color: var(--muted); border: 1px dashed var(--line); border-radius: 8px; }
table.list th { font-size: 0.8rem; text-transform: uppercase; letter-spacing: 0.03em; color: var(--muted); }
table.list th, table.list time { white-space: nowrap; }
table.list code, dl.details code { word-break: normal; overflow-wrap: anywhere; }
table.list td code { font-size: 0.85rem; }
.card.wide { max-width: 72rem; }
.muted a, p a { color: var(--accent); }
table.list td { font-size: 0.95rem; }
table.list td.name a { font-weight: 600; color: var(--accent); text-decoration: none; }
table.list td form { margin: 0; }
dl.details { margin: 0 0 1rem; display: grid; grid-template-columns: minmax(8rem, max-content) 1fr; gap: 0.5rem 1rem; }
dl.details dt { font-weight: 600; }
dl.details dd { margin: 0; min-width: 0; }
.actions form { flex: 1 1 8rem; margin: 0; display: flex; }
.actions form button { flex: 1; }
button.small { padding: 0.35rem 0.8rem; font-size: 0.9rem; }
@media (max-width: 40rem) {
  table.list thead { display: none; }
  table.list, table.list tbody, table.list tr, table.list td { display: block; width: 100%; }
  table.list tr { border-bottom: 1px solid var(--line); padding: 0.5rem 0; }
  table.list td { border: 0; padding: 0.2rem 0; }
  table.list td::before { content: attr(data-label); display: block; font-size: 0.75rem; color: var(--muted); text-transform: uppercase; }
  dl.details { grid-template-columns: 1fr; gap: 0.1rem; }
  dl.details dd { margin-bottom: 0.6rem; }
}
`.trim();

/**
 * Copy buttons: a button \`data-copy="<input id>"\` copies that input's value. The buttons are
 * \`hidden\` in the markup and shown by this script, so without script the user selects the
 * read-only field instead (it selects itself on focus).
 */
export const COPY_SCRIPT = `
'use strict';
(function () {
  function copied(button) {
    var label = button.textContent;
    button.textContent = 'Copied';
    setTimeout(function () { button.textContent = label; }, 2000);
  }
  document.querySelectorAll('button[data-copy]').forEach(function (button) {
    var field = document.getElementById(button.getAttribute('data-copy'));
    if (!field) return;
    button.hidden = false;
    button.addEventListener('click', function () {
      field.focus();
      field.select();
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(field.value).then(function () { copied(button); }, function () { if (document.execCommand('copy')) copied(button); });
      } else if (document.execCommand('copy')) {
        copied(button);
      }
    });
  });
  document.querySelectorAll('input[readonly][data-select]').forEach(function (field) {
    field.addEventListener('focus', function () { field.select(); });
  });
})();
`.trim();

/**
 * Serves the portal's stylesheet and the copy buttons' script (the only script of Gatehouse's
 * pages, served as a file) at `paths` (public, no sign-in needed, cacheable).
 */
export function createPortalAssetsRouter(paths: Pick<PortalPaths, 'stylesheet' | 'copyScript'>): Router {
  const router = Router();
  router.get(paths.stylesheet, (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.type('text/css; charset=utf-8').send(PORTAL_STYLESHEET);
  });
  router.get(paths.copyScript, (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.type('text/javascript; charset=utf-8').send(COPY_SCRIPT);
  });
  return router;
}
