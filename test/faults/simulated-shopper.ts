/**
 * A shopper without a browser: speaks the element's wire with the element's
 * own network code (src/element/checkout-api.ts: the same body, one
 * idempotency key per attempt, the same create retries) and the element's
 * polling schedule (a lookup at once, then every `poll-interval`, backing off
 * on failures as PollController does) until the payment is final or
 * `poll-timeout` passes. The concurrency test runs hundreds at once; the soak
 * benchmark runs them for minutes. Not a test file.
 */
import { setTimeout as wait } from 'node:timers/promises';
import { createOrder, lookupOrder } from '../../src/element/checkout-api.js';
import {
  clampPollInterval,
  POLL_INTERVAL_MIN_MS,
  pollBackoffDelay,
} from '../../src/element/poll-controller.js';
import { detectIssuer, parseGhanaMobileNumber } from '../../src/shared/ghana-mobile-money.js';
import { classifyPaymentStatus } from '../../src/shared/service-contract.js';
import type { CheckoutIntent } from '../../src/shared/wire.js';

/** One shopper's checkout. */
export interface ShopperOptions {
  /** The relay's create URL (absolute). */
  createUrl: string;
  /** The relay's lookup URL (absolute). */
  lookupUrl: string;
  name: string;
  /** Local form, `0241234567`. */
  number: string;
  /** Default: the fastest the element polls, 2 s. */
  pollIntervalMs?: number;
  /** Default 60 s. */
  pollTimeoutMs?: number;
  /** Sent as `cart`. */
  cart?: unknown;
  /** The fetch of this shopper's "browser" (to add a client address, count requests…). */
  fetch?: typeof fetch;
  signal?: AbortSignal;
}

/** How a shopper's checkout ended. */
export interface ShopperOutcome {
  state: 'paid' | 'failed' | 'timeout';
  orderId: string;
  paymentStatus: string;
  idempotencyKey: string;
  /** Lookups sent, failed ones included. */
  lookups: number;
  /** Lookups that failed (network, 5xx, 429) and were retried later. */
  failedLookups: number;
}

/** The create body the element sends for this shopper (contract §3). */
export function shopperIntent(name: string, number: string, cart: unknown = null): CheckoutIntent {
  const parsed = parseGhanaMobileNumber(number);
  const issuer = detectIssuer(number);
  if (!parsed || !issuer) throw new TypeError(`Not a Ghanaian mobile-money number: ${number}`);
  return {
    customer_data: { name, phone_number: parsed.international },
    payment_method_data: { type: 'mobile_money', mobile_money: { issuer, number: parsed.local } },
    cart,
  };
}

/** Pays as one shopper: create (with the element's retries), then polls until final or timed out. */
export async function payAsShopper(options: ShopperOptions): Promise<ShopperOutcome> {
  const intervalMs = clampPollInterval(options.pollIntervalMs ?? POLL_INTERVAL_MIN_MS);
  const deadline = Date.now() + (options.pollTimeoutMs ?? 60_000);
  const request = {
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  };
  const idempotencyKey = crypto.randomUUID();
  const body = JSON.stringify(shopperIntent(options.name, options.number, options.cart ?? null));
  const created = await createOrder(options.createUrl, body, idempotencyKey, request);
  const orderId = created.order.id;
  let paymentStatus = created.order.payment.status;
  let lookups = 0;
  let failedLookups = 0;
  let failuresInARow = 0;
  while (classifyPaymentStatus(paymentStatus) === 'pending') {
    if (Date.now() >= deadline) {
      return { state: 'timeout', orderId, paymentStatus, idempotencyKey, lookups, failedLookups };
    }
    // The element looks at once on entering requires_action, then every interval.
    if (lookups > 0) {
      const pause = failuresInARow > 0 ? pollBackoffDelay(intervalMs, failuresInARow) : intervalMs;
      await wait(Math.min(pause, Math.max(0, deadline - Date.now())), undefined, { signal: options.signal });
    }
    lookups++;
    try {
      const answer = await lookupOrder(
        options.lookupUrl,
        { order_id: orderId, lookup_token: created.lookup_token },
        request,
      );
      paymentStatus = answer.order.payment.status;
      failuresInARow = 0;
    } catch (error) {
      if (!(error as { retryable?: boolean }).retryable) throw error;
      failedLookups++;
      failuresInARow++;
    }
  }
  const state = classifyPaymentStatus(paymentStatus) === 'paid' ? 'paid' : 'failed';
  return { state, orderId, paymentStatus, idempotencyKey, lookups, failedLookups };
}

/**
 * The `index`-th distinct test number that the sandbox pays: MTN's 024 prefix,
 * skipping the numbers that decline, never answer or lack funds.
 */
export function payingNumber(index: number): string {
  const number = `0245${String(index % 1_000_000).padStart(6, '0')}`;
  if (!parseGhanaMobileNumber(number)) throw new RangeError(`No paying number for ${index}.`);
  return number;
}
