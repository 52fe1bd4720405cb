/**
 * Which peers the relay believes about the client behind them (`trustProxy`):
 * a hop count, or addresses and ranges. Checked once at
 * startup, so a typo is a TypeError then, not a silently trusted internet.
 */
import { type IpAddress, inPrefix, parseIpAddress, unmapIpv4 } from './ip-address.js';

/** Named ranges a merchant may trust by name. */
const NAMED_RANGES: Readonly<Record<string, readonly string[]>> = {
  loopback: ['127.0.0.0/8', '::1/128'],
  private: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
};

/**
 * Whether the peer `depth` hops from us (0 is the socket's peer) is a proxy
 * we trust; `address` is undefined for a peer the runtime did not give.
 */
export type TrustsHop = (address: IpAddress | undefined, depth: number) => boolean;

interface Range {
  network: IpAddress;
  prefixLength: number;
}

/** The trust test of `proxies`: a hop count, or addresses, CIDR ranges and the names above. */
export function createTrustsHop(proxies: number | readonly string[], name: string): TrustsHop {
  if (typeof proxies === 'number') {
    if (!Number.isInteger(proxies) || proxies < 0 || proxies > 32) {
      throw new TypeError(
        `${name}: a hop count is a whole number from 0 to 32 (the proxies in front of the relay).`,
      );
    }
    return (_address, depth) => depth < proxies;
  }
  if (!Array.isArray(proxies)) {
    throw new TypeError(
      `${name}: give a hop count or a list of addresses and ranges ('10.0.0.0/8', 'loopback').`,
    );
  }
  const ranges = proxies.flatMap((entry: unknown) => rangesOf(entry, name));
  return (address) => {
    // Named proxies are told by their address: a peer without one is none of them.
    if (address === undefined) return false;
    const plain = unmapIpv4(address);
    return ranges.some((range) => inPrefix(plain, range.network, range.prefixLength));
  };
}

function rangesOf(entry: unknown, name: string): Range[] {
  if (typeof entry !== 'string') throw new TypeError(`${name}: every entry is a string.`);
  const named = NAMED_RANGES[entry];
  if (named) return named.map((range) => rangesOf(range, name)[0] as Range);
  const [text, prefix, extra] = entry.split('/');
  const network = parseIpAddress(text ?? '');
  const maxLength = network?.version === 4 ? 32 : 128;
  const prefixLength = prefix === undefined ? maxLength : /^\d{1,3}$/.test(prefix) ? Number(prefix) : -1;
  if (!network || extra !== undefined || prefixLength < 0 || prefixLength > maxLength) {
    throw new TypeError(
      `${name}: "${entry}" is no address or range; use '203.0.113.7', '10.0.0.0/8', '2001:db8::/32', 'loopback', 'private' or 'linklocal'.`,
    );
  }
  return [{ network, prefixLength }];
}
