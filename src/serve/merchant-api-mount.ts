/**
 * Where serve mounts the merchant API (`/v1/…`, the shop backend's calls:
 * create a checkout, read it, verify an order). MOUNT POINT: until the
 * merchant API module is part of this package, every `/v1` request is
 * answered `404`, so a backend never mistakes an unmounted API for one that
 * refused it.
 */
import type { WebHandler } from '../http/handler.js';
import { errorResponse } from '../http/http-error.js';
import type { CheckoutRelay } from '../server/web.js';

/** What the merchant API is built from. */
export interface MerchantApiMount {
  readonly relay: CheckoutRelay;
  /** `PAY_CHECKOUT_API_KEY`; `undefined`: every `/v1` request is refused. */
  readonly apiKey: string | undefined;
  readonly allowedOrigins: readonly string[];
}

/** The web handler of everything under `/v1/`. */
export function mountMerchantApi(_mount: MerchantApiMount): WebHandler {
  return () => errorResponse('resourceNotFound', 'No merchant API here yet.');
}
