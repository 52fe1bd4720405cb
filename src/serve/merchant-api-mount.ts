/**
 * Where serve mounts the merchant API (`/v1/…`, the shop backend's calls:
 * create a checkout, read it, verify an order), on the relay's own
 * checkouts and journal orders.
 */
import type { WebHandler } from '../http/handler.js';
import { createMerchantApi } from '../server/merchant-api/merchant-api.js';
import type { CheckoutRelay } from '../server/web.js';

/** What the merchant API is built from. */
export interface MerchantApiMount {
  readonly relay: CheckoutRelay;
  /** `PAY_CHECKOUT_API_KEY`; `undefined`: every `/v1` request is refused. */
  readonly apiKey: string | undefined;
  readonly allowedOrigins: readonly string[];
}

/** The web handler of everything under `/v1/`. */
export function mountMerchantApi(mount: MerchantApiMount): WebHandler {
  return createMerchantApi({
    checkouts: mount.relay.checkouts,
    orders: mount.relay.orders,
    apiKey: mount.apiKey,
    allowedOrigins: mount.allowedOrigins,
  });
}
