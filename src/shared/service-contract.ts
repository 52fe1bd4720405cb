/**
 * Where the payments service specification says "not shown", these are the
 * choices our sandbox, service client, relay and element make. A fuller
 * specification changes this one file.
 *
 * Pure constants: safe to import from the browser and from the server.
 */

/** Header that carries an idempotency key on every write (the service's interface leaves the name open). */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** Header set on an answer replayed from an earlier request with the same key. */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

/** How long the service keeps an idempotency key. */
export const IDEMPOTENCY_KEY_RETENTION_MS = 24 * 60 * 60 * 1000;

/** Idempotency keys accepted on the wire: 16–255 characters of `[A-Za-z0-9_-]`. */
export const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9_-]{16,255}$/;

/** Money `value` is an integer count of minor units (pesewas for `ghs`); the service's interface leaves the unit open. */
export const MONEY_VALUE_UNIT = 'minor';

/** Currencies the service accepts (lowercase). */
export const CURRENCIES = ['ghs'] as const;
/** One of the accepted currencies. */
export type Currency = (typeof CURRENCIES)[number];

/** The service's `issuer` codes and their type, kept where the wire's other rules are: the keys of the network table. */
export { ISSUERS, type Issuer } from './networks.js';

/** Smallest page size every `/page` endpoint accepts. */
export const PAGE_SIZE_MIN = 1;
/** Largest page size every `/page` endpoint accepts; more is `400`. */
export const PAGE_SIZE_MAX = 256;

/** Session lifetime after a key is checked. */
export const SESSION_LIFETIME_MS = 60 * 60 * 1000;

/** Order statuses. */
export const ORDER_STATUS = {
  requiresPayment: 'requires_payment',
  completed: 'completed',
} as const;

/**
 * Payment statuses. `paid` is success; `failed`, `cancelled` and `expired` are
 * terminal failures; any other value, known or not, is still pending.
 * `not_started` is the payment of an order created with `execute_payment: false`.
 */
export const PAYMENT_STATUS = {
  notStarted: 'not_started',
  requiresAction: 'requires_action',
  paid: 'paid',
  failed: 'failed',
  cancelled: 'cancelled',
  expired: 'expired',
} as const;

/** One of the PAYMENT_STATUS values. */
type PaymentStatus = (typeof PAYMENT_STATUS)[keyof typeof PAYMENT_STATUS];

/**
 * The terminal failures, written out rather than read from PAYMENT_STATUS:
 * the browser bundle, which only classifies, then carries no table.
 */
const TERMINAL_FAILURE_STATUSES: readonly string[] = [
  'failed',
  'cancelled',
  'expired',
] satisfies PaymentStatus[];

/** What a poller should make of a payment status it read. */
export type PaymentOutcome = 'paid' | 'failed' | 'pending';

/** Classifies a payment status string; unknown values keep the poll going. */
export function classifyPaymentStatus(status: string): PaymentOutcome {
  if (status === ('paid' satisfies PaymentStatus)) return 'paid';
  if (TERMINAL_FAILURE_STATUSES.includes(status)) return 'failed';
  return 'pending';
}

