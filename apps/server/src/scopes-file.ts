import { readFileSync } from 'node:fs';
import * as v from 'valibot';
import { DEFAULT_SCOPES, isOpenIdConnectScope, scopeCatalogueProblem, type ScopeCatalogue } from '@gatehouse/core';

/** The file's shape: a JSON array of `{ scope, description }` (unknown keys are refused, to catch typos). */
const scopesFile = v.array(
  v.strictObject(
    {
      scope: v.string('"scope" must be a string'),
      description: v.string('"description" must be a string'),
    },
    (issue) => {
      if (issue.expected === 'never') return `has an unknown key ${issue.received}`;
      if (issue.received === 'undefined') return `has no ${issue.expected}`;
      return 'must be an object { "scope", "description" }';
    },
  ),
  'must hold a JSON array of { "scope", "description" } objects',
);

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * The server's catalogue: its four built-in scopes followed by those of the JSON file `path`
 * (an array of `{ scope, description }`), or, when the file cannot be read or used or repeats a
 * built-in scope, what is wrong with it in one line (docs/decisions/0016-the-server-scopes-file.md).
 *
 * @example
 * readScopeCatalogue('/etc/gatehouse/scopes.json');
 * // { catalogue: [...DEFAULT_SCOPES, { scope: 'orders.v1.read', description: 'See your orders' }] }
 */
export function readScopeCatalogue(path: string): { catalogue: ScopeCatalogue } | { problem: string } {
  const fail = (problem: string) => ({ problem: oneLine(problem) });
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return fail(`cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return fail(`is not valid JSON (${(error as Error).message})`);
  }
  const parsed = v.safeParse(scopesFile, json, { abortPipeEarly: true });
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const index = issue.path?.[0]?.key;
    return fail(typeof index === 'number' ? `item ${index + 1} ${issue.message}` : issue.message);
  }
  const builtIn = parsed.output.find((entry) => DEFAULT_SCOPES.some((known) => known.scope === entry.scope));
  if (builtIn) return fail(`the scope ${JSON.stringify(builtIn.scope)} is built in; the file only adds scopes`);
  // The OpenID Connect scopes come with GATEHOUSE_OPENID (docs/decisions/0130), never from the file.
  const openid = parsed.output.find((entry) => isOpenIdConnectScope(entry.scope));
  if (openid) return fail(`the scope ${JSON.stringify(openid.scope)} is an OpenID Connect scope, which the server adds itself (GATEHOUSE_OPENID)`);
  const catalogue = [...DEFAULT_SCOPES, ...parsed.output];
  const problem = scopeCatalogueProblem(catalogue);
  if (problem !== undefined) return fail(problem);
  return { catalogue };
}
