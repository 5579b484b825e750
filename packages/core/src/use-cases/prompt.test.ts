import { describe, expect, it } from 'vitest';
import { parsePrompt } from './prompt.js';

describe('parsePrompt (OIDC Core §3.1.2.1)', () => {
  it('reads a space-delimited list, dropping empty items and repeats', () => {
    expect(parsePrompt(undefined)).toEqual({ prompts: [] });
    expect(parsePrompt('')).toEqual({ prompts: [] });
    expect(parsePrompt('none')).toEqual({ prompts: ['none'] });
    expect(parsePrompt(' login  consent login ')).toEqual({ prompts: ['login', 'consent'] });
  });

  it('refuses unknown values (case-sensitive) and none with any other value', () => {
    expect(parsePrompt('select_account')).toEqual({ problem: 'The prompt value "select_account" is not supported (none, login, consent).' });
    expect(parsePrompt('Login')).toHaveProperty('problem');
    expect(parsePrompt('none consent')).toEqual({ problem: 'prompt=none cannot be combined with other values.' });
    expect(parsePrompt('none none')).toEqual({ prompts: ['none'] });
  });
});
