import { describe, expect, it } from 'vitest';
import { OAuthError } from './errors.js';

describe('OAuthError', () => {
  it('keeps its public description to RFC 6749 §5.2 characters: no ", no \\, printable ASCII only', () => {
    const error = new OAuthError('invalid_scope', 'The scope "a\\b" isn’t “known” — see…\u00e9\n\u0000', { detail: 'private "detail" stays as is' });
    expect(error.description).toBe("The scope 'a/b' isn't 'known' - see...???");
    expect(error.description).toMatch(/^[\x20\x21\x23-\x5B\x5D-\x7E]*$/);
    expect(error.detail).toBe('private "detail" stays as is');
    expect(new OAuthError('invalid_grant', 'The authorization code has expired.').description).toBe('The authorization code has expired.');
  });
});
