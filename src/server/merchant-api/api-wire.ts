/**
 * What the merchant API answers, in snake_case with times in ISO 8601:
 * orders as `relay.orders` reads them (orders/order-wire.ts, shared with
 * webhooks), checkouts as `relay.checkouts` does.
 * Built field by field, so nothing the relay adds later reaches a shop's
 * backend unless it is written here.
 */
import type { ServerCheckout, ServerCheckoutLineItem } from '../checkouts/server-checkout.js';
import { isoTime } from '../orders/order-wire.js';

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
