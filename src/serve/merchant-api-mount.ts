/**
 * serve's merchant API (`/v1/…`, the shop backend's calls: create a checkout,
 * read it, verify an order), on the relay's own checkouts and orders, with
 * the relay's origins, proxies and, in a fleet, its Redis for counting wrong
 * keys across processes.
 */
import type { WebHandler } from '../http/handler.js';
import type { RateLimitStore } from '../server/limits/rate-limiter.js';
import { createMerchantApi } from '../server/merchant-api/merchant-api.js';
import type { CheckoutRelay } from '../server/web.js';
import type { ServeConfig } from './serve-config.js';
import { errorFields, type ServeLog } from './serve-log.js';

/** What the merchant API is built from. */
export interface MerchantApiMount {
  readonly relay: CheckoutRelay;
  readonly config: ServeConfig;
  /** `PAY_CHECKOUT_API_KEY`; `undefined`: every `/v1` request is refused. */
  readonly apiKey: string | undefined;
  /** The fleet's Redis store, when configured. */
  readonly rateLimitStore: RateLimitStore | undefined;
  readonly log: ServeLog;
}

/** The web handler of everything under `/v1/`. */
export function mountMerchantApi(mount: MerchantApiMount): WebHandler {
  const { relay, config, log } = mount;
  return createMerchantApi({
    checkouts: relay.checkouts,
    orders: relay.orders,
    apiKey: mount.apiKey,
    allowedOrigins: config.origins,
    ...(mount.rateLimitStore ? { rateLimitStore: mount.rateLimitStore } : {}),
    ...(config.trustProxy === undefined ? {} : { trustProxy: config.trustProxy }),
    onError: (error) =>
      log.write('error', 'internal_error', { route: 'merchant_api', error: errorFields(error) }),
  });
}
