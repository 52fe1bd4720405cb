/**
 * IP addresses as the relay reads them from sockets and forwarding headers,
 * parsed by hand because edge runtimes have no `node:net`. Only plain
 * literals are addresses: no zone ids, no shortened IPv4 (`127.1`), no
 * leading zeros that some parsers read as octal.
 */

/** An IPv4 address (4 bytes) or an IPv6 address (16 bytes). */
export interface IpAddress {
  readonly version: 4 | 6;
  readonly bytes: Uint8Array;
}

const IPV4 =
  /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
const HEX_GROUP = /^[0-9A-Fa-f]{1,4}$/;

/** The address `text` spells, or undefined when it is no plain IPv4 or IPv6 literal. */
export function parseIpAddress(text: string): IpAddress | undefined {
  if (text.length > 45) return undefined;
  const v4 = IPV4.exec(text);
  if (v4) return { version: 4, bytes: Uint8Array.from(v4.slice(1), Number) };
  return text.includes(':') ? parseIpv6(text) : undefined;
}

function parseIpv6(text: string): IpAddress | undefined {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const head = groupsOf(halves[0] as string);
  const tail = halves.length === 2 ? groupsOf(halves[1] as string) : [];
  if (!head || !tail) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const groups = [...head, ...new Array<number>(halves.length === 2 ? missing : 0).fill(0), ...tail];
  const bytes = new Uint8Array(16);
  groups.forEach((group, index) => {
    bytes[index * 2] = group >> 8;
    bytes[index * 2 + 1] = group & 0xff;
  });
  return { version: 6, bytes };
}

/** The 16-bit groups of one side of `::`; a trailing dotted quad counts as two groups. */
function groupsOf(part: string): number[] | undefined {
  if (part === '') return [];
  const pieces = part.split(':');
  const groups: number[] = [];
  for (let index = 0; index < pieces.length; index++) {
    const piece = pieces[index] as string;
    if (index === pieces.length - 1 && piece.includes('.')) {
      const v4 = parseIpAddress(piece);
      if (v4?.version !== 4) return undefined;
      const [a, b, c, d] = v4.bytes as unknown as [number, number, number, number];
      groups.push((a << 8) | b, (c << 8) | d);
    } else if (HEX_GROUP.test(piece)) {
      groups.push(Number.parseInt(piece, 16));
    } else {
      return undefined;
    }
  }
  return groups;
}

/** An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, how dual-stack sockets show IPv4 peers) as IPv4. */
export function unmapIpv4(address: IpAddress): IpAddress {
  if (address.version === 4) return address;
  const { bytes } = address;
  for (let index = 0; index < 10; index++) if (bytes[index] !== 0) return address;
  if (bytes[10] !== 0xff || bytes[11] !== 0xff) return address;
  return { version: 4, bytes: bytes.slice(12) };
}

/** True when the first `prefixLength` bits of `address` are those of `network` (same version). */
export function inPrefix(address: IpAddress, network: IpAddress, prefixLength: number): boolean {
  if (address.version !== network.version) return false;
  let bits = prefixLength;
  for (let index = 0; bits > 0; index++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if (((address.bytes[index] as number) & mask) !== ((network.bytes[index] as number) & mask)) return false;
  }
  return true;
}

/**
 * The rate-limit key of a client address: IPv4 as dotted quad; IPv6 by its
 * /64, since one household or one attacker's host is handed a whole /64 and
 * could otherwise take a fresh address, and a fresh allowance, per request.
 */
export function clientKeyOf(address: IpAddress): string {
  const plain = unmapIpv4(address);
  if (plain.version === 4) return plain.bytes.join('.');
  const groups: string[] = [];
  for (let index = 0; index < 8; index += 2) {
    groups.push((((plain.bytes[index] as number) << 8) | (plain.bytes[index + 1] as number)).toString(16));
  }
  return `${groups.join(':')}::/64`;
}

/** How a dual-stack socket shows an IPv4 peer. */
const MAPPED_IPV4_PREFIX = '::ffff:';

/**
 * The key of the address `text` spells, as `clientKeyOf(parseIpAddress(text))`
 * gives it, or undefined when it is no address. A plain IPv4 literal (or one
 * a dual-stack socket shows as `::ffff:` and the literal) is its own key: the
 * pattern takes no leading zeros, so the bytes joined again spell it the same.
 */
export function clientKeyOfText(text: string): string | undefined {
  if (IPV4.test(text)) return text;
  if (text.startsWith(MAPPED_IPV4_PREFIX)) {
    const quad = text.slice(MAPPED_IPV4_PREFIX.length);
    if (IPV4.test(quad)) return quad;
  }
  const address = parseIpAddress(text);
  return address && clientKeyOf(address);
}
