/**
 * Who may reach the demo's embedded sandbox: the sandbox's
 * keys are published and its control surface takes no key, so only this
 * machine may call them. A request forwarded by a proxy on this machine comes
 * from loopback too, but on behalf of someone else: any forwarding header
 * marks it as not local.
 */
import type { ConnectionInfo } from '../../src/http/index.js';
import { FORWARDING_HEADERS, isLoopbackAddress } from '../../src/http/loopback.js';

/** True for a host name the demo may listen on without being reachable from elsewhere. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || isLoopbackAddress(host.replace(/^\[|\]$/g, ''));
}

/** True when the request came straight from this machine, through no proxy. */
export function isLocalUnforwarded(request: Request, connection: ConnectionInfo | undefined): boolean {
  if (!isLoopbackAddress(connection?.clientAddress)) return false;
  return FORWARDING_HEADERS.every((name) => !request.headers.has(name));
}
