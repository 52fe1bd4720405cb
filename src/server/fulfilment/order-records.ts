/**
 * The orders as the merchant's server reads them: what the delivery target
 * (each callback) receives, and `relay.orders` for a thank-you page or a support
 * desk. Both read the journal, so the answer is the same in every process.
 */
import type { Claimed, Journal, JournalOrder, OrderAmount, SettledEntry } from '../journal/journal.js';
import { MAX_ORDERS_PER_REFERENCE } from '../journal/journal-order.js';
import type { CustomersInHand } from '../lookups/customers-in-hand.js';
import type { ServiceClient } from '../service-client/service-client.js';
import { readAtDelivery } from './delivery-customer.js';
import {
  type CheckoutOrder,
  checkoutOrderOf,
  type FulfilledOrder,
  fulfilledOrderOf,
  otherPaidOrderIdsOf,
} from './fulfilled-order.js';
import type { FulfilmentSettings } from './watch-settings.js';

/** `relay.orders`: the journal's orders, by id or by the merchant's reference. */
export interface CheckoutOrders {
  /** The order with this id, or `null` when the journal has none (never created here, or pruned). */
  get(orderId: string): Promise<CheckoutOrder | null>;
  /** The orders of the merchant's reference, newest first (at most 100). */
  byReference(reference: string): Promise<CheckoutOrder[]>;
}

/** The order records of one relay: `relay.orders`, and what delivery hands the target. */
export interface OrderRecords extends CheckoutOrders {
  /**
   * What the target receives of a claimed settled entry, its customer read
   * from the service; rejects when the journal cannot say, or with
   * `CustomerUnavailableError` while the service cannot be read.
   */
  fulfilledOrder(entry: Claimed<SettledEntry> & { orderId: string }): Promise<FulfilledOrder>;
}

/** `relay.orders` without a journal: there is nothing to read, and a quiet `null` would mislead. */
export const NO_ORDERS: CheckoutOrders = {
  get: () => Promise.reject(needsJournal('get')),
  byReference: () => Promise.reject(needsJournal('byReference')),
};

function needsJournal(method: string): Error {
  return new Error(
    `relay.orders.${method} reads the order journal: give createCheckoutRelay a journal (journal: await openJournal('sqlite:.data/pay-checkout.db')).`,
  );
}

/**
 * The records on `settings.journal`; `client` reads the customer at delivery
 * (unless `customers` holds it) and the total of an order journalled before
 * totals were kept.
 */
export function createOrderRecords(
  settings: FulfilmentSettings,
  client: ServiceClient,
  customers: CustomersInHand,
): OrderRecords {
  const { journal, requestJournal } = settings;

  /** The other paid orders of `order`'s checkout, read on `from`: the requests' connections for a merchant's read. */
  async function otherPaidOrderIds(order: JournalOrder, from: Journal): Promise<string[]> {
    if (order.reference === null) return [];
    return otherPaidOrderIdsOf(
      order,
      await from.ordersByReference(order.reference, MAX_ORDERS_PER_REFERENCE),
    );
  }

  /** The amount charged: the journal's, or once, for an order journalled before it kept one, the service's `total`. */
  async function amountOf(order: JournalOrder & { orderId: string }, total: OrderAmount | undefined) {
    if (order.amount) return order.amount;
    if (!total) throw new Error(`The service's answer for ${order.orderId} has no total.`);
    await journal.recordAmount(order.idempotencyKey, total);
    return total;
  }

  async function record(order: JournalOrder | undefined): Promise<CheckoutOrder | null> {
    if (order?.orderId == null) return null;
    return checkoutOrderOf(
      { ...order, orderId: order.orderId },
      await otherPaidOrderIds(order, requestJournal),
    );
  }

  return {
    // A thank-you page or a support desk asks on the requests' connections.
    get: async (orderId) => record(await requestJournal.readOrder({ orderId: String(orderId) })),
    async byReference(reference) {
      const orders = await requestJournal.ordersByReference(String(reference), MAX_ORDERS_PER_REFERENCE);
      return orders.map((order) =>
        checkoutOrderOf({ ...order, orderId: order.orderId as string }, otherPaidOrderIdsOf(order, orders)),
      );
    },
    async fulfilledOrder(entry) {
      const order = await journal.readOrder({ idempotencyKey: entry.idempotencyKey });
      if (order?.orderId !== entry.orderId) throw new Error(`The journal has no order ${entry.orderId}.`);
      const settled = {
        ...order,
        orderId: entry.orderId,
        outcome: entry.outcome,
        settledAt: entry.settledAt,
      };
      const read = await readAtDelivery({ settings, client, customers }, entry, order.amount === null);
      return fulfilledOrderOf(settled, {
        amount: await amountOf(settled, read.total),
        customer: read.customer,
        attempt: entry.deliveryAttempts + 1,
        otherPaidOrderIds: await otherPaidOrderIds(settled, journal),
      });
    },
  };
}
