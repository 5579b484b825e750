/** The one stylesheet of every page (served as a file, so the CSP needs no inline style). */
export const STYLESHEET_PATH = '/assets/gatehouse.css';
/** The script of the sign-in page (show-password toggle), served as a file: no inline script (docs/decisions/0156). */
export const SCRIPT_PATH = '/assets/gatehouse.js';
/** Every page's icon, so browsers do not ask for a missing `/favicon.ico` on each page load. */
export const ICON_PATH = '/assets/gatehouse.svg';
/** Every file the pages load, each beside the stylesheet. */
export const ASSET_PATHS: readonly string[] = [STYLESHEET_PATH, SCRIPT_PATH, ICON_PATH];

export const STYLESHEET = `
:root { color-scheme: light dark; --fg: #1c2430; --muted: #5b6675; --bg: #f4f6f9; --card: #ffffff; --line: #d9dee5;
  --accent: #1f5fbf; --accent-fg: #ffffff; --danger: #b42318; --ok: #1a7f37; --warn: #9a6700; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6e9ee; --muted: #a3adba; --bg: #11151b; --card: #1a2029; --line: #2e3744; --accent: #5b9cff; --accent-fg: #0b1220; --danger: #ff7b72; --ok: #56d364; --warn: #d29922; }
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
header.site { padding: 0.75rem 1rem; border-bottom: 1px solid var(--line); background: var(--card); display: flex; gap: 1rem; align-items: center; flex-wrap: wrap; }
header.site .brand { font-weight: 700; color: var(--fg); text-decoration: none; }
header.site .brand .logo { height: 1.5rem; width: auto; vertical-align: middle; margin-right: 0.5rem; }
header.site nav { display: flex; gap: 1rem; flex-wrap: wrap; }
header.site nav a { color: var(--accent); text-decoration: none; }
header.site .who { margin-left: auto; color: var(--muted); font-size: 0.9rem; }
main { padding: 1.5rem 1rem 3rem; }
.card { max-width: 28rem; margin: 0 auto; background: var(--card); border: 1px solid var(--line); border-radius: 12px; padding: 1.5rem; }
.wide { max-width: 56rem; }
h1 { font-size: 1.4rem; margin: 0 0 1rem; line-height: 1.25; }
h2 { font-size: 1.1rem; margin: 1.5rem 0 0.5rem; }
p { margin: 0 0 1rem; }
.muted { color: var(--muted); font-size: 0.9rem; }
.password-row { display: flex; gap: 0.5rem; align-items: stretch; margin-bottom: 1rem; }
.password-row input[type] { margin: 0; flex: 1 1 auto; min-width: 0; }
.password-row button { flex: none; padding: 0.4rem 0.8rem; font-weight: 600; }
details.password-help { margin: 1rem 0 0; font-size: 0.9rem; }
details.password-help summary { color: var(--accent); cursor: pointer; }
details.password-help p { margin: 0.5rem 0 0; color: var(--muted); }
p.cancel { margin: 0.75rem 0 0; }
button.link { background: none; border: 0; padding: 0; color: var(--accent); font-weight: 400; text-decoration: underline; cursor: pointer; }
label { display: block; font-weight: 600; margin: 0 0 0.25rem; }
input[type=email], input[type=password], input[type=text], input[type=url], textarea, select {
  width: 100%; font: inherit; padding: 0.6rem 0.7rem; border: 1px solid var(--line); border-radius: 8px; background: var(--bg); color: var(--fg); margin-bottom: 1rem; }
input:focus, textarea:focus, button:focus { outline: 2px solid var(--accent); outline-offset: 2px; }
button, .button { display: inline-block; font: inherit; font-weight: 600; padding: 0.6rem 1.2rem; border-radius: 8px; border: 1px solid var(--accent);
  background: var(--accent); color: var(--accent-fg); cursor: pointer; text-decoration: none; text-align: center; }
button.secondary, .button.secondary { background: transparent; color: var(--accent); }
button.danger { background: var(--danger); border-color: var(--danger); color: #fff; }
.actions { display: flex; gap: 0.75rem; flex-wrap: wrap; margin-top: 1rem; }
.actions > * { flex: 1 1 8rem; }
.notice { border-radius: 8px; padding: 0.75rem 1rem; margin-bottom: 1rem; border: 1px solid var(--line); }
.notice.error { border-color: var(--danger); color: var(--danger); }
.notice.ok { border-color: var(--ok); color: var(--ok); }
.notice.warn { border-color: var(--warn); border-left-width: 4px; }
ul.scopes { list-style: none; padding: 0; margin: 0 0 1rem; }
ul.scopes li { padding: 0.6rem 0; border-bottom: 1px solid var(--line); }
ul.scopes li:last-child { border-bottom: 0; }
ul.scopes code { display: block; color: var(--muted); font-size: 0.8rem; }
ul.scopes .new-scope { font-size: 0.75rem; font-weight: 600; padding: 0 0.4rem; border: 1px solid currentColor; border-radius: 999px; }
ul.scopes .changes { display: inline-block; font-size: 0.75rem; font-weight: 600; color: var(--danger); border: 1px solid currentColor; border-radius: 999px; padding: 0 0.45rem; margin-left: 0.25rem; white-space: nowrap; }
.client-card { display: flex; gap: 0.75rem; align-items: center; margin: 0 0 0.75rem; }
.client-card p { margin: 0; }
.client-logo { flex: none; width: 48px; height: 48px; object-fit: contain; border-radius: 8px; border: 1px solid var(--line); background: var(--bg); }
.client-meta { color: var(--muted); font-size: 0.9rem; overflow-wrap: anywhere; }
.destination { word-break: normal; overflow-wrap: anywhere; }
.first-party { font-size: 0.85rem; font-weight: 600; color: var(--ok); }
.muted a, .client-meta a { color: var(--accent); }
pre { background: var(--bg); border: 1px solid var(--line); border-radius: 8px; padding: 0.75rem; margin: 0 0 1rem; white-space: pre-wrap; word-break: break-all; font-size: 0.85rem; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; word-break: break-all; }
table { width: 100%; border-collapse: collapse; }
th, td { text-align: left; padding: 0.5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
@media (max-width: 30rem) { main { padding: 1rem 0.5rem 2rem; } .card { padding: 1rem; border-radius: 8px; } }
`.trim();
