import { describe, expect, it } from 'vitest';
import { repeatedJsonMember } from './json-members.js';

describe('repeatedJsonMember (a JSON body names a member twice)', () => {
  it('finds a name repeated in one object, at any depth, compared as parsed', () => {
    expect(repeatedJsonMember('{"name":"department","name":"Department"}')).toBe('name');
    expect(repeatedJsonMember('{"a":1,"\\u0061":2}')).toBe('a');
    expect(repeatedJsonMember('[{"key":"k1","value":"x"},{"key":"k2","value":"y","value":"z"}]')).toBe('value');
    expect(repeatedJsonMember('{"outer":{"a":1,"b":{"c":1,"c":2}}}')).toBe('c');
    expect(repeatedJsonMember(' { "x" : [ 1 , { "y" : 1 } ] , "x" : 2 } ')).toBe('x');
  });

  it('lets the same name through in different objects, in values and in strings with quotes, braces and escapes', () => {
    expect(repeatedJsonMember('[{"key":"k1"},{"key":"k2"}]')).toBeUndefined();
    expect(repeatedJsonMember('{"a":{"a":{"a":1}}}')).toBeUndefined();
    expect(repeatedJsonMember('{"name":"name","body":"{\\"name\\":1, \\"name\\":2}"}')).toBeUndefined();
    expect(repeatedJsonMember('{"list":["a","a"],"b":"\\\\","c":"}"}')).toBeUndefined();
    expect(repeatedJsonMember('["x","x"]')).toBeUndefined();
  });

  it('leaves text that is not JSON to the parser', () => {
    expect(repeatedJsonMember('{"a":1,')).toBeUndefined();
    expect(repeatedJsonMember('{"a')).toBeUndefined();
    expect(repeatedJsonMember('')).toBeUndefined();
  });
});
