/**
 * What `onPaid`, `onFailed` and `onExpired` receive: the order
 * as the merchant's server needs it to ship, to cancel or to refund: what
 * was paid for (the priced line items and the amount charged), for which of
 * the merchant's checkouts (`reference`, `metadata`), and whether that
 * checkout was already paid by another order; and who to ship to, read from
 * the service at delivery: the journal keeps no name or number once the
 * order is known.
 */
import type { JournalOrder, JournalOutcome, OrderAmount } from '../journal/journal.js';
import type { OrderCustomer } from '../lookups/customers-in-hand.js';
import type { PricedLineItem } from '../pricing/priced-line-items.js';

/** A settled order, delivered to the merchant's callback. */
export interface FulfilledOrder {
  /** The service's order id: the key to de-duplicate on (delivery is at least once across a crash inside the callback). */
  readonly id: string;
  /** Which callback this is: `paid`, `failed` or `expired`. */
  readonly outcome: JournalOutcome;
  /** The merchant's reference for the checkout, as `priceCart` gave it; `null` when none. */
  readonly reference: string | null;
  /** The merchant's metadata, as `priceCart` gave it; `{}` when none. */
  readonly metadata: Readonly<Record<string, string>>;
  /** The line items charged, as `priceCart` returned them. */
  readonly lineItems: readonly PricedLineItem[];
  /** What the shopper is charged: the service's order total (`order.amount`). */
  readonly amount: Readonly<OrderAmount>;
  /** The payment status last read (`paid`, `failed`, `cancelled`…); `null` if none was read. */
  readonly paymentStatus: string | null;
  /** Why the payment failed, when the service said (`declined`, `insufficient_funds`); else `null`. */
  readonly failureCode: string | null;
  /**
   * Other orders of the same reference paid before this one settled: non-empty
   * on a paid order means one checkout was paid twice, and this order can be refunded.
   */
  readonly otherPaidOrderIds: readonly string[];
  /**
   * `expired` on a late payment: the relay had settled the order expired
   * (`onExpired` called, or owed and then replaced) and the service showed it
   * paid afterwards, so this `onPaid` follows an `onExpired`; `null` otherwise
   * (also on an order settled failed as `unknown_order` that the service showed paid later).
   */
  readonly previousOutcome: 'expired' | null;
  /**
   * Who to ship to: the service's order's customer, read at delivery and
   * never kept by the journal; `null` when the order names none, or the
   * service could not be read through the delivery's tries.
   */
  readonly customer: Readonly<OrderCustomer> | null;
  /** When the relay learned the order settled (epoch ms). */
  readonly settledAt: number;
  /** 1 on the first call, more when an earlier call threw. */
  readonly attempt: number;
}

/** One order as `relay.orders` reads it: the callback's fields, `pending` until it settles, and when it was delivered. */
export interface CheckoutOrder
  extends Omit<FulfilledOrder, 'outcome' | 'amount' | 'settledAt' | 'attempt' | 'customer'> {
  /** `pending` until the order settles, then the callback it is owed. */
  readonly outcome: JournalOutcome | 'pending';
  /** As for the callback; `null` only for an order journalled before amounts were kept, until it is delivered. */
  readonly amount: Readonly<OrderAmount> | null;
  /** When the relay recorded the intent to create it (epoch ms). */
  readonly createdAt: number;
  /** When it settled (epoch ms), or `null` while pending. */
  readonly settledAt: number | null;
  /** When its callback returned (epoch ms), or `null` while it is owed or pending. */
  readonly deliveredAt: number | null;
}

/** Other orders of `order`'s reference, in `sameReference`, that settled paid before it did (or at all, while it is pending). */
export function otherPaidOrderIdsOf(order: JournalOrder, sameReference: readonly JournalOrder[]): string[] {
  const paidBefore = (other: JournalOrder) => {
    if (other.outcome !== 'paid' || other.orderId === null || other.orderId === order.orderId) return false;
    if (order.settledAt === null) return true;
    const otherAt = other.settledAt ?? Number.POSITIVE_INFINITY;
    // One millisecond for both: the lower order id counts as first, so exactly one of the two is told.
    return (
      otherAt < order.settledAt || (otherAt === order.settledAt && other.orderId < (order.orderId ?? ''))
    );
  };
  return sameReference
    .filter(paidBefore)
    .sort((a, b) => (a.settledAt ?? 0) - (b.settledAt ?? 0))
    .map((other) => other.orderId as string);
}

/**
 * What `relay.orders` and the callbacks both tell of `order`, in their order:
 * its own copies of the metadata and line items, so the merchant's code
 * cannot change the journal's; `amount` as the caller copied it.
 */
function merchantFieldsOf<
  Order extends JournalOrder & { orderId: string },
  Amount extends Readonly<OrderAmount> | null,
>(order: Order, amount: Amount, otherPaidOrderIds: string[]) {
  return {
    id: order.orderId,
    outcome: order.outcome as Order['outcome'],
    reference: order.reference,
    metadata: { ...order.metadata },
    lineItems: structuredClone([...order.lineItems]),
    amount,
    paymentStatus: order.paymentStatus,
    failureCode: order.failureCode,
    otherPaidOrderIds,
    previousOutcome: order.previousOutcome,
  };
}

/** `order` as `relay.orders` answers it, frozen to the last line item. */
export function checkoutOrderOf(
  order: JournalOrder & { orderId: string },
  otherPaidOrderIds: string[],
): CheckoutOrder {
  return deepFreeze({
    ...merchantFieldsOf(
      order,
      order.amount && { currency: order.amount.currency, value: order.amount.value },
      otherPaidOrderIds,
    ),
    createdAt: order.createdAt,
    settledAt: order.settledAt,
    deliveredAt: order.deliveredAt,
  });
}

/** What the callback of a settled `order` gets, on its `attempt`, charged `amount`; frozen to the last line item. */
export function fulfilledOrderOf(
  order: JournalOrder & { orderId: string; outcome: JournalOutcome; settledAt: number },
  {
    amount,
    attempt,
    otherPaidOrderIds,
    customer,
  }: { amount: OrderAmount; attempt: number; otherPaidOrderIds: string[]; customer: OrderCustomer | null },
): FulfilledOrder {
  return deepFreeze({
    ...merchantFieldsOf(order, { currency: amount.currency, value: amount.value }, otherPaidOrderIds),
    customer: customer && { name: customer.name, phoneNumber: customer.phoneNumber },
    settledAt: order.settledAt,
    attempt,
  });
}

/** `value` frozen, and every object and array inside it. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
