/**
 * Where settled orders are delivered: a target. Delivery (order-delivery.ts)
 * claims a settled order, holds its lease, and hands the order to the relay's
 * target within a time limit; the journal then marks it delivered. The
 * target knows only how to hand an order over: the merchant's callbacks
 * (callbacks.ts) are one kind, and another way of delivering is one more
 * file in this folder, with the exactly-once bookkeeping left where it is.
 */
import type { JournalOutcome } from '../../journal/journal.js';
import type { FulfilledOrder } from '../fulfilled-order.js';

/** A place of delivery for settled orders. */
export interface DeliveryTarget {
  /**
   * Who takes orders of `outcome` here, named in messages (`onPaid`);
   * `undefined` when no one does: such an order is marked delivered without
   * a call. A late payment is a `paid` order whose `previousOutcome` is `expired`.
   */
  receiverOf(outcome: JournalOutcome): string | undefined;
  /**
   * Hands `order` to its receiver: the order is delivered once this returns
   * (or its promise resolves). A throw or a rejection counts as a failed
   * delivery: the order is due again after a backoff.
   */
  deliver(order: FulfilledOrder): void | Promise<void>;
}
