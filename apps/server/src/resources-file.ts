import { readFileSync } from 'node:fs';
import * as v from 'valibot';
import { canonicalResourceUri, DEFAULT_SCOPES, resourceCatalogueProblem, type ResourceCatalogue, type ResourceDefinition, type ScopeCatalogue } from '@gatehouse/core';

/** The file's shape: a JSON array of `{ resource, name, scopes, accessTokenTtlSeconds? }` (unknown keys are refused, to catch typos). */
const resourcesFile = v.array(
  v.strictObject(
    {
      resource: v.string('"resource" must be a string'),
      name: v.string('"name" must be a string'),
      scopes: v.array(v.string('"scopes" must hold strings'), '"scopes" must be an array of scopes'),
      accessTokenTtlSeconds: v.optional(v.number('"accessTokenTtlSeconds" must be a number')),
    },
    (issue) => {
      if (issue.expected === 'never') return `has an unknown key ${issue.received}`;
      if (issue.received === 'undefined') return `has no ${issue.expected}`;
      return 'must be an object { "resource", "name", "scopes" }';
    },
  ),
  'must hold a JSON array of { "resource", "name", "scopes" } objects',
);

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * The server's own APIs (Users/me, messaging, attribute administration) as a resource: its URI is
 * the default audience, the issuer, so the tokens they take stay as they were; it accepts the four
 * built-in scopes (docs/decisions/0110-resource-indicators.md). The APIs are served under the
 * issuer (`https://example.com/auth/identity/v1/Users/me`), so the URI is a prefix of each of their
 * URLs, as RFC 9728 §3.3 has a client check (docs/decisions/0183-resource-and-issuer-urls-agree.md).
 *
 * @example
 * ownApisResource('https://auth.example.com'); // { resource: 'https://auth.example.com', name: 'Gatehouse APIs', scopes: [...] }
 */
export function ownApisResource(issuer: string): ResourceDefinition {
  return { resource: issuer, name: 'Gatehouse APIs', scopes: DEFAULT_SCOPES.map((entry) => entry.scope) };
}

/**
 * The server's resources: its own APIs (`ownApisResource`) followed by those of the JSON file
 * `path` (an array of `{ resource, name, scopes, accessTokenTtlSeconds? }`, each scope in
 * `scopes`, the catalogue), or, when the file cannot be read or used, what is wrong with it in one line.
 *
 * @example
 * readResourceCatalogue('/etc/gatehouse/resources.json', 'https://auth.example.com', scopes);
 * // { resources: [ownApisResource(issuer), { resource: 'https://mcp.example.com/mcp', name: 'Orders MCP', scopes: ['orders.v1.read'] }] }
 */
export function readResourceCatalogue(path: string, issuer: string, scopes: ScopeCatalogue): { resources: ResourceCatalogue } | { problem: string } {
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
  const parsed = v.safeParse(resourcesFile, json, { abortPipeEarly: true });
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const index = issue.path?.[0]?.key;
    return fail(typeof index === 'number' ? `item ${index + 1} ${issue.message}` : issue.message);
  }
  const own = ownApisResource(issuer);
  const clash = parsed.output.find((entry) => canonicalResourceUri(entry.resource) === canonicalResourceUri(own.resource));
  if (clash) return fail(`the resource ${JSON.stringify(clash.resource)} is the server's own APIs (GATEHOUSE_ISSUER); the file only adds resources`);
  const resources: ResourceDefinition[] = [own, ...parsed.output.map((entry) => ({ ...entry, ...(entry.accessTokenTtlSeconds === undefined ? {} : { accessTokenTtlSeconds: entry.accessTokenTtlSeconds }) }))];
  const problem = resourceCatalogueProblem(resources, scopes);
  if (problem !== undefined) return fail(problem);
  return { resources };
}
