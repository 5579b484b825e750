import { describe, expect, it } from 'vitest';
import { ipBucket } from './ip-bucket.js';

describe('ipBucket', () => {
  it('keeps IPv4 addresses whole', () => {
    expect(ipBucket('192.0.2.7', 64)).toBe('192.0.2.7');
  });

  it('cuts IPv6 addresses to the prefix, in one spelling whatever the input’s', () => {
    expect(ipBucket('2001:db8:1:2::7', 64)).toBe('2001:db8:1:2:0:0:0:0/64');
    expect(ipBucket('2001:0DB8:0001:0002:ffff:ffff:ffff:ffff', 64)).toBe('2001:db8:1:2:0:0:0:0/64');
    expect(ipBucket('2001:db8:1:2::7', 56)).toBe('2001:db8:1:0:0:0:0:0/56');
    expect(ipBucket('2001:db8:1:2ff::7', 56)).toBe('2001:db8:1:200:0:0:0:0/56');
    expect(ipBucket('2001:db8::1', 128)).toBe('2001:db8:0:0:0:0:0:1/128');
    expect(ipBucket('::1', 64)).toBe('0:0:0:0:0:0:0:0/64');
    expect(ipBucket('fe80::1%eth0', 64)).toBe('fe80:0:0:0:0:0:0:0/64');
  });

  it('reads IPv4-mapped addresses (RFC 4291 §2.5.5.2) as IPv4, dotted or in hex', () => {
    expect(ipBucket('::ffff:192.0.2.7', 64)).toBe('192.0.2.7');
    expect(ipBucket('::FFFF:c000:207', 64)).toBe('192.0.2.7');
    expect(ipBucket('64:ff9b::192.0.2.7', 96)).toBe('64:ff9b:0:0:0:0:0:0/96');
  });

  it('returns what is not an address unchanged', () => {
    expect(ipBucket('unknown', 64)).toBe('unknown');
  });
});
