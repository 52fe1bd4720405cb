import { type CheckoutRelay, createCheckoutRelay } from '../../src/server/node.js';
import { relayOptions } from './relay-options.js';

// app/api/checkout/[action]/route.ts (the whole file: examples/nextjs). Made at the first request:
// `next build` loads this module without the server's environment, and a relay without its key
// refuses to start.
let relay: CheckoutRelay | undefined;

/** Creates and lookups; preflights too (OPTIONS). */
export function POST(request: Request): Promise<Response> | Response {
  relay ??= createCheckoutRelay({
    ...relayOptions,
    // Route handlers get no socket address: on Vercel, x-real-ip is the client as Vercel's edge
    // saw it (it replaces what the client sent). Self-hosted behind nginx, set
    // `proxy_set_header X-Real-IP $remote_addr;` and let nothing but nginx reach Next.js.
    rateLimit: { clientAddress: (r) => r.headers.get('x-real-ip') ?? undefined },
  });
  return relay.handle(request);
}
export const OPTIONS = POST;
