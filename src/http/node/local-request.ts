/**
 * Who may reach a sandbox inside a Vite server or `pay-checkout serve`. Its keys are published and
 * its control surface takes no key, so, as in the demo,
 * only this machine may call it: a loopback peer, no
 * forwarding header (a proxy on this machine speaks for someone else), and a
 * `Host` that names loopback. The last one matters because Vite leaves out
 * its own host check with `server.https` or `allowedHosts: true` (Vite 8,
 * `hostValidationMiddleware`): a page of another site that rebinds its DNS
 * name to 127.0.0.1 then reaches us from loopback, with its own name as `Host`.
 */
import type { IncomingMessage } from 'node:http';
import { FORWARDING_HEADERS, isLoopbackAddress } from '../loopback.js';

/** True for a `Host` value (port allowed) that names this machine's loopback. */
function isLoopbackHostHeader(host: string | undefined): boolean {
  if (host === undefined) return false;
  const name = host
    .toLowerCase()
    .replace(/:\d+$/, '')
    .replace(/^\[(.*)\]$/, '$1');
  return name === 'localhost' || name.endsWith('.localhost') || isLoopbackAddress(name);
}

/** True when the request came straight from this machine, through no proxy, under a loopback name. */
export function isLocalRequest(request: IncomingMessage): boolean {
  return (
    isLoopbackAddress(request.socket.remoteAddress) &&
    isLoopbackHostHeader(request.headers.host) &&
    FORWARDING_HEADERS.every((name) => request.headers[name] === undefined)
  );
}
