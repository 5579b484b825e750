import { describe, expect, it } from 'vitest';
import { fieldsOfParsedBody, parseForm } from './form-body.js';

describe('parseForm', () => {
  it('decodes + and %-escapes and drops empty values (RFC 6749 §3.1: treated as omitted)', () => {
    expect(parseForm(Buffer.from('a=1+2&b=%C3%BC%26&c=&d'))).toEqual({ fields: { a: '1 2', b: 'ü&' } });
  });

  it('refuses a repeated parameter, empty or not', () => {
    expect(parseForm(Buffer.from('a=1&a=2'))).toEqual({ problem: 'The parameter a is repeated.' });
    expect(parseForm(Buffer.from('a=&a='))).toEqual({ problem: 'The parameter a is repeated.' });
  });

  it('refuses invalid UTF-8', () => {
    expect(parseForm(Buffer.from([0x61, 0x3d, 0xc3]))).toEqual({ problem: 'The body is not valid UTF-8.' });
  });

  it('gives an object without a prototype (no __proto__ tricks)', () => {
    const parsed = parseForm(Buffer.from('__proto__=x&constructor=y'));
    expect('fields' in parsed && parsed.fields.__proto__).toBe('x');
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});

describe('fieldsOfParsedBody (a body the host already parsed)', () => {
  it('takes one string per parameter and drops empty values', () => {
    expect(fieldsOfParsedBody({ a: '1', b: '' }, 100)).toEqual({ fields: { a: '1' } });
  });

  it('refuses an array (a repeated parameter) and an object (a nested one)', () => {
    expect(fieldsOfParsedBody({ a: ['1', '2'] }, 100)).toEqual({ problem: 'The parameter a is repeated.', status: 400 });
    expect(fieldsOfParsedBody({ a: { b: '1' } }, 100)).toEqual({ problem: 'The parameter a is not a plain value.', status: 400 });
  });

  it('parses a string or a Buffer as its own parser would, and bounds every form by the limit', () => {
    expect(fieldsOfParsedBody('a=1&b=2', 100)).toEqual({ fields: { a: '1', b: '2' } });
    expect(fieldsOfParsedBody(Buffer.from('a=1&a=2'), 100)).toEqual({ problem: 'The parameter a is repeated.', status: 400 });
    expect(fieldsOfParsedBody('a=123456789', 5)).toEqual({ problem: 'The body is larger than 5 bytes.', status: 413 });
    expect(fieldsOfParsedBody({ a: '123456789' }, 5)).toEqual({ problem: 'The body is larger than 5 bytes.', status: 413 });
  });
});
