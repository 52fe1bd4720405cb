/**
 * What the create and lookup handlers read of the relay's checked options
 * (relay-config.ts builds it, with more for the routes and the watcher),
 * and the largest body they read.
 */
import type { LimitsConfig } from '../limits/relay-limits.js';
import type { PriceCart } from '../pricing/priced-cart.js';
import type { ServiceClient } from '../service-client/service-client.js';
import type { AttemptDigests } from '../tokens/attempt-digest.js';
import type { IdempotencyScope, ServiceKeyScope } from '../tokens/idempotency-scope.js';
import type { LookupTokens } from '../tokens/lookup-token.js';

/** Largest body the relay reads (`413` above 16 KiB). */
export const RELAY_MAX_BODY_BYTES = 16 * 1024;

/** Everything the relay's handlers read, checked: the limits, the service client, the merchant's `priceCart`, the tokens. */
export interface HandlerConfig extends LimitsConfig {
  readonly client: ServiceClient;
  readonly priceCart: PriceCart;
  readonly lookupTokens: LookupTokens;
  readonly scopeIdempotencyKey: IdempotencyScope;
  /** The key the service sees for one attempt: the shopper's key bound to the attempt's digest. */
  readonly serviceKeyOf: ServiceKeyScope;
  /** Keyed digests of an attempt and of one checkout's prompts to one number. */
  readonly attemptDigests: AttemptDigests;
}
