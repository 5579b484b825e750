import { describe, expect, it } from 'vitest';
import { hostMatches } from './registration-settings.js';

describe('hostMatches (the metadata-document host lists; docs/decisions/0178)', () => {
  const denied = ['denied.example', '*.denied.example'];
  const allowed = ['allowed.example', '*.allowed.example'];

  it('takes a host with a trailing dot for the host without it, in the denied and the allowed list alike', () => {
    for (const [patterns, apex] of [
      [denied, 'denied.example'],
      [allowed, 'allowed.example'],
    ] as const) {
      expect(hostMatches(`${apex}.`, patterns)).toBe(true);
      expect(hostMatches(`sub.${apex}.`, patterns)).toBe(true);
      expect(hostMatches(`sub.${apex}..`, patterns)).toBe(true);
      expect(hostMatches(`${apex}.`, [`*.${apex}`])).toBe(false);
      expect(hostMatches(`other${apex}.`, patterns)).toBe(false);
    }
  });

  it('ignores case and a trailing dot on either side', () => {
    expect(hostMatches('Denied.EXAMPLE.', denied)).toBe(true);
    expect(hostMatches('Sub.Denied.Example', denied)).toBe(true);
    expect(hostMatches('denied.example', ['DENIED.example.'])).toBe(true);
    expect(hostMatches('sub.denied.example', ['*.Denied.Example.'])).toBe(true);
    expect(hostMatches('denied.example.org', denied)).toBe(false);
  });
});
