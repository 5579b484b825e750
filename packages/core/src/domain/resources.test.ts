import { describe, expect, it } from 'vitest';
import { DEFAULT_SCOPES } from './scopes.js';
import { canonicalResourceCatalogue, checkResourceUri, findResource, resourceCatalogueProblem } from './resources.js';

const SCOPES = [...DEFAULT_SCOPES, { scope: 'orders.v1.read', description: 'See your orders' }];
const ORDERS = { resource: 'https://mcp.example.com/mcp', name: 'Orders MCP', scopes: ['orders.v1.read'] };

describe('resource URIs (RFC 8707 §2)', () => {
  it('are compared in canonical form: scheme and host in lower case, no default port, no lone slash', () => {
    expect(checkResourceUri('HTTPS://MCP.Example.COM:443/Mcp')).toEqual({ canonical: 'https://mcp.example.com/Mcp' });
    expect(checkResourceUri('https://mcp.example.com/')).toEqual({ canonical: 'https://mcp.example.com' });
    expect(checkResourceUri('https://mcp.example.com')).toEqual({ canonical: 'https://mcp.example.com' });
    expect(checkResourceUri('http://127.0.0.1:8080/mcp/')).toEqual({ canonical: 'http://127.0.0.1:8080/mcp/' });
    expect(checkResourceUri('https://api.example.com/v1?tenant=a')).toEqual({ canonical: 'https://api.example.com/v1?tenant=a' });
  });

  it('must be absolute, without a fragment or user information', () => {
    expect(checkResourceUri('/mcp')).toEqual({ problem: 'is not an absolute URI' });
    expect(checkResourceUri('mcp.example.com/mcp')).toEqual({ problem: 'is not an absolute URI' });
    expect(checkResourceUri('https://mcp.example.com/mcp#tools')).toEqual({ problem: 'has a fragment, which RFC 8707 forbids' });
    expect(checkResourceUri('https://mcp.example.com/mcp#')).toEqual({ problem: 'has a fragment, which RFC 8707 forbids' });
    expect(checkResourceUri('https://user:pw@mcp.example.com/mcp')).toEqual({ problem: 'has user information' });
    expect(checkResourceUri(`https://mcp.example.com/${'a'.repeat(2100)}`)).toMatchObject({ problem: expect.stringContaining('at most 2048') });
  });

  it('are found in the catalogue in any spelling of the same canonical form', () => {
    const catalogue = canonicalResourceCatalogue([ORDERS]);
    expect(findResource(catalogue, 'HTTPS://mcp.EXAMPLE.com/mcp')?.name).toBe('Orders MCP');
    expect(findResource(catalogue, 'https://mcp.example.com/MCP')).toBeUndefined();
    expect(findResource(catalogue, 'https://mcp.example.com/mcp/')).toBeUndefined();
    expect(findResource(catalogue, 'not a uri')).toBeUndefined();
  });
});

describe('the resource catalogue', () => {
  it('accepts absolute https URIs (http on loopback) with a name and scopes of the catalogue', () => {
    expect(resourceCatalogueProblem([ORDERS, { resource: 'http://localhost:3000', name: 'Local', scopes: ['messaging.v1.read'], accessTokenTtlSeconds: 600 }], SCOPES)).toBeUndefined();
    expect(resourceCatalogueProblem([], SCOPES)).toBeUndefined();
  });

  it('refuses what cannot be used, saying which resource and why', () => {
    const problem = (entry: object) => resourceCatalogueProblem([entry as typeof ORDERS], SCOPES);
    expect(problem({ ...ORDERS, resource: '/mcp' })).toBe('the resource "/mcp" is not an absolute URI');
    expect(problem({ ...ORDERS, resource: 'https://mcp.example.com/mcp#x' })).toBe('the resource "https://mcp.example.com/mcp#x" has a fragment, which RFC 8707 forbids');
    expect(problem({ ...ORDERS, resource: 'http://mcp.example.com/mcp' })).toBe('the resource "http://mcp.example.com/mcp" must use https (http is allowed on loopback only)');
    expect(problem({ ...ORDERS, resource: 'urn:orders' })).toContain('must use https');
    expect(problem({ ...ORDERS, resource: 'https://mcp.example.com/mcp?a=b' })).toBe('the resource "https://mcp.example.com/mcp?a=b" must not have a query');
    expect(problem({ ...ORDERS, resource: 42 })).toBe('the resource 42 is not a URI');
    expect(problem({ ...ORDERS, name: ' ' })).toContain('needs a name');
    expect(problem({ ...ORDERS, name: 'a\nb' })).toContain('needs a name');
    expect(problem({ ...ORDERS, scopes: [] })).toContain('needs a list of the scopes it accepts');
    expect(problem({ ...ORDERS, scopes: ['orders.v1.write'] })).toBe('the resource "https://mcp.example.com/mcp" accepts the scope "orders.v1.write", which is not in the scope catalogue');
    expect(problem({ ...ORDERS, accessTokenTtlSeconds: 0 })).toContain('accessTokenTtlSeconds from 1 to 86400');
    expect(problem({ ...ORDERS, accessTokenTtlSeconds: 1.5 })).toContain('accessTokenTtlSeconds');
    expect(resourceCatalogueProblem([ORDERS, { ...ORDERS, resource: 'HTTPS://MCP.example.com:443/mcp' }], SCOPES)).toBe('the resource "HTTPS://MCP.example.com:443/mcp" is listed twice');
  });

  it('is kept in canonical form, without repeated scopes, frozen', () => {
    const [kept] = canonicalResourceCatalogue([{ resource: 'HTTPS://MCP.example.com/', name: ' Orders ', scopes: ['orders.v1.read', 'orders.v1.read'] }]);
    expect(kept).toEqual({ resource: 'https://mcp.example.com', name: 'Orders', scopes: ['orders.v1.read'] });
    expect(Object.isFrozen(kept)).toBe(true);
    expect(Object.isFrozen(kept?.scopes)).toBe(true);
  });
});
