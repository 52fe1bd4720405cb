import { type CheckoutRelay, createCheckoutRelay } from 'pay-checkout/server';
import { priceCart } from '../../../../lib/cart';

// Made at the first request, not on import: `next build` loads this module to read its
// configuration, without the server's environment, and a relay without its key refuses to start.
let relay: CheckoutRelay | undefined;

/** POST /api/checkout/orders and /api/checkout/lookup. */
export function POST(request: Request): Promise<Response> | Response {
  relay ??= createCheckoutRelay({
    secretKey: process.env.PAY_SECRET_KEY ?? '',
    baseUrl: process.env.PAY_API_BASE_URL ?? '',
    lookupSecret: process.env.PAY_LOOKUP_SECRET,
    priceCart,
    // Route handlers get no socket address: on Vercel, x-real-ip is the client as Vercel's edge
    // saw it (it replaces what the client sent). Self-hosted behind nginx, set
    // `proxy_set_header X-Real-IP $remote_addr;` and let nothing but nginx reach Next.js.
    rateLimit: { clientAddress: (r) => r.headers.get('x-real-ip') ?? undefined },
  });
  return relay.handle(request);
}

/** Preflights, for the origins the relay allows. */
export const OPTIONS = POST;
