/**
 * An order as the sandbox holds it, and its payment's life. The payment is
 * settled lazily from the clock whenever the order is read (no timers): a
 * stopped server leaves nothing running, and tests can use a fake clock.
 */
import {
  type Currency,
  type Issuer,
  PAYMENT_FAILURE_CODE,
  PAYMENT_STATUS,
  type PaymentFailureCode,
} from '../shared/service-contract.js';
import { SANDBOX_TEST_NUMBERS } from './test-numbers.js';

/** The service's money object; `value` in minor units. */
export interface Money {
  currency: Currency;
  value: number;
}

/** A line item as sent and kept. */
export interface LineItem {
  type: 'product';
  product: { name: string; price: Money; quantity: number };
}

/** The customer of an order. */
export interface Customer {
  id: string;
  name: string;
  phone_number: string;
}

/** A mobile-money payment method, as sent. */
export interface MobileMoneyMethod {
  type: 'mobile_money';
  mobile_money: { issuer: Issuer; number: string };
}

/** What the simulated payer will do when prompted. */
export type PayerResponse = 'approves' | 'declines' | 'insufficient_funds' | 'never_answers';

/**
 * Where a payment stands. `respondsAt` is clock milliseconds; `settledAt` is
 * kept as its ISO 8601 text, since every read shows it and none computes with it.
 */
export type PaymentState =
  | { status: typeof PAYMENT_STATUS.notStarted }
  | { status: typeof PAYMENT_STATUS.requiresAction; payerResponse: PayerResponse; respondsAt: number }
  | { status: typeof PAYMENT_STATUS.paid; settledAt: string }
  | { status: typeof PAYMENT_STATUS.failed; settledAt: string; failureCode: PaymentFailureCode };

/** An order held by the sandbox. Only `payment` changes after creation. */
export interface OrderRecord {
  readonly id: string;
  readonly applicationId: string;
  readonly applicationName: string;
  /** Creation time, ISO 8601 (`initiated_at`). */
  readonly initiatedAt: string;
  readonly lineItems: readonly LineItem[];
  readonly productsCount: number;
  readonly total: Money;
  readonly customer: Customer | undefined;
  readonly paymentMethod: MobileMoneyMethod | undefined;
  /** The OTP issued when the payment started. */
  readonly otpId: string | undefined;
  /** The chime that records the payment once it is paid. */
  readonly chimeId: string | undefined;
  payment: PaymentState;
}

/** How the simulated payer answers a prompt sent to `localNumber` (the sandbox's test numbers). */
export function payerResponseFor(localNumber: string): PayerResponse {
  switch (localNumber) {
    case SANDBOX_TEST_NUMBERS.declines:
      return 'declines';
    case SANDBOX_TEST_NUMBERS.insufficientFunds:
      return 'insufficient_funds';
    case SANDBOX_TEST_NUMBERS.neverAnswers:
      return 'never_answers';
    default:
      return 'approves';
  }
}

/** How each simulated payer response settles the payment: paid, or failed with this code. */
const SETTLEMENT_OF: Record<Exclude<PayerResponse, 'never_answers'>, PaymentFailureCode | undefined> = {
  approves: undefined,
  declines: PAYMENT_FAILURE_CODE.declined,
  insufficient_funds: PAYMENT_FAILURE_CODE.insufficientFunds,
};

/**
 * Applies the payer's answer if it is due by `now`. The settlement time is
 * when the payer answered, not when someone looked.
 */
export function settleDuePayment(order: OrderRecord, now: number): void {
  const payment = order.payment;
  if (payment.status !== PAYMENT_STATUS.requiresAction || now < payment.respondsAt) return;
  if (payment.payerResponse === 'never_answers') return;
  order.payment = settledPayment(isoTime(payment.respondsAt), SETTLEMENT_OF[payment.payerResponse]);
}

/**
 * The payer approves or declines now (the control surface). Returns false,
 * changing nothing, unless the payment still waits for the payer.
 */
export function answerPayment(
  order: OrderRecord,
  now: number,
  answer: { approve: true } | { approve: false; failureCode: PaymentFailureCode },
): boolean {
  settleDuePayment(order, now);
  if (order.payment.status !== PAYMENT_STATUS.requiresAction) return false;
  order.payment = settledPayment(isoTime(now), answer.approve ? undefined : answer.failureCode);
  return true;
}

/** A payment settled at `settledAt`: paid, or failed with `failureCode`. */
function settledPayment(settledAt: string, failureCode: PaymentFailureCode | undefined): PaymentState {
  return failureCode === undefined
    ? { status: PAYMENT_STATUS.paid, settledAt }
    : { status: PAYMENT_STATUS.failed, settledAt, failureCode };
}

/** ISO 8601 in UTC with milliseconds and `Z` (the service allows an offset or `Z`). */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
