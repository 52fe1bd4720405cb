/**
 * The JSON the sandbox answers with, built from an {@link OrderRecord}. Each
 * audience gets its own view: the service's full order, the slimmer order of
 * a page, and the control surface's views, which never hold the customer's
 * name or full number (the demo's phone mock-up reads them in the browser).
 */
import {
  CHIME_EVENT_PAYMENT_PAID,
  type Issuer,
  ORDER_STATUS,
  OTP_STATUS,
  PAYMENT_STATUS,
  type PaymentFailureCode,
  TEST_MODE_OTP_CODE,
} from '../shared/service-contract.js';
import type { Customer, LineItem, MobileMoneyMethod, Money, OrderRecord } from './order-record.js';

/**
 * The order of `/orders/new` and `/orders/lookup` (the service's fields,
 * plus those marked ours): a page's order with its line items and the whole payment.
 */
export interface OrderJson extends OrderPageItemJson {
  /** Ours: the line items as validated (names trimmed). */
  line_items: LineItem[];
  payment: PaymentJson;
}

/** The payment nested in an order (the service shows `status`; the rest is ours). */
export interface PaymentJson {
  status: string;
  method?: MobileMoneyMethod;
  /** The OTP issued when the payment started (`/otp/lookup`). */
  otp_id?: string;
  /** The chime recorded once the payment is paid (`/chimes/lookup`). */
  chime_id?: string;
  /** When the payment became paid or failed. */
  settled_at?: string;
  /** Why a failed payment failed. */
  failure_code?: PaymentFailureCode;
}

/** An order inside a `/orders/page` answer: the service's page fields and the payment status. */
export interface OrderPageItemJson {
  id: string;
  status: string;
  initiated_at: string;
  completed_at?: string;
  line_item_group: { products_count: number; total: Money };
  customer?: Customer;
  payment: { status: string };
}

/** The order in a control-surface answer: status fields only. */
export interface OrderStatusJson {
  id: string;
  status: string;
  completed_at?: string;
  payment: { status: string };
}

/** What a payer's phone shows for a payment prompt (control surface). */
export interface PaymentPromptJson {
  order_id: string;
  status: string;
  amount: Money;
  issuer: Issuer;
  /** `024•••4567`: enough for a payer to recognise, not the whole number. */
  number_masked: string;
  merchant_name: string;
}

/** An OTP record (`/otp/lookup`; the service shows no fields, these are ours). */
export interface OtpJson {
  id: string;
  order_id: string;
  status: string;
  /** Test mode only: the service's fixed code. */
  code: string;
  created_at: string;
}

/** A chime record (`/chimes/lookup`; ours): the "payment received" notice of a paid order. */
export interface ChimeJson {
  id: string;
  order_id: string;
  event: string;
  amount: Money;
  created_at: string;
}

/** The full order; call after {@link settleDuePayment}. */
export function orderJson(order: OrderRecord): OrderJson {
  return {
    ...orderSummary(order),
    line_items: order.lineItems as LineItem[],
    ...customerField(order),
    payment: paymentJson(order),
  };
}

/** The order as a page lists it. */
export function orderPageItemJson(order: OrderRecord): OrderPageItemJson {
  return {
    ...orderSummary(order),
    ...customerField(order),
    payment: { status: order.payment.status },
  };
}

/** The status-only order of the control surface. */
export function orderStatusJson(order: OrderRecord): OrderStatusJson {
  return {
    id: order.id,
    status: orderStatus(order),
    ...completedAtField(order),
    payment: { status: order.payment.status },
  };
}

/** The payer's prompt; undefined for an order without a mobile-money payment. */
export function paymentPromptJson(order: OrderRecord): PaymentPromptJson | undefined {
  if (!order.paymentMethod || order.payment.status === PAYMENT_STATUS.notStarted) return undefined;
  const { issuer, number } = order.paymentMethod.mobile_money;
  return {
    order_id: order.id,
    status: order.payment.status,
    amount: { ...order.total },
    issuer,
    number_masked: maskNumber(number),
    merchant_name: order.applicationName,
  };
}

/** The OTP record of an order whose payment started. */
export function otpJson(order: OrderRecord): OtpJson | undefined {
  if (order.otpId === undefined) return undefined;
  return {
    id: order.otpId,
    order_id: order.id,
    status:
      order.payment.status === PAYMENT_STATUS.paid
        ? OTP_STATUS.verified
        : order.payment.status === PAYMENT_STATUS.failed
          ? OTP_STATUS.failed
          : OTP_STATUS.pending,
    code: TEST_MODE_OTP_CODE,
    created_at: order.initiatedAt,
  };
}

/** The chime of an order; it exists only once the payment is paid. */
export function chimeJson(order: OrderRecord): ChimeJson | undefined {
  if (order.chimeId === undefined || order.payment.status !== PAYMENT_STATUS.paid) return undefined;
  return {
    id: order.chimeId,
    order_id: order.id,
    event: CHIME_EVENT_PAYMENT_PAID,
    amount: { ...order.total },
    created_at: order.payment.settledAt,
  };
}

/** `0241234567` → `024•••4567`. */
export function maskNumber(localNumber: string): string {
  return `${localNumber.slice(0, 3)}•••${localNumber.slice(-4)}`;
}

function orderStatus(order: OrderRecord): string {
  return order.payment.status === PAYMENT_STATUS.paid ? ORDER_STATUS.completed : ORDER_STATUS.requiresPayment;
}

// `completed_at` is present on a completed order and absent otherwise.
function completedAtField(order: OrderRecord): { completed_at?: string } {
  return order.payment.status === PAYMENT_STATUS.paid ? { completed_at: order.payment.settledAt } : {};
}

/** The fields the full order and a page's order open with, in the order they are sent. */
function orderSummary(order: OrderRecord): Omit<OrderPageItemJson, 'customer' | 'payment'> {
  return {
    id: order.id,
    status: orderStatus(order),
    initiated_at: order.initiatedAt,
    ...completedAtField(order),
    line_item_group: { products_count: order.productsCount, total: { ...order.total } },
  };
}

function customerField(order: OrderRecord): { customer?: Customer } {
  return order.customer ? { customer: order.customer } : {};
}

function paymentJson(order: OrderRecord): PaymentJson {
  const payment = order.payment;
  const json: PaymentJson = { status: payment.status };
  if (order.paymentMethod) json.method = order.paymentMethod;
  if (order.otpId !== undefined) json.otp_id = order.otpId;
  if (payment.status === PAYMENT_STATUS.paid) {
    if (order.chimeId !== undefined) json.chime_id = order.chimeId;
    json.settled_at = payment.settledAt;
  } else if (payment.status === PAYMENT_STATUS.failed) {
    json.settled_at = payment.settledAt;
    json.failure_code = payment.failureCode;
  }
  return json;
}
