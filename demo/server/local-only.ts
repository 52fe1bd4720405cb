/**
 * Who may reach the demo's embedded sandbox (contract §7): the sandbox's
 * keys are published and its control surface takes no key, so only this
 * machine may call them. A request forwarded by a proxy on this machine comes
 * from loopback too, but on behalf of someone else: any forwarding header
 * marks it as not local.
 */
import type { ConnectionInfo } from '../../src/http/index.js';

const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-real-ip'] as const;

/** True for an address of this machine's loopback: 127.0.0.0/8 and ::1, as IPv6 sockets show them too. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4) || address === '::1';
}

/** True for a host name the demo may listen on without being reachable from elsewhere. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || isLoopbackAddress(host.replace(/^\[|\]$/g, ''));
}

/** True when the request came straight from this machine, through no proxy. */
export function isLocalUnforwarded(request: Request, connection: ConnectionInfo | undefined): boolean {
  if (!isLoopbackAddress(connection?.clientAddress)) return false;
  return FORWARDING_HEADERS.every((name) => !request.headers.has(name));
}
