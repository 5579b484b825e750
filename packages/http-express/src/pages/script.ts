/**
 * The script of Gatehouse's own pages, served as a file at `SCRIPT_PATH` (the page CSP allows
 * `script-src 'self'` on the pages that load it, never inline script): a button
 * `data-show-password="<input id>"` shows or hides that password field. The button is `hidden` in
 * the markup and shown by this script, so without script there is no button that does nothing
 * (docs/decisions/0156-a-way-back-from-the-sign-in-page.md).
 */
export const PAGE_SCRIPT = `
'use strict';
(function () {
  document.querySelectorAll('button[data-show-password]').forEach(function (button) {
    var field = document.getElementById(button.getAttribute('data-show-password'));
    if (!field) return;
    button.hidden = false;
    button.addEventListener('click', function () {
      var show = field.type === 'password';
      field.type = show ? 'text' : 'password';
      button.textContent = show ? 'Hide' : 'Show';
      button.title = show ? 'Hide the password' : 'Show the password as you type it';
      field.focus();
    });
  });
  // A password shown is hidden again before the form is sent (the browser's password manager sees a password field).
  document.querySelectorAll('form').forEach(function (form) {
    form.addEventListener('submit', function () {
      form.querySelectorAll('input[data-password]').forEach(function (field) { field.type = 'password'; });
    });
  });
})();
`.trim();

/** The pages' icon: Gatehouse's gate, in the accent colour (an SVG file; no `/favicon.ico` is needed). */
export const PAGE_ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1f5fbf"/><path d="M8 26V13a8 8 0 0 1 16 0v13h-4V13a4 4 0 0 0-8 0v13z" fill="#fff"/></svg>`;
