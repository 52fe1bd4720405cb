/**
 * What `onPaid`, `onFailed` and `onExpired` receive: the order as the
 * merchant's server needs it to ship or to cancel, and nothing of the
 * shopper's. The journal does not keep the shopper's name or number once
 * the order is known, so there is nothing to leak; the merchant's own records
 * (from the `order_created` event, say) hold the cart under the same id.
 */
import type { JournalOutcome, SettledEntry } from '../journal/journal.js';

/** A settled order, delivered to the merchant's callback. */
export interface FulfilledOrder {
  /** The service's order id: the key to de-duplicate on (delivery is at least once across a crash inside the callback). */
  readonly id: string;
  /** Which callback this is: `paid`, `failed` or `expired`. */
  readonly outcome: JournalOutcome;
  /** The payment status last read (`paid`, `declined`, `insufficient_funds`…); `null` if none was read. */
  readonly paymentStatus: string | null;
  /** When the relay learned the order settled (epoch ms). */
  readonly settledAt: number;
  /** 1 on the first call, more when an earlier call threw. */
  readonly attempt: number;
}

/** The order a settled entry describes; only entries with an order id are delivered. */
export function fulfilledOrderOf(entry: SettledEntry & { orderId: string }): FulfilledOrder {
  return Object.freeze({
    id: entry.orderId,
    outcome: entry.outcome,
    paymentStatus: entry.paymentStatus,
    settledAt: entry.settledAt,
    attempt: entry.deliveryAttempts + 1,
  });
}
