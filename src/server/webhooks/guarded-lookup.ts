/**
 * The `lookup` a webhook connection resolves its target with (Node's
 * `net.connect` option): it resolves the name once, refuses the connection
 * when no address is public, and hands `net.connect` only the address it
 * checked. The check and the connection read one answer, so a name whose
 * answer changes between them (DNS rebinding) cannot reach a private
 * address; every new connection resolves and checks again.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { describeAddressKind, type RefusedAddressKind, refusedAddressKind } from './target-address.js';

/** The refusal of a target, raised inside the connection's lookup. */
export class RefusedTargetError extends Error {
  override name = 'RefusedTargetError';
}

/** Resolves a name to all its addresses. */
export type ResolveAll = (hostname: string) => Promise<LookupAddress[]>;

/** What a guarded lookup asks: the resolver, and the rule of refused addresses. */
export interface LookupGuard {
  /** Default: `dns.lookup` with `all: true`, as `net.connect` itself resolves. */
  resolve?: ResolveAll;
  /** Default: private, loopback, link-local and the other ranges of target-address.ts. */
  refusedKind?: (address: string) => RefusedAddressKind | null;
}

type LookupCallback = (error: Error | null, address: string | LookupAddress[], family?: number) => void;

/** A `lookup` function for `net.connect` and `tls.connect`. */
export type GuardedLookup = (hostname: string, options: { all?: boolean }, callback: LookupCallback) => void;

const systemResolve: ResolveAll = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
  );

/** A lookup that connects only to a checked, public address of the name. */
export function createGuardedLookup(guard: LookupGuard = {}): GuardedLookup {
  const { resolve = systemResolve, refusedKind = refusedAddressKind } = guard;
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const allowed = addresses.find((entry) => refusedKind(entry.address) === null);
        if (!allowed) {
          const first = addresses[0];
          const kind = first && refusedKind(first.address);
          const why = first && kind ? `${first.address}, ${describeAddressKind(kind)}` : 'no address';
          return callback(new RefusedTargetError(`target refused: ${hostname} resolves to ${why}`), []);
        }
        // Node 20's connect asks for all addresses (to race the families); older callers for one.
        if (options.all) return callback(null, [allowed]);
        callback(null, allowed.address, allowed.family);
      },
      (error: Error) => callback(error, []),
    );
  };
}
