/**
 * The `order_created` event, built in one place for the two ways an order
 * comes to be: the create handler answering a shopper, and the watcher
 * resending a create whose answer the relay never recorded.
 */
import type { OrderAmount, OrderDetails } from '../journal/journal.js';
import type { CheckoutRelayEvent } from './relay-events.js';

/** What the event says of one created order. */
export interface CreatedOrder {
  order: { id: string; status: string; payment: { status: string } };
  /** Whether the service replayed an earlier create with the same key. */
  replayed: boolean;
  amount: OrderAmount;
  customer: { name: string; phone_number: string };
  details: OrderDetails;
  idempotencyKey: string;
  source: 'create' | 'watcher';
}

/** The `order_created` event of `created`. */
export function orderCreatedEvent(created: CreatedOrder): CheckoutRelayEvent {
  const { order, details } = created;
  return {
    type: 'order_created',
    orderId: order.id,
    orderStatus: order.status,
    paymentStatus: order.payment.status,
    replayed: created.replayed,
    lineItems: details.lineItems,
    customer: { name: created.customer.name, phone_number: created.customer.phone_number },
    idempotencyKey: created.idempotencyKey,
    reference: details.reference,
    metadata: details.metadata,
    amount: created.amount,
    source: created.source,
  };
}
