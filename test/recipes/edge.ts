import { type CheckoutRelay, createCheckoutRelay } from '../../src/server/node.js';
import { relayOptions } from './relay-options.js';

let relay: CheckoutRelay | undefined;

// A Cloudflare Worker: Cloudflare names the client in cf-connecting-ip and replaces
// whatever the client sent under that name. (Deno.serve: pass `info.remoteAddr.hostname`
// as `relay.handle(request, { clientAddress })`; Bun: `server.requestIP(request)?.address`.)
/** The Worker. */
export default {
  fetch(request: Request): Promise<Response> | Response {
    relay ??= createCheckoutRelay({
      ...relayOptions,
      rateLimit: { clientAddress: (r) => r.headers.get('cf-connecting-ip') ?? undefined },
    });
    return relay.handle(request);
  },
};
