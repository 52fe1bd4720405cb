/**
 * `pay-checkout/server` on web runtimes (the `default` export condition,
 * which edge bundlers take): the merchant relay and the typed service client,
 * web-standard, with no `node:` module anywhere in this entry's graph, so it
 * bundles with nothing external. `listen` and `openJournal`'s SQLite and
 * PostgreSQL stores need Node: they keep their names and types here, and
 * reject with what to use instead. On Node the `node` condition gives
 * node.ts (index.ts, whose relay calls the service through undici).
 */
import { type NodeListener, toNodeListener } from '../http/node/node-listener.js';
import { webListen } from '../http/web-listen.js';
import { assembleCheckoutRelay, type CheckoutRelayOn } from './checkout-relay.js';
import type { CheckoutRelayOptions } from './relay-config.js';

export type { ConnectionInfo, WebHandler } from '../http/handler.js';
export type { RunningServer } from '../http/node/listen.js';
export { type NodeListener, type NodeListenerOptions, toNodeListener } from '../http/node/node-listener.js';
export type { Clock } from '../shared/clock.js';
export type {
  ServerCheckout,
  ServerCheckoutInput,
  ServerCheckoutLineItem,
  ServerCheckoutStatus,
  ServerCheckouts,
} from './checkouts/server-checkout.js';
export type { FulfilmentEvent } from './events/fulfilment-events.js';
export type { CheckoutRelayEvent, CheckoutRelayEventHandler } from './events/relay-events.js';
export type { CheckoutOrder, FulfilledOrder } from './fulfilment/fulfilled-order.js';
export type { FulfilmentRunner, FulfilmentTick } from './fulfilment/fulfilment-runner.js';
export type { CheckoutOrders } from './fulfilment/order-records.js';
export {
  DEFAULT_APPROVAL_WINDOW_MS,
  DEFAULT_CALLBACK_TIMEOUT_MS,
  DEFAULT_CREATE_GRACE_MS,
  DEFAULT_MAX_WATCH_MS,
  DEFAULT_SWEEP_INTERVAL_MS,
  DEFAULT_WATCH_INTERVAL_MS,
  type FulfilmentCallback,
  type FulfilmentOptions,
  type WatchOptions,
} from './fulfilment/watch-settings.js';
export {
  type CheckoutLineItem,
  type CheckResult,
  type Claimed,
  type ClaimOptions,
  type CreateAnswer,
  type CreateIntent,
  type CreateRequestBody,
  type CreatingEntry,
  DEFAULT_RETENTION_MS,
  type DeliveryFailure,
  type ExpiredOrder,
  type FulfilmentSummary,
  JOURNAL_PHASE,
  type Journal,
  type JournalAttempt,
  type JournalCheckout,
  type JournalEntry,
  type JournalOrder,
  type JournalOutcome,
  type JournalPhase,
  type OrderAmount,
  type OrderDetails,
  type PendingEntry,
  type ServiceReading,
  type SettledEntry,
  type WatchingEntry,
} from './journal/journal.js';
export {
  type JournalClock,
  JournalDriverMissingError,
  type OpenJournalOptions,
} from './journal/journal-url.js';
export { openJournal } from './journal/web-journal.js';
export type {
  ClientAddressOption,
  TrustProxy,
  TrustProxyOptions,
} from './limits/client-address/client-address.js';
export type { ForwardingHeader } from './limits/client-address/forwarded-for.js';
export {
  createMemoryRateLimitStore,
  type MemoryRateLimitStore,
  type MemoryRateLimitStoreOptions,
} from './limits/memory-rate-limit-store.js';
export {
  type RateLimitDecision,
  type RateLimitStore,
  type SlidingWindowRule,
  type SlidingWindowState,
  type TokenBucketRule,
  type TokenBucketState,
  takeToken,
  takeWindowSlot,
} from './limits/rate-limiter.js';
export {
  createRedisRateLimitStore,
  type RedisRateLimitStoreOptions,
  type RedisScriptClient,
} from './limits/redis-rate-limit-store.js';
export {
  type CheckoutRelayRateLimitOptions,
  DEFAULT_CREATE_RATE_LIMIT,
  DEFAULT_LOOKUP_RATE_LIMIT,
  DEFAULT_PROMPT_LIMIT,
} from './limits/relay-limit-config.js';
export type { OrderCustomer } from './lookups/customers-in-hand.js';
export { CartError, type CartErrorOptions } from './pricing/cart-error.js';
export { METADATA_LIMITS, type PriceCart, type PricedCartResult } from './pricing/priced-cart.js';
export type { PricedLineItem } from './pricing/priced-line-items.js';
export type { CheckoutRelayOptions } from './relay-config.js';
export {
  createServiceClient,
  type OrderListOptions,
  type OrderPageRequest,
  type ServiceClient,
  type ServiceRequestOptions,
  type ServiceWriteOptions,
} from './service-client/service-client.js';
export type { ServiceClientOptions } from './service-client/service-client-config.js';
export {
  ServiceApiError,
  ServiceAuthenticationError,
  ServiceError,
  ServiceIdempotencyError,
  ServiceInvalidRequestError,
  ServiceNetworkError,
  ServiceNotFoundError,
  ServicePermissionError,
  ServiceRateLimitError,
  ServiceTimeoutError,
} from './service-client/service-errors.js';
export type {
  Money,
  Order,
  OrderCreateAnswer,
  OrderCreateInput,
  OrderCreateResult,
  OrderLookupAnswer,
  OrderPageAnswer,
  OrderWithPayment,
  ProductLineItem,
  UnshownRecordAnswer,
} from './service-client/service-schemas.js';
export { createLookupTokens, type LookupTokens } from './tokens/lookup-token.js';

/** Serves a Node listener on a port: Node only (see index.ts); here it rejects. */
export const listen = webListen('pay-checkout/server');

/** The handlers {@link createCheckoutRelay} returns, `node` being `handle` as a `node:http` listener. */
export type CheckoutRelay = CheckoutRelayOn<NodeListener>;

/**
 * Creates the relay. Throws a TypeError with a clear message, at startup, for
 * a missing, publishable or malformed key, a missing `priceCart` or `baseUrl`,
 * a short `lookupSecret`, or a bad `allowedOrigins` entry or rate rule.
 */
export function createCheckoutRelay(options: CheckoutRelayOptions): CheckoutRelay {
  return assembleCheckoutRelay(options, toNodeListener);
}
