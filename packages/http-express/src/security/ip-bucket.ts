import { isIPv4, isIPv6 } from 'node:net';

/** The usual size of one customer's IPv6 network (RFC 6177 §3: a /64 is the smallest end-site assignment). */
export const DEFAULT_IPV6_PREFIX_LENGTH = 64;

/**
 * The key under which an address's failures are counted: an IPv4 address as it is; an IPv6
 * address cut to its first `ipv6PrefixLength` bits, since one end site owns a whole /64 and could
 * otherwise count under as many keys as it has addresses; an IPv4-mapped IPv6 address
 * (`::ffff:192.0.2.7`, RFC 4291 §2.5.5.2) as its IPv4 address. Anything else is returned unchanged.
 *
 * @example
 * ipBucket('2001:db8:1:2::7', 64); // '2001:db8:1:2:0:0:0:0/64'
 * ipBucket('::ffff:192.0.2.7', 64); // '192.0.2.7'
 */
export function ipBucket(ip: string, ipv6PrefixLength: number = DEFAULT_IPV6_PREFIX_LENGTH): string {
  if (isIPv4(ip)) return ip;
  const address = ip.split('%', 1)[0] as string; // a zone index (fe80::1%eth0) is not part of the address
  if (!isIPv6(address)) return ip;
  const groups = ipv6Groups(address);
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    const [high, low] = [groups[6] as number, groups[7] as number];
    return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  }
  const masked = groups.map((group, index) => {
    const bits = Math.min(16, Math.max(0, ipv6PrefixLength - 16 * index));
    return group & ((0xffff << (16 - bits)) & 0xffff);
  });
  return `${masked.map((group) => group.toString(16)).join(':')}/${ipv6PrefixLength}`;
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a trailing dotted quad folded in). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = tail === undefined ? [] : Array.from({ length: 8 - headGroups.length - tailGroups.length }, () => '0');
  return [...headGroups, ...zeros, ...tailGroups].map((group) => parseInt(group, 16));
}
