/**
 * What the relay keeps of an order the service answered, beside its payment
 * status: why a payment failed (only the reasons the checkout knows, as the
 * browser gets them) and the order's total, the amount the shopper is charged.
 * The create and lookup handlers and the watcher read orders alike.
 */
import { classifyPaymentStatus, paymentFailureCode } from '../../shared/service-contract.js';
import type { OrderAmount, OrderDetails } from '../journal/journal.js';
import type { OrderReading } from '../journal/relay-journal.js';
import { lineItemsTotal } from '../pricing/priced-cart.js';

/** The parts of a service order a reading takes. */
interface AnsweredOrder {
  payment: { status: string; failure_code?: unknown };
  line_item_group?: { total?: OrderAmount };
}

/** The service's total of `order`, as a plain amount; `undefined` when its answer has none. */
export function serviceTotalOf(order: AnsweredOrder): OrderAmount | undefined {
  const total = order.line_item_group?.total;
  return total && { currency: total.currency, value: total.value };
}

/** The payment status, the allow-listed failure code of a failed payment, and the total of `order`. */
export function serviceReadingOf(order: AnsweredOrder): OrderReading {
  const { status } = order.payment;
  const failed = classifyPaymentStatus(status) === 'failed';
  const amount = serviceTotalOf(order);
  return {
    paymentStatus: status,
    failureCode: (failed && paymentFailureCode(order.payment.failure_code)) || null,
    ...(amount ? { amount } : {}),
  };
}

/** What the shopper is charged for `order`: the service's total, else the priced total. */
export function chargedAmount(order: AnsweredOrder, details: OrderDetails): OrderAmount {
  return serviceTotalOf(order) ?? details.amount ?? lineItemsTotal(details.lineItems);
}
