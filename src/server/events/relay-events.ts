/**
 * What the relay tells the merchant through `onEvent`: its orders, its
 * refusals and everything upstream said. This is the only place upstream
 * messages go; the browser gets generic ones.
 */

import type { OrderAmount } from '../journal/journal.js';
import type { PricedCartField } from '../pricing/priced-cart.js';
import type { PricedLineItem } from '../pricing/priced-line-items.js';
import type { ServiceError } from '../service-client/service-errors.js';
import type { FulfilmentEvent } from './fulfilment-events.js';

/** The relay's routes: create, lookup, the price before the create, and a server-created checkout's read. */
export type RelayRoute = 'create' | 'lookup' | 'price' | 'checkout';

/** Warnings about the relay's setup, each given once. */
export type RelayWarningCode =
  | 'lookup_secret_generated'
  | 'rate_limit_no_client_address'
  | 'rate_limit_store_failed'
  | 'rate_limit_store_full';

/** Everything `onEvent` receives. */
export type CheckoutRelayEvent =
  | {
      /**
       * An order was created, or an earlier create with the same key was
       * replayed: by the create handler, or by the watcher resending a create
       * whose answer was never recorded (the process died while it was on its way).
       */
      type: 'order_created';
      orderId: string;
      orderStatus: string;
      paymentStatus: string;
      /**
       * True when the service replayed the answer of an earlier create with
       * the same key (a shopper's retry, or the relay's own): this order may
       * have been reported before, so de-duplicate on `orderId`.
       */
      replayed: boolean;
      /** What `priceCart` decided was charged, as the journal recorded it. */
      lineItems: readonly PricedLineItem[];
      /** The merchant's reference for the checkout (`priceCart`'s), or `null`. */
      reference: string | null;
      /** The merchant's metadata; `{}` when none. */
      metadata: Readonly<Record<string, string>>;
      /** What the shopper is charged (`order.amount`). */
      amount: OrderAmount;
      /** `create` from a shopper's request; `watcher` from a resend after the relay lost the answer. */
      source: 'create' | 'watcher';
      /** The shopper's details, for the merchant's own order records. */
      customer: { name: string; phone_number: string };
      /** The idempotency key as the service saw it (scoped, not the shopper's). */
      idempotencyKey: string;
    }
  | {
      /** A lookup with a valid token was answered. */
      type: 'order_looked_up';
      orderId: string;
      orderStatus: string;
      paymentStatus: string;
    }
  | {
      /** The relay turned a request down before calling the service (400, 403, 404, 405, 413, 415, 500 for a cart). */
      type: 'request_rejected';
      route: RelayRoute | 'unknown';
      status: number;
      code: string;
      message: string;
      param?: string;
    }
  | {
      /** A lookup carried no token, or one not made for that order. */
      type: 'lookup_denied';
      orderId: string;
      reason: 'missing_token' | 'token_mismatch';
    }
  | {
      /** A client ran out of tokens, or a number ran out of payment prompts (`clientKey` `prompt:<HMAC>`). */
      type: 'rate_limited';
      route: RelayRoute;
      clientKey: string;
      retryAfterMs: number;
    }
  | {
      /** The service failed, refused, or could not be reached; `error` has its full details. */
      type: 'upstream_error';
      route: RelayRoute;
      /** The status the browser got. */
      answeredStatus: number;
      error: ServiceError;
    }
  | {
      /** `priceCart` threw something other than a CartError, or returned unusable line items, reference or metadata. */
      type: 'price_cart_failed';
      reason: string;
      /** The field of `priceCart`'s answer that was wrong; absent when it threw. */
      field?: PricedCartField;
      error?: unknown;
    }
  | {
      /** A bug or an unexpected failure inside the relay; the browser got a bare 500. */
      type: 'internal_error';
      route: RelayRoute | 'unknown';
      error: unknown;
    }
  | {
      /** The browser went away while its order was being created; it will retry with the same key. */
      type: 'request_aborted';
      route: 'create';
      orderId: string;
    }
  | FulfilmentEvent
  | {
      type: 'warning';
      code: RelayWarningCode;
      message: string;
      error?: unknown;
    };

/** The merchant's hook. Its throws and rejections are swallowed: logging must not break a checkout. */
export type CheckoutRelayEventHandler = (event: CheckoutRelayEvent) => void | Promise<void>;
