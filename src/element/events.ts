/**
 * The element's events: one typed definition each, all
 * bubbling and composed so a page can listen on the element or any ancestor,
 * and typed for `addEventListener` through `HTMLElementEventMap`.
 */
import type { PaymentFailureCode } from '../shared/service-contract.js';
import type { CheckoutIntent, LookupAnswer, OrderAmount } from '../shared/wire.js';
import type { CheckoutState } from './checkout-machine.js';

/** `pay-submit`: before the create call; cancel it to send nothing. */
export interface PaySubmitDetail {
  /** Exactly what will be sent to `create-url`. */
  intent: CheckoutIntent;
}

/** `pay-created`: the relay created the order. */
export interface PayCreatedDetail {
  orderId: string;
  status: string;
  paymentStatus: string;
  /**
   * What the shopper is charged: the relay's `order.amount`; the page's
   * `amount` and `currency` when the relay's answer has none (an older
   * relay); null when neither gave a whole amount.
   */
  amount: OrderAmount | null;
  /** The merchant's reference for the checkout, from the relay; null when it gave none. */
  reference: string | null;
}

/** `pay-requires-action`: the payment waits for the payer. */
export interface PayRequiresActionDetail {
  orderId: string;
}

/** `pay-paid`: the payment status is `paid`. */
export interface PayPaidDetail {
  orderId: string;
  /** The order as the relay last described it. */
  order: LookupAnswer['order'];
  /**
   * What the shopper was charged: the relay's `order.amount`, from this
   * answer or an earlier one of the order; the page's `amount` and
   * `currency` when no answer had it (an older relay); null when neither
   * gave a whole amount.
   */
  amount: OrderAmount | null;
  /** The merchant's reference for the checkout, from the create answer; null when it gave none or the order was resumed. */
  reference: string | null;
  /**
   * Set only when this is another order of the checkout paid after the
   * first: the shopper paid more than once. The ids of the orders of the
   * checkout paid before it, the first one first; the merchant refunds one.
   */
  otherPaidOrderIds?: string[];
}

/** `pay-failed`: a terminal failure status (`failed`, `cancelled`, `expired`). */
export interface PayFailedDetail {
  orderId: string;
  paymentStatus: string;
  /** Why, when the relay said so: `declined` (the payer declined the prompt) or `insufficient_funds`; else undefined. */
  failureCode?: PaymentFailureCode | undefined;
}

/** `pay-timeout`: `poll-timeout` passed without a terminal status. */
export interface PayTimeoutDetail {
  orderId: string;
}

/** `pay-error`: a retryable or configuration error. Never carries a key. */
export interface PayErrorDetail {
  /**
   * The relay's `error.code`, or the element's own: `network_error`,
   * `invalid_answer`, `secret_key_exposed`, `missing_url`, `invalid_cart`,
   * `cart_rejected` (the merchant's `CartError`; `message` is its text), and
   * `amount_changed` (the relay priced the cart otherwise than the button said; no prompt was sent).
   */
  code: string;
  message: string;
  /** True when "Try again" (same idempotency key) may succeed. */
  retryable: boolean;
}

/** `pay-state-change`: every change of the `state` attribute. */
export interface PayStateChangeDetail {
  state: CheckoutState;
  previous: CheckoutState;
}

/** Each event name with its `detail`. */
export interface PayCheckoutEventDetails {
  'pay-submit': PaySubmitDetail;
  'pay-created': PayCreatedDetail;
  'pay-requires-action': PayRequiresActionDetail;
  'pay-paid': PayPaidDetail;
  'pay-failed': PayFailedDetail;
  'pay-timeout': PayTimeoutDetail;
  'pay-error': PayErrorDetail;
  'pay-state-change': PayStateChangeDetail;
}

/** The name of one of the element's events. */
export type PayCheckoutEventName = keyof PayCheckoutEventDetails;

/**
 * Every event name, in a fixed order: for pages and tests
 * that listen to them all. The record makes a missing or extra name a type error.
 */
export const PAY_CHECKOUT_EVENT_NAMES = Object.keys({
  'pay-submit': true,
  'pay-created': true,
  'pay-requires-action': true,
  'pay-paid': true,
  'pay-failed': true,
  'pay-timeout': true,
  'pay-error': true,
  'pay-state-change': true,
} satisfies Record<PayCheckoutEventName, true>) as readonly PayCheckoutEventName[];

/** Fired before the create call; cancelable. */
export type PaySubmitEvent = CustomEvent<PaySubmitDetail>;
/** Fired once the order exists. */
export type PayCreatedEvent = CustomEvent<PayCreatedDetail>;
/** Fired when the payment waits for the payer. */
export type PayRequiresActionEvent = CustomEvent<PayRequiresActionDetail>;
/** Fired when the payment is paid. */
export type PayPaidEvent = CustomEvent<PayPaidDetail>;
/** Fired on a terminal payment failure. */
export type PayFailedEvent = CustomEvent<PayFailedDetail>;
/** Fired when `poll-timeout` passes. */
export type PayTimeoutEvent = CustomEvent<PayTimeoutDetail>;
/** Fired on a retryable or configuration error. */
export type PayErrorEvent = CustomEvent<PayErrorDetail>;
/** Fired on every state change. */
export type PayStateChangeEvent = CustomEvent<PayStateChangeDetail>;

declare global {
  interface HTMLElementEventMap {
    'pay-submit': PaySubmitEvent;
    'pay-created': PayCreatedEvent;
    'pay-requires-action': PayRequiresActionEvent;
    'pay-paid': PayPaidEvent;
    'pay-failed': PayFailedEvent;
    'pay-timeout': PayTimeoutEvent;
    'pay-error': PayErrorEvent;
    'pay-state-change': PayStateChangeEvent;
  }
}

/**
 * Dispatches one of the element's events from `target`. Returns false when a
 * listener cancelled a cancelable event (only `pay-submit` is cancelable).
 */
export function dispatchPayEvent<Name extends PayCheckoutEventName>(
  target: EventTarget,
  name: Name,
  detail: PayCheckoutEventDetails[Name],
): boolean {
  return target.dispatchEvent(
    new CustomEvent(name, { detail, bubbles: true, composed: true, cancelable: name === 'pay-submit' }),
  );
}
