/**
 * What the merchant API answers, in snake_case with times in ISO 8601:
 * orders as `relay.orders` reads them, checkouts as `relay.checkouts` does.
 * Built field by field, so nothing the relay adds later reaches a shop's
 * backend unless it is written here.
 */
import type { ServerCheckout, ServerCheckoutLineItem } from '../checkouts/server-checkout.js';
import type { CheckoutOrder } from '../fulfilment/fulfilled-order.js';
import type { PricedLineItem } from '../pricing/priced-line-items.js';

/** An instant (epoch ms) in ISO 8601, `null` kept. */
function isoTime(ms: number): string;
function isoTime(ms: number | null): string | null;
function isoTime(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** A priced line item as the API shows it: name, quantity, unit price. */
function pricedLineOnWire(item: PricedLineItem) {
  const { name, quantity, price } = item.product;
  return { name, quantity, unit_price: { currency: price.currency, value: price.value } };
}

/** An order of `relay.orders` on the wire (`GET /v1/orders/{id}`, each of `GET /v1/orders?reference=`). */
export function orderOnWire(order: CheckoutOrder) {
  return {
    id: order.id,
    outcome: order.outcome,
    reference: order.reference,
    metadata: { ...order.metadata },
    line_items: order.lineItems.map(pricedLineOnWire),
    amount: order.amount && { currency: order.amount.currency, value: order.amount.value },
    payment_status: order.paymentStatus,
    failure_code: order.failureCode,
    other_paid_order_ids: [...order.otherPaidOrderIds],
    previous_outcome: order.previousOutcome,
    created_at: isoTime(order.createdAt),
    settled_at: isoTime(order.settledAt),
    delivered_at: isoTime(order.deliveredAt),
  };
}

function checkoutLineOnWire(item: ServerCheckoutLineItem) {
  const { currency, value } = item.unitPrice;
  return { name: item.name, quantity: item.quantity, unit_price: { currency, value }, sku: item.sku };
}

/** The fields every answer about a checkout has. */
function checkoutFieldsOnWire(checkout: ServerCheckout) {
  return {
    id: checkout.id,
    status: checkout.status,
    amount: { currency: checkout.amount.currency, value: checkout.amount.value },
    reference: checkout.reference,
    line_items: checkout.lineItems.map(checkoutLineOnWire),
    metadata: { ...checkout.metadata },
    origin: checkout.origin,
    expires_at: isoTime(checkout.expiresAt),
    created_at: isoTime(checkout.createdAt),
  };
}

/** The answer to `POST /v1/checkouts`: the checkout and its client secret, shown this once. */
export function createdCheckoutOnWire(checkout: ServerCheckout & { clientSecret: string }) {
  const { id, ...rest } = checkoutFieldsOnWire(checkout);
  return { id, client_secret: checkout.clientSecret, ...rest };
}

/** The answer to `GET /v1/checkouts/{id}`: never the client secret; its orders and the paid one. */
export function checkoutOnWire(checkout: ServerCheckout) {
  return {
    ...checkoutFieldsOnWire(checkout),
    order_ids: [...checkout.orderIds],
    paid_order_id: checkout.paidOrderId,
  };
}
