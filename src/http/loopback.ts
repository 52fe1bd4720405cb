/**
 * This machine's loopback, as a socket shows a peer: the demo's and the Vite
 * plugin's sandboxes answer only callers that come from it, straight, since
 * their keys are published and their control surface takes no key.
 */

/** Headers a proxy adds: a request that carries one speaks for someone else, even from loopback. */
export const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-real-ip'] as const;

/** True for 127.0.0.0/8 and ::1, as IPv4 and IPv6 sockets show them. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4) || address === '::1';
}
