#!/usr/bin/env node
// `node bench/profile-groups.js <file.cpuprofile>`: the self time of a CPU profile (from
// `npm run bench -- --cpu-prof`) grouped by where each function lives — Node's HTTP and sockets,
// Express, the database, crypto, the form body, logs, the HTTP adapter, the core — then the top
// functions. `(idle)` is left out. This is how the profile tables of docs/performance.md
// ("Issue 16, part 5") were made.
import { readFileSync } from 'node:fs';

const profile = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));

const GROUPS = [
  ['database', (url) => /better-sqlite3|direct-executor|storage-sqlite|storage-kysely|kysely|storage-postgres|node_modules\/pg(-[a-z]+)?\/|postgres-array|postgres-date|postgres-interval|postgres-bytea/.test(url)],
  ['crypto', (url, name) => /jose|node:crypto|internal\/crypto/.test(url) || (url === '' && /sign|digest/.test(name))],
  ['form body', (url) => /body-parser|raw-body|lean-form|form-body|iconv|type-is|media-typer/.test(url)],
  ['logs', (url) => /pino|sonic-boom|logger/.test(url)],
  ['express', (url) => /node_modules\/(express|router|finalhandler|send|etag|fresh|content-type|accepts|negotiator|path-to-regexp|qs|parseurl|depd|on-finished|proxy-addr|forwarded|ipaddr|setprototypeof|statuses|http-errors|mime|cookie|vary|encodeurl|escape-html)\//.test(url)],
  ['http adapter', (url) => /http-express/.test(url)],
  ['core', (url) => /packages\/core/.test(url)],
  ['server app', (url) => /apps\/server/.test(url)],
  ['node http/net', (url, name) =>
    /node:_http|node:http|node:net|internal\/streams?|node:stream|node:events|internal\/http|internal\/timers|internal\/process|internal\/async|internal\/url|node:url|stream_base/.test(url) ||
    (url === '' && /writev|writeUtf8|writeBuffer|onStreamRead|parser|HTTPParser|execute|cork|end|close|emit/.test(name))],
];

function groupOf({ url, functionName }) {
  if (functionName === '(garbage collector)') return 'garbage collector';
  if (functionName === '(idle)' || functionName === '(program)') return functionName;
  const found = GROUPS.find(([, matches]) => matches(url, functionName));
  return found ? found[0] : `other: ${url.split('/').slice(-2).join('/') || functionName}`;
}

const selfTime = new Map();
profile.samples.forEach((id, i) => selfTime.set(id, (selfTime.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const groups = new Map();
const functions = new Map();
let busy = 0;
for (const [id, time] of selfTime) {
  const frame = nodes.get(id).callFrame;
  const group = groupOf(frame);
  if (group === '(idle)') continue;
  busy += time;
  groups.set(group, (groups.get(group) ?? 0) + time);
  const name = `${frame.functionName || '(anonymous)'} ${frame.url.split('/').slice(-2).join('/')}:${frame.lineNumber}`;
  functions.set(name, (functions.get(name) ?? 0) + time);
}
const print = (map, limit) =>
  [...map].sort((a, b) => b[1] - a[1]).slice(0, limit).forEach(([name, time]) => console.log(`${((100 * time) / busy).toFixed(1).padStart(5)}%  ${name}`));
console.log(`busy ${(busy / 1000).toFixed(0)} ms`);
print(groups, 20);
console.log('--- top functions (self time)');
print(functions, 40);