/** Error codes, types and HTTP statuses (the service's, and ours for those its interface leaves open). */
export const SERVICE_ERRORS = {
  authenticationFailed: { status: 401, code: 'authentication_failed', type: 'authentication_error' },
  // The merchant API's Bearer key is missing or wrong (`WWW-Authenticate: Bearer` beside it).
  invalidApiKey: { status: 401, code: 'invalid_api_key', type: 'authentication_error' },
  permissionDenied: { status: 403, code: 'permission_denied', type: 'authorization_error' },
  invalidRequest: { status: 400, code: 'invalid_request', type: 'invalid_request_error' },
  resourceNotFound: { status: 404, code: 'resource_not_found', type: 'invalid_request_error' },
  methodNotAllowed: { status: 405, code: 'method_not_allowed', type: 'invalid_request_error' },
  idempotencyRequestInProgress: {
    status: 409,
    code: 'idempotency_request_in_progress',
    type: 'idempotency_error',
  },
  // A Node listener's own answer to a request whose headers or body stopped arriving.
  requestTimeout: { status: 408, code: 'request_timeout', type: 'invalid_request_error' },
  payloadTooLarge: { status: 413, code: 'payload_too_large', type: 'invalid_request_error' },
  unsupportedMediaType: { status: 415, code: 'unsupported_media_type', type: 'invalid_request_error' },
  idempotencyKeyReused: { status: 422, code: 'idempotency_key_reused', type: 'idempotency_error' },
  // The relay prices the cart otherwise than the amount the shopper saw (`expected_amount`): no prompt was sent.
  amountChanged: { status: 409, code: 'amount_changed', type: 'invalid_request_error' },
  // The sandbox's control surface: approving or declining a payment that is already final.
  paymentNotPending: { status: 409, code: 'payment_not_pending', type: 'invalid_request_error' },
  // A checkout's client secret the relay cannot open: unknown, malformed, wrong, or from another origin.
  checkoutNotFound: { status: 404, code: 'checkout_not_found', type: 'invalid_request_error' },
  // A new attempt for a server-created checkout already paid, or past its expiry.
  checkoutPaid: { status: 409, code: 'checkout_paid', type: 'invalid_request_error' },
  checkoutExpired: { status: 409, code: 'checkout_expired', type: 'invalid_request_error' },
  rateLimited: { status: 429, code: 'rate_limited', type: 'rate_limit_error' },
  // The prompt limit: payment prompts to one mobile-money number, whoever sends them.
  tooManyPaymentRequests: { status: 429, code: 'too_many_payment_requests', type: 'rate_limit_error' },
  internalError: { status: 500, code: 'internal_error', type: 'api_error' },
  upstreamFailed: { status: 502, code: 'service_unavailable', type: 'api_error' },
  // The relay is shutting down (`close()` began): try again, another process or the restarted one answers.
  relayClosing: { status: 503, code: 'service_unavailable', type: 'api_error' },
  // The order journal did not answer in time: the create was not sent, retry it with the same key.
  journalTooSlow: { status: 503, code: 'service_unavailable', type: 'api_error' },
} as const;

/** The name of one entry of SERVICE_ERRORS. */
export type ServiceErrorKind = keyof typeof SERVICE_ERRORS;

/** The error body every piece answers with (the service's error shape, plus `param` for invalid input). */
export interface ErrorBody {
  error: { code: string; message: string; type: string; param?: string };
}

/*
 * Service client choices (pay-checkout/server) where the service's interface leaves the wire open.
 */

/** Header a service answer may carry with its request identifier, quoted in errors for support. */
export const REQUEST_ID_HEADER = 'Request-Id';

/** Header of a `429` answer: seconds (or an HTTP date) to wait before trying again. */
export const RETRY_AFTER_HEADER = 'Retry-After';

/** Secret key prefixes: only these may call the service from a server. */
export const SECRET_KEY_PREFIXES = ['sk_test_', 'sk_live_'] as const;
/** Publishable key prefixes: refused by the service client and the relay. */
export const PUBLISHABLE_KEY_PREFIXES = ['pk_test_', 'pk_live_'] as const;

/**
 * Bodies of the lookup endpoints: `/orders/lookup` takes `order_id`;
 * the OTP and chime bodies are not shown, so they follow the same pattern.
 */
export const LOOKUP_ID_FIELDS = {
  orders: 'order_id',
  otp: 'otp_id',
  chimes: 'chime_id',
} as const;

/**
 * `/orders/new` answers the way `/orders/lookup` does (the service's interface
 * does not show the creation answer): `{ order }` with the nested `payment`.
 */
export const ORDER_CREATE_ANSWER_FIELD = 'order';

/** Page size the service client's `orders.list()` uses unless told (the service recommends 25 to 100). */
export const DEFAULT_LIST_PAGE_SIZE = 100;

// ---------------------------------------------------------------------------
// Choices of the sandbox (`pay-checkout/sandbox`) where the spec says "not shown".
// The service client and relay read these too, so a fuller spec changes them here.
// ---------------------------------------------------------------------------

/** Largest JSON body the service accepts on any endpoint; more is `413`. */
export const SERVICE_MAX_BODY_BYTES = 64 * 1024;

