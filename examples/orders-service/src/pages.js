/** The orders service's own HTML pages (plain strings; every value escaped). */

/** @param {unknown} value */
export function escapeHtml(value) {
  return String(value).replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** @param {string} title @param {string} body */
function layout(title, body) {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)} · Orders</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem}label{display:block;margin:.75rem 0}input{display:block;width:100%;padding:.4rem}button{padding:.5rem 1rem}.error{color:#a00}</style></head>
<body><h1>${escapeHtml(title)}</h1>
${body}
</body>
</html>`;
}

/**
 * The service's sign-in form. Gatehouse sends the browser here with `login_request`; the form
 * carries it back so that the sign-in can be handed to Gatehouse.
 *
 * @param {{ loginRequest: string, email?: string, error?: string, notice?: string }} input
 */
export function loginPage({ loginRequest, email = '', error, notice }) {
  return layout(
    'Sign in to Orders',
    `${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}${notice ? `<p class="notice">${escapeHtml(notice)}</p>` : ''}
<form method="post" action="/login">
  <input type="hidden" name="login_request" value="${escapeHtml(loginRequest)}">
  <label>E-mail <input type="email" name="email" value="${escapeHtml(email)}" autocomplete="username" required autofocus></label>
  <label>Password <input type="password" name="password" autocomplete="current-password" required></label>
  <button type="submit">Sign in</button>
</form>`,
  );
}

/**
 * @param {{ user: import('./users.js').OrdersUser, orders: import('./orders.js').Order[] } | undefined} signedIn
 */
export function homePage(signedIn) {
  if (!signedIn) return layout('Orders', '<p><a href="/login">Sign in</a> to see your orders.</p>');
  const { user, orders } = signedIn;
  const rows = orders.map((order) => `<li>${escapeHtml(order.quantity)} × ${escapeHtml(order.item)} <small>(${escapeHtml(order.placedAt)})</small></li>`).join('\n');
  return layout(
    'Orders',
    `<p>Signed in as <strong>${escapeHtml(user.email)}</strong>.</p>
<ul>${rows || '<li>No orders yet.</li>'}</ul>
<form method="post" action="/logout"><button type="submit">Sign out</button></form>
<p><small>Signing out also takes back the access of the apps you allowed while signed in.</small></p>`,
  );
}

/**
 * "Not you?" on Gatehouse's consent page leads here (`switchAccountUrl`): sign out, then sign in
 * as someone else and come back to the app's request (`return_to`).
 *
 * @param {{ email: string | undefined, returnTo: string }} input
 */
export function switchAccountPage({ email, returnTo }) {
  return layout(
    'Use another account',
    `${email ? `<p>Signed in as <strong>${escapeHtml(email)}</strong>.</p>` : ''}
<form method="post" action="/switch-account">
  <input type="hidden" name="return_to" value="${escapeHtml(returnTo)}">
  <button type="submit">Sign out and use another account</button>
</form>`,
  );
}

/** @param {string} title @param {string} message */
export function messagePage(title, message) {
  return layout(title, `<p>${escapeHtml(message)}</p>`);
}
