import { describe, expect, it } from 'vitest';
import { DEFAULT_SCOPES, describeScope, formatScope, isCataloguedScope, isValidScopeToken, parseScope, scopeCatalogueProblem } from './scopes.js';

describe('scopes', () => {
  it('has the product catalogue by default, each with words for the consent page', () => {
    expect(DEFAULT_SCOPES.map((entry) => entry.scope)).toEqual(['messaging.v1.send', 'messaging.v1.read', 'admin.v1.attributes.read', 'admin.v1.attributes.write']);
    expect(scopeCatalogueProblem(DEFAULT_SCOPES)).toBeUndefined();
    for (const { scope } of DEFAULT_SCOPES) expect(describeScope(DEFAULT_SCOPES, scope)).not.toBe(scope);
    expect(describeScope(DEFAULT_SCOPES, 'unknown.v1.x')).toBe('unknown.v1.x');
    expect(Object.isFrozen(DEFAULT_SCOPES)).toBe(true);
  });

  it('looks scopes up in the catalogue it is given', () => {
    const orders = [{ scope: 'orders.v1.read', description: 'See your orders' }];
    expect(isCataloguedScope(orders, 'orders.v1.read')).toBe(true);
    expect(isCataloguedScope(orders, 'messaging.v1.send')).toBe(false);
    expect(describeScope(orders, 'orders.v1.read')).toBe('See your orders');
  });

  it('parses space-separated scopes, dropping empties and repeats, and formats them back', () => {
    expect(parseScope(' messaging.v1.send  messaging.v1.read messaging.v1.send ')).toEqual(['messaging.v1.send', 'messaging.v1.read']);
    expect(parseScope('')).toEqual([]);
    expect(formatScope(['a', 'b'])).toBe('a b');
  });

  it('checks the RFC 6749 §3.3 scope-token characters', () => {
    expect(isValidScopeToken('messaging.v1.send')).toBe(true);
    for (const token of ['', 'with space', 'quote"d', 'back\\slash', 'tab\t', 'é']) expect(isValidScopeToken(token)).toBe(false);
  });
});

describe('scopeCatalogueProblem', () => {
  const entry = (scope: string, description = 'Words') => ({ scope, description });

  it('accepts both product forms, with digits, - and _ in names', () => {
    expect(scopeCatalogueProblem([entry('orders.v1.read'), entry('orders.v2.line-items.write'), entry('shop_2.v10.stock_level.read')])).toBeUndefined();
  });

  it('refuses a scope that is not an RFC 6749 §3.3 scope-token', () => {
    for (const scope of ['', 'orders.v1 read', 'orders.v1."read"', 'orders.v1.lé', 'x'.repeat(95) + '.v1.read']) {
      expect(scopeCatalogueProblem([entry(scope)])).toBe(`the scope ${JSON.stringify(scope)} is not an RFC 6749 §3.3 scope-token of at most 100 characters`);
    }
  });

  it('refuses a scope-token outside the product form', () => {
    for (const scope of ['orders.read', 'orders.1.read', 'orders.v1', 'Orders.v1.read', 'orders.v1.a.b.c', 'orders.v1.read:all', '.v1.read', 'orders.v1.']) {
      expect(scopeCatalogueProblem([entry(scope)])).toBe(
        `the scope ${JSON.stringify(scope)} is not of the form <area>.<version>.<resource>.<action> or <area>.<version>.<action> (such as orders.v1.read)`,
      );
    }
  });

  it('takes the OpenID Connect scopes only with OpenID Connect on (docs/decisions/0130)', () => {
    for (const scope of ['openid', 'profile', 'email', 'phone', 'address', 'offline_access']) {
      expect(scopeCatalogueProblem([entry(scope)])).toBe(`the scope ${JSON.stringify(scope)} is an OpenID Connect scope: it is offered when OpenID Connect is on (openid: true)`);
      expect(scopeCatalogueProblem([entry(scope)], { openid: true })).toBeUndefined();
    }
    // Only the standard's names: any other name keeps the product's form.
    expect(scopeCatalogueProblem([entry('openid2')], { openid: true })).toMatch(/is not of the form/);
  });

  it('refuses duplicates, missing or unusable descriptions and an empty catalogue', () => {
    expect(scopeCatalogueProblem([entry('orders.v1.read'), entry('orders.v1.read', 'Other words')])).toBe('the scope "orders.v1.read" is listed twice');
    const needsWords = 'the scope "orders.v1.read" needs a description of 1 to 200 characters without control characters';
    for (const description of ['', '   ', 'x'.repeat(201), 'line\nbreak']) expect(scopeCatalogueProblem([entry('orders.v1.read', description)])).toBe(needsWords);
    expect(scopeCatalogueProblem([{ scope: 'orders.v1.read' } as never])).toBe(needsWords);
    expect(scopeCatalogueProblem([])).toBe('the scope catalogue is empty');
  });
});