/**
 * Deepest nesting of objects and arrays in a JSON body the service accepts;
 * deeper is `400`. Every valid body is a few levels deep, and code that walks
 * a body (the idempotency fingerprint) must not run out of stack on a hostile one.
 */
export const SERVICE_MAX_JSON_DEPTH = 32;

/**
 * Idempotency keys the service accepts (its interface leaves the form open): 1–255
 * visible ASCII characters, so a relay may prefix the shopper's key with a scope.
 * Anything else is `400` with `param: "Idempotency-Key"`.
 */
export const SERVICE_IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7E]{1,255}$/;

/**
 * Which answers an idempotency key keeps: only those of a write that ran (the
 * `200` of a create). Like Stripe, a `400` for invalid input, a `401`/`403`, a
 * `409` or a `422` is not kept, so the same key can be retried with a corrected body.
 */
export const IDEMPOTENCY_STORES_ERROR_ANSWERS = false;

/** Identifier prefixes (the service's `or_` and `py_`; those of OTPs and chimes are ours). */
export const ID_PREFIX = {
  order: 'or_',
  customer: 'py_',
  otp: 'otp_',
  chime: 'ch_',
  session: 'ses_',
} as const;

/** Length of the random base62 part after an identifier's prefix. */
export const ID_RANDOM_LENGTH = 24;

/**
 * Order identifiers the element, the relay and the sandbox's lookup accept:
 * the service's `or_` prefix; the characters and the length bound are ours.
 */
export const ORDER_ID_PATTERN = /^or_[A-Za-z0-9_-]{1,64}$/;

/** HTTP status of a successful `/orders/new`; the body is `{ order }`, the same order lookup returns. */
export const ORDER_CREATED_STATUS = 200;

/**
 * `line_item_group.products_count` counts units: the sum of every line item's
 * `quantity` (2 × coffee + 1 × bread = 3).
 */
export const PRODUCTS_COUNT_COUNTS = 'units';

/**
 * Longest customer name, trimmed. One limit for the element's form, the
 * relay's wire schema and the service's order input: the checkout never
 * sends on a name the service would refuse.
 */
export const CUSTOMER_NAME_MAX_LENGTH = 120;

/** Limits of the order creation input (the service's interface does not show them). */
export const ORDER_INPUT_LIMITS = {
  customerNameMaxLength: CUSTOMER_NAME_MAX_LENGTH,
  lineItemsMax: 100,
  productNameMaxLength: 200,
  quantityMax: 1000,
  /** Every line item costs something: the service refuses a price of 0. */
  priceValueMin: 1,
} as const;

/** Why a payment failed, in `order.payment.failure_code` (ours: the service's interface shows no failure fields). */
export const PAYMENT_FAILURE_CODE = {
  declined: 'declined',
  insufficientFunds: 'insufficient_funds',
} as const;
/** One of the PAYMENT_FAILURE_CODE values. */
export type PaymentFailureCode = (typeof PAYMENT_FAILURE_CODE)[keyof typeof PAYMENT_FAILURE_CODE];
/** Every PAYMENT_FAILURE_CODE value: the allow-list of reasons the checkout passes on and words. */
export const PAYMENT_FAILURE_CODES = Object.values(PAYMENT_FAILURE_CODE);

/** `value` when it is a failure code the checkout knows, else undefined: a fuller service's others are dropped. */
export function paymentFailureCode(value: unknown): PaymentFailureCode | undefined {
  return (PAYMENT_FAILURE_CODES as unknown[]).includes(value) ? (value as PaymentFailureCode) : undefined;
}

/** The one-time code of every test-mode OTP. */
export const TEST_MODE_OTP_CODE = '000000';

/**
 * Status of an OTP record (`/otp/lookup`): `pending` while its payment waits for
 * the payer, `verified` once the payment is paid, `failed` once it failed.
 */
export const OTP_STATUS = {
  pending: 'pending',
  verified: 'verified',
  failed: 'failed',
} as const;

/** The one event a chime (`/chimes/lookup`) records: a payment was received. */
export const CHIME_EVENT_PAYMENT_PAID = 'payment.paid';
