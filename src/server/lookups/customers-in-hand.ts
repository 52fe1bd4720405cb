/**
 * The customer of an order that just settled, from the lookup that saw it
 * settle, kept in this process's memory for a minute so that its delivery
 * (`onPaid` and the others get the customer to ship to) needs no second
 * lookup a moment after the first. Never written to the journal, never
 * shared across the fleet; a delivery that finds nothing here looks the
 * order up itself (order-records.ts).
 */
import type { Clock } from '../../shared/clock.js';

/** Who an order is for, as the callbacks get it: the service's order's `customer`. */
export interface OrderCustomer {
  readonly name: string;
  readonly phoneNumber: string;
}

/** How long a customer is kept after the lookup that read it. */
export const CUSTOMER_IN_HAND_MS = 60_000;
/** Customers kept at most: past it the oldest go first. */
const MAX_CUSTOMERS_IN_HAND = 1_000;

/** The customers in this process's hand. */
export interface CustomersInHand {
  /** Keeps the customer the service's `order` names, if any. */
  keep(orderId: string, order: { customer?: { name?: unknown; phone_number?: unknown } | undefined }): void;
  /** The customer of `orderId`, read within the last minute; `undefined` when none is in hand. */
  get(orderId: string): OrderCustomer | undefined;
}

/** The customer a service order names, or `null` when it names none. */
export function customerOf(order: {
  customer?: { name?: unknown; phone_number?: unknown } | undefined;
}): OrderCustomer | null {
  const { name, phone_number: phoneNumber } = order.customer ?? {};
  return typeof name === 'string' && typeof phoneNumber === 'string' ? { name, phoneNumber } : null;
}

/** Customers in hand on `clock`. */
export function createCustomersInHand(clock: Pick<Clock, 'now'>): CustomersInHand {
  const kept = new Map<string, { customer: OrderCustomer; at: number }>();
  return {
    keep(orderId, order) {
      const customer = customerOf(order);
      if (customer === null) return;
      kept.delete(orderId);
      if (kept.size >= MAX_CUSTOMERS_IN_HAND) {
        const oldest = kept.keys().next().value;
        if (oldest !== undefined) kept.delete(oldest);
      }
      kept.set(orderId, { customer, at: clock.now() });
    },
    get(orderId) {
      const entry = kept.get(orderId);
      if (entry === undefined) return undefined;
      const age = clock.now() - entry.at;
      if (age >= 0 && age < CUSTOMER_IN_HAND_MS) return entry.customer;
      kept.delete(orderId);
      return undefined;
    },
  };
}
