import { describe, expect, it } from 'vitest';
import { KNOWN_SCOPES, describeScope, formatScope, isValidScopeToken, parseScope } from './scopes.js';

describe('scopes', () => {
  it('has the catalogue of SPEC §3, each with words for the consent page', () => {
    expect([...KNOWN_SCOPES]).toEqual(['messaging.v1.send', 'messaging.v1.read', 'admin.v1.attributes.read', 'admin.v1.attributes.write']);
    for (const scope of KNOWN_SCOPES) {
      expect(scope).toMatch(/^[a-z]+\.v\d+(\.[a-z]+)?\.[a-z]+$/);
      expect(describeScope(scope)).not.toBe(scope);
    }
    expect(describeScope('unknown.v1.x')).toBe('unknown.v1.x');
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
