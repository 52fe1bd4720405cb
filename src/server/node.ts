/**
 * `pay-checkout/server` on Node (the `node` condition of the package's
 * exports): the same names as the web entry (web.ts), with the Node pieces
 * working (index.ts: `listen`, the SQLite and PostgreSQL journals), and a
 * relay made here with no `fetch` calls the service through undici's
 * `request` over a keep-alive pool, which costs a fraction of the CPU of the
 * global fetch per call; webhooks are sent through undici too
 * (webhooks/webhook-sender.ts). Edge bundlers never take this entry, so undici never
 * reaches their bundles. Bun and Deno read the `node` condition too; there
 * the relay keeps their own fetch. Both entries give the relay its Node
 * listener (`relay.node`); the relay itself (checkout-relay.ts) never loads it.
 */
import { toNodeListener } from '../http/node/node-listener.js';
import { createUndiciTransport } from '../http/node/undici-transport.js';
import type { HttpTransport } from '../http/transport.js';
import { assembleCheckoutRelay } from './checkout-relay.js';
import { isNodeRuntime } from './is-node-runtime.js';
import type { CheckoutRelayOptions } from './relay-config.js';
import type { CheckoutRelay } from './web.js';
import { sendWebhook } from './webhooks/webhook-sender.js';

export * from './index.js';

let undiciTransport: HttpTransport | undefined;

/**
 * Creates the relay; on Node, without a `fetch` option, it calls the service
 * through undici. Throws a TypeError at startup for bad options.
 */
export function createCheckoutRelay(options: CheckoutRelayOptions): CheckoutRelay {
  if (!isNodeRuntime()) return assembleCheckoutRelay(options, toNodeListener, undefined, sendWebhook);
  undiciTransport ??= createUndiciTransport();
  return assembleCheckoutRelay(options, toNodeListener, undiciTransport, sendWebhook);
}
