/**
 * Where the payments service specification says "not shown", these are the
 * choices our sandbox, service client, relay and element make. A fuller
 * specification changes this one file.
 *
 * Pure constants: safe to import from the browser and from the server.
 */

/** Header that carries an idempotency key on every write (spec §4 leaves the name open). */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** Header set on an answer replayed from an earlier request with the same key. */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

/** How long the service keeps an idempotency key (contract §4). */
export const IDEMPOTENCY_KEY_RETENTION_MS = 24 * 60 * 60 * 1000;

/** Idempotency keys accepted on the wire: 16–255 characters of `[A-Za-z0-9_-]` (contract §3). */
export const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9_-]{16,255}$/;

/** Money `value` is an integer count of minor units (pesewas for `ghs`); spec §2 leaves the unit open. */
export const MONEY_VALUE_UNIT = 'minor';

/** Currencies the service accepts (lowercase, spec §2). */
export const CURRENCIES = ['ghs'] as const;
export type Currency = (typeof CURRENCIES)[number];

/** Mobile-money networks, as the lowercase `issuer` codes of spec §2. */
export const ISSUERS = ['mtn', 'telecel', 'at'] as const;
export type Issuer = (typeof ISSUERS)[number];

/** Page sizes accepted by every `/page` endpoint (spec §4, §8; contract §4). */
export const PAGE_SIZE_MIN = 1;
export const PAGE_SIZE_MAX = 256;

/** Session lifetime after a key is checked (spec §5.4). */
export const SESSION_LIFETIME_MS = 60 * 60 * 1000;

/** Order statuses (spec §3). */
export const ORDER_STATUS = {
  requiresPayment: 'requires_payment',
  completed: 'completed',
} as const;

/**
 * Payment statuses. `paid` is success; `failed`, `cancelled` and `expired` are
 * terminal failures; any other value, known or not, is still pending (contract §3).
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

const TERMINAL_FAILURE_STATUSES: ReadonlySet<string> = new Set([
  PAYMENT_STATUS.failed,
  PAYMENT_STATUS.cancelled,
  PAYMENT_STATUS.expired,
]);

/** What a poller should make of a payment status it read. */
export type PaymentOutcome = 'paid' | 'failed' | 'pending';

/** Classifies a payment status string; unknown values keep the poll going. */
export function classifyPaymentStatus(status: string): PaymentOutcome {
  if (status === PAYMENT_STATUS.paid) return 'paid';
  if (TERMINAL_FAILURE_STATUSES.has(status)) return 'failed';
  return 'pending';
}

/** Error codes, types and HTTP statuses (spec §7 and contract §3/§4 for those the spec leaves open). */
export const SERVICE_ERRORS = {
  authenticationFailed: { status: 401, code: 'authentication_failed', type: 'authentication_error' },
  permissionDenied: { status: 403, code: 'permission_denied', type: 'authorization_error' },
  invalidRequest: { status: 400, code: 'invalid_request', type: 'invalid_request_error' },
  resourceNotFound: { status: 404, code: 'resource_not_found', type: 'invalid_request_error' },
  methodNotAllowed: { status: 405, code: 'method_not_allowed', type: 'invalid_request_error' },
  idempotencyRequestInProgress: {
    status: 409,
    code: 'idempotency_request_in_progress',
    type: 'idempotency_error',
  },
  payloadTooLarge: { status: 413, code: 'payload_too_large', type: 'invalid_request_error' },
  unsupportedMediaType: { status: 415, code: 'unsupported_media_type', type: 'invalid_request_error' },
  idempotencyKeyReused: { status: 422, code: 'idempotency_key_reused', type: 'idempotency_error' },
  rateLimited: { status: 429, code: 'rate_limited', type: 'rate_limit_error' },
  internalError: { status: 500, code: 'internal_error', type: 'api_error' },
  upstreamFailed: { status: 502, code: 'service_unavailable', type: 'api_error' },
} as const;

export type ServiceErrorKind = keyof typeof SERVICE_ERRORS;

/** The error body every piece answers with (spec §7, plus `param` for invalid input). */
export interface ErrorBody {
  error: { code: string; message: string; type: string; param?: string };
}
