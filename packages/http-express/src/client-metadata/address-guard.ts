import { BlockList, isIP } from 'node:net';

/** Which addresses besides public ones a document may be fetched from (development, tests, an intranet). */
export interface AddressAllowance {
  /** 127.0.0.0/8 and ::1 (and their IPv4-mapped forms). Default false. */
  allowLoopback?: boolean;
  /** 10/8, 172.16/12, 192.168/16, 100.64/10 (shared address space) and fc00::/7 (unique local). Default false. */
  allowPrivateNetworks?: boolean;
}

/** Never fetched from: not one host on the Internet (RFC 6890 special-purpose registries). */
const NEVER = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network", 0.0.0.0 itself: reaches the local host
  ['169.254.0.0', 16], // link-local, cloud metadata services among them
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast (deprecated, RFC 7526)
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and the broadcast address
] as const) {
  NEVER.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::', 96], // IPv4-compatible (deprecated): an IPv4 address in disguise
  ['64:ff9b::', 96], // NAT64: an IPv4 address behind a translator
  ['64:ff9b:1::', 48], // local NAT64
  ['100::', 64], // discard-only
  // IETF protocol assignments: Teredo 2001::/32 (RFC 4380: carries an IPv4 server and client address),
  // benchmarking 2001:2::/48, ORCHID, and anycast services (PCP, TURN, AMT, AS112) that host no documents.
  ['2001::', 23],
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4 (RFC 3056): an IPv4 address in bits 16-47 (2002:a9fe:a9fe:: is 169.254.169.254)
  ['3fff::', 20], // documentation (RFC 9637)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  NEVER.addSubnet(network, prefix, 'ipv6');
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

const PRIVATE = new BlockList();
for (const [network, prefix] of [
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['100.64.0.0', 10], // shared address space (carrier-grade NAT)
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv4');
}
PRIVATE.addSubnet('fc00::', 7, 'ipv6');

/**
 * Why a document may not be fetched from `address` (an IP address as DNS answered it), or
 * undefined when it may: a special-purpose address (unspecified, link-local, multicast,
 * documentation, translated…) never; loopback and private networks only when allowed. An
 * IPv4-mapped IPv6 address (`::ffff:10.0.0.1`) is judged as the IPv4 address it carries; the other
 * forms that carry one (IPv4-compatible, NAT64, 6to4, Teredo) are never fetched from
 * (docs/decisions/0118-guarded-document-fetcher.md).
 *
 * @example
 * addressRefusal('169.254.169.254', {}); // 'link-local or another special-purpose address'
 * addressRefusal('127.0.0.1', { allowLoopback: true }); // undefined
 */
export function addressRefusal(address: string, allowance: AddressAllowance): string | undefined {
  const family = isIP(address);
  if (family === 0) return 'not an IP address';
  // BlockList judges an IPv4-mapped IPv6 address by its IPv4 rules (Node's documented behaviour).
  const type = family === 4 ? 'ipv4' : 'ipv6';
  // Loopback first: ::1 lies inside ::/96, which is never fetched from otherwise.
  if (LOOPBACK.check(address, type)) return allowance.allowLoopback ? undefined : 'a loopback address';
  if (NEVER.check(address, type)) return 'link-local or another special-purpose address';
  if (PRIVATE.check(address, type)) return allowance.allowPrivateNetworks ? undefined : 'a private network address';
  return undefined;
}
