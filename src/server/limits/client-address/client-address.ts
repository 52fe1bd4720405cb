/**
 * The client address the relay's per-client limits are keyed by:
 * the peer the runtime saw, or, behind proxies the merchant named
 * (`trustProxy`), the rightmost address of the forwarding header that none of
 * them is. Everything left of that address was written by the client and is
 * never believed: a forged `X-Forwarded-For` neither escapes a limit nor
 * spends a victim's.
 */
import type { ConnectionInfo } from '../../../http/handler.js';
import { type ForwardingHeader, forwardedAddresses } from './forwarded-for.js';
import { clientKeyOf, clientKeyOfText, parseIpAddress } from './ip-address.js';
import { createTrustsHop, type TrustsHop } from './trusted-proxies.js';

/** The proxies in front of the relay: how many, or which addresses and ranges; and the header they write. */
export interface TrustProxyOptions {
  /** A hop count (`1`: one proxy, such as nginx) or addresses and ranges (`['10.0.0.0/8', 'loopback']`). */
  proxies: number | readonly string[];
  /** The header the proxies append the client to. Default `x-forwarded-for`; the other is ignored. */
  header?: ForwardingHeader;
}

/** `trustProxy` as given: a hop count, a list of addresses and ranges, or {@link TrustProxyOptions}. */
export type TrustProxy = number | readonly string[] | TrustProxyOptions;

/** The peer the runtime saw, as a merchant's `clientAddress` option gives it. */
export type ClientAddressOption = (request: Request, connection?: ConnectionInfo) => string | undefined;

/** The rate-limit key of a request's client; undefined when no address is known. */
export type ClientKeyOf = (request: Request, connection?: ConnectionInfo) => string | undefined;

/** Checks `trustProxy` and `clientAddress` once and gives the client key of each request. */
export function createClientKeyOf(
  trustProxy: TrustProxy | undefined,
  clientAddress: ClientAddressOption | undefined,
  name: string,
): ClientKeyOf {
  const peerOf: ClientAddressOption = clientAddress ?? ((_request, connection) => connection?.clientAddress);
  if (trustProxy === undefined) return (request, connection) => keyOf(peerOf(request, connection));
  const options: TrustProxyOptions =
    typeof trustProxy === 'number' || Array.isArray(trustProxy)
      ? { proxies: trustProxy as number | readonly string[] }
      : (trustProxy as TrustProxyOptions);
  const header = options.header ?? 'x-forwarded-for';
  if (header !== 'x-forwarded-for' && header !== 'forwarded') {
    throw new TypeError(`${name}.header is 'x-forwarded-for' or 'forwarded'.`);
  }
  const trustsHop = createTrustsHop(options.proxies, `${name}.proxies`);
  return (request, connection) =>
    behindProxies(peerOf(request, connection), request.headers, header, trustsHop);
}

/**
 * Walks from the peer leftwards through the header while each hop is a
 * trusted proxy. Each proxy appends the address of its own peer, so with N
 * trusted hops the client is the Nth entry from the right. A runtime that
 * gives no peer (`relay.handle(request)` on a platform behind its own
 * proxy): under a hop count that peer is the first trusted proxy, whatever
 * its address, and the walk is the same; under named proxies it cannot be
 * told to be one, and no address is known.
 */
function behindProxies(
  peer: string | undefined,
  headers: Headers,
  header: ForwardingHeader,
  trustsHop: TrustsHop,
): string | undefined {
  if (peer === '') return undefined;
  let current = peer === undefined ? undefined : parseIpAddress(peer);
  // A peer the merchant's clientAddress names in its own words: the client, as without trustProxy.
  if (peer !== undefined && !current) return peer;
  const chain = forwardedAddresses(headers, header);
  for (let depth = 0; depth < chain.length && trustsHop(current, depth); depth++) {
    const next = chain[chain.length - 1 - depth];
    // A hop that reported no address: the last proxy we trust is as near the client as we can know.
    if (!next) break;
    current = next;
  }
  return current && clientKeyOf(current);
}

/** The key of an address as the runtime or the merchant gave it: IPv6 by its /64, anything else as is. */
function keyOf(peer: string | undefined): string | undefined {
  if (peer === undefined || peer === '') return undefined;
  return clientKeyOfText(peer) ?? peer;
}
