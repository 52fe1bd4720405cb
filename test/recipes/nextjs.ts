import { createCheckoutRelay } from '../../src/server/node.js';
import { relayOptions } from './relay-options.js';

// app/api/checkout/[action]/route.ts. Route handlers get no socket address: on Vercel,
// x-real-ip is the client as Vercel's edge saw it (it replaces what the client sent).
// Self-hosted behind nginx, set `proxy_set_header X-Real-IP $remote_addr;` and let
// nothing but nginx reach the Next.js server.
const relay = createCheckoutRelay({
  ...relayOptions,
  rateLimit: { clientAddress: (request) => request.headers.get('x-real-ip') ?? undefined },
});

/** Creates and lookups; preflights too (OPTIONS). */
export const POST = (request: Request) => relay.handle(request);
export const OPTIONS = POST;
