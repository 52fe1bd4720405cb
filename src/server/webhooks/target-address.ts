/**
 * Which addresses a webhook may not reach unless the configuration allows
 * private targets: a URL a shop typed must not let a request reach the
 * relay's own host, its network or the cloud's metadata service. IPv6
 * forms that carry an IPv4 address (mapped, NAT64, 6to4) are judged by the
 * IPv4 address inside.
 */
import { isIPv4, isIPv6 } from 'node:net';

/** Why an address is refused. */
export type RefusedAddressKind =
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'unspecified'
  | 'shared (CGNAT)'
  | 'multicast'
  | 'reserved';

type Range = readonly [base: number, bits: number, kind: RefusedAddressKind];

const IPV4_RANGES: readonly Range[] = [
  [0x00000000, 8, 'unspecified'], // 0.0.0.0/8
  [0x0a000000, 8, 'private'], // 10.0.0.0/8
  [0x64400000, 10, 'shared (CGNAT)'], // 100.64.0.0/10
  [0x7f000000, 8, 'loopback'], // 127.0.0.0/8
  [0xa9fe0000, 16, 'link-local'], // 169.254.0.0/16
  [0xac100000, 12, 'private'], // 172.16.0.0/12
  [0xc0000000, 24, 'reserved'], // 192.0.0.0/24, protocol assignments
  [0xc0000200, 24, 'reserved'], // 192.0.2.0/24, documentation
  [0xc0586300, 24, 'reserved'], // 192.88.99.0/24, 6to4 relays
  [0xc0a80000, 16, 'private'], // 192.168.0.0/16
  [0xc6120000, 15, 'reserved'], // 198.18.0.0/15, benchmarking
  [0xc6336400, 24, 'reserved'], // 198.51.100.0/24, documentation
  [0xcb007100, 24, 'reserved'], // 203.0.113.0/24, documentation
  [0xe0000000, 4, 'multicast'], // 224.0.0.0/4
  [0xf0000000, 4, 'reserved'], // 240.0.0.0/4 and the broadcast address
];

/** The IPv4 address as an unsigned 32-bit number. */
function ipv4Number(address: string): number {
  return address.split('.').reduce((value, part) => value * 256 + Number(part), 0);
}

/** Why an IPv4 address is refused, or null when it is public. */
function ipv4Kind(value: number): RefusedAddressKind | null {
  for (const [base, bits, kind] of IPV4_RANGES) {
    const shift = 32 - bits;
    if (Math.floor(value / 2 ** shift) === Math.floor(base / 2 ** shift)) return kind;
  }
  return null;
}

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 part included). */
function ipv6Groups(address: string): number[] {
  let text = address.replace(/%.*$/, '').toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    const value = ipv4Number(dotted[1]);
    text = `${text.slice(0, -dotted[1].length)}${(value >>> 16).toString(16)}:${(value & 0xffff).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const front = head ? head.split(':') : [];
  const back = tail ? tail.split(':') : [];
  const middle = tail === undefined ? [] : Array(8 - front.length - back.length).fill('0');
  return [...front, ...middle, ...back].map((group) => Number.parseInt(group, 16));
}

/** Why an IPv6 address is refused, or null when it is public. */
function ipv6Kind(groups: number[]): RefusedAddressKind | null {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = groups;
  const embedded = (g6 * 0x10000 + g7) >>> 0;
  const zeroTo4 = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  if (zeroTo4 && g5 === 0 && g6 === 0 && (g7 === 0 || g7 === 1)) return g7 === 0 ? 'unspecified' : 'loopback';
  if (zeroTo4 && g5 === 0xffff) return ipv4Kind(embedded) ?? null; // ::ffff:a.b.c.d, IPv4-mapped
  if (zeroTo4 && g5 === 0) return 'reserved'; // ::a.b.c.d, the deprecated IPv4-compatible form
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return ipv4Kind(embedded);
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) return 'private'; // 64:ff9b:1::/48, local NAT64
  if (g0 === 0x2002) return ipv4Kind((g1 * 0x10000 + g2) >>> 0); // 6to4 carries an IPv4 address
  if ((g0 & 0xfe00) === 0xfc00) return 'private'; // fc00::/7, unique local
  if ((g0 & 0xffc0) === 0xfe80) return 'link-local'; // fe80::/10
  if ((g0 & 0xffc0) === 0xfec0) return 'private'; // fec0::/10, site-local
  if ((g0 & 0xff00) === 0xff00) return 'multicast'; // ff00::/8
  if (g0 === 0x2001 && g1 === 0x0db8) return 'reserved'; // documentation
  if (g0 === 0x2001 && g1 === 0) return 'reserved'; // Teredo tunnels carry another address
  if (g0 === 0x0100 && g1 === 0 && g2 === 0 && g3 === 0) return 'reserved'; // 100::/64, discard
  return null;
}

/** Why `address` (an IP literal) is refused as a webhook target, or null when it is public. */
export function refusedAddressKind(address: string): RefusedAddressKind | null {
  const bare = address.replace(/^\[|\]$/g, '');
  if (isIPv4(bare)) return ipv4Kind(ipv4Number(bare));
  if (isIPv6(bare)) return ipv6Kind(ipv6Groups(bare));
  return 'reserved';
}

/** "a loopback address", "an unspecified address": the kind as the end of a sentence. */
export function describeAddressKind(kind: RefusedAddressKind): string {
  return `${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind} address`;
}
