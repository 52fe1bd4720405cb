/**
 * `pay-checkout/server`: the merchant relay and the typed service client,
 * with the Node adapter to mount either on `node:http`.
 */
export { CartError } from './cart-error.js';
export {
  type CheckoutRelay,
  type CheckoutRelayOptions,
  type CheckoutRelayRateLimitOptions,
  createCheckoutRelay,
  DEFAULT_CREATE_RATE_LIMIT,
  DEFAULT_LOOKUP_RATE_LIMIT,
  LOOKUP_SECRET_MIN_LENGTH,
  type PriceCart,
  RELAY_MAX_BODY_BYTES,
} from './checkout-relay.js';
export { type CorsPolicy, createCorsPolicy } from './cors.js';
export { createIdempotencyScope, type IdempotencyScope } from './idempotency-scope.js';
export {
  type CheckResult,
  type ClaimOptions,
  type CreateAnswer,
  type CreateIntent,
  type CreateRequestBody,
  type CreatingEntry,
  DEFAULT_RETENTION_MS,
  type DeliveryFailure,
  type FulfilmentSummary,
  JOURNAL_PHASE,
  type Journal,
  type JournalEntry,
  type JournalOutcome,
  type JournalPhase,
  type PendingEntry,
  type SettledEntry,
  type WatchingEntry,
} from './journal/journal.js';
export { JournalDriverMissingError, type OpenJournalOptions, openJournal } from './journal/open-journal.js';
export { createLookupTokens, type LookupTokens } from './lookup-token.js';
export {
  listen,
  type NodeListener,
  type NodeListenerOptions,
  type NodeRequestContext,
  type RunningServer,
  toNodeListener,
  type WebHandler,
} from './node-adapter.js';
export { createNodeFetch, type NodeFetchOptions } from './node-fetch.js';
export type { PricedLineItem } from './priced-line-items.js';
export {
  createMemoryRateLimitStore,
  type MemoryRateLimitStoreOptions,
  type RateLimitDecision,
  type RateLimitStore,
  type TokenBucketRule,
  type TokenBucketState,
  takeToken,
} from './rate-limiter.js';
export type {
  CheckoutRelayEvent,
  CheckoutRelayEventHandler,
  RelayRoute,
  RelayWarningCode,
} from './relay-events.js';
export {
  createServiceClient,
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_MS,
  type OrderListOptions,
  type OrderPageRequest,
  type ServiceClient,
  type ServiceClientOptions,
  type ServiceRequestOptions,
  type ServiceWriteOptions,
} from './service-client.js';
export {
  CLIENT_ERROR_CODES,
  ServiceApiError,
  ServiceAuthenticationError,
  ServiceError,
  type ServiceErrorDetails,
  ServiceIdempotencyError,
  ServiceInvalidRequestError,
  ServiceNetworkError,
  ServiceNotFoundError,
  ServicePermissionError,
  ServiceRateLimitError,
  ServiceTimeoutError,
} from './service-errors.js';
export type {
  Money,
  Order,
  OrderCreateAnswer,
  OrderCreateInput,
  OrderLookupAnswer,
  OrderPageAnswer,
  OrderWithPayment,
  ProductLineItem,
  UnshownRecordAnswer,
} from './service-schemas.js';
